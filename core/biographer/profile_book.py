"""bio.md kept in the store: current text, every change in history, undo, diff, and the
Timeline and Open Questions sections rendered from their tables."""

from __future__ import annotations

from datetime import datetime

from core.biographer import profile as text_ops
from core.errors import UserFacingError
from core.times import Clock, parse_utc, utc_iso_precise, utc_now
from core.types import OpenQuestion, ProfileEdit, TimelineEvent
from storage import profile as store
from storage.db import Store



def _edit(row: store.HistoryRow) -> ProfileEdit:
    return ProfileEdit(id=row.id, at=parse_utc(row.at), kind=row.kind, section=row.section,
                       old_text=row.old_text, new_text=row.new_text, run_id=row.run_id,
                       locators=tuple(row.locators), undoes=row.undoes)


class ProfileBook:
    def __init__(self, conn: Store, *, clock: Clock = utc_now) -> None:
        self.conn = conn
        self.clock = clock

    async def text(self) -> str:
        """The stored profile (without the generated sections filled in); created on first use."""
        current = await store.get_profile(self.conn)
        if current is not None:
            return current
        fresh = text_ops.skeleton()
        async with self.conn.transaction():
            await store.write_profile(self.conn, before="", after=fresh, at=utc_iso_precise(self.clock()),
                                      kind="create", section=None, old_text="", new_text=fresh,
                                      run_id=None, locators=[])
        return fresh

    async def edit(self, old_text: str, new_text: str, *, section: str | None = None,
                   run_id: int | None = None, kind: str = "edit") -> ProfileEdit:
        """One surgical edit (EditRejected says why it does not apply)."""
        before = await self.text()
        after, touched = text_ops.apply_edit(before, old_text, new_text, section=section)
        locators = sorted(text_ops.citations_in(new_text))
        async with self.conn.transaction():
            edit_id = await store.write_profile(
                self.conn, before=before, after=after, at=utc_iso_precise(self.clock()), kind=kind,
                section=touched, old_text=old_text, new_text=new_text, run_id=run_id, locators=locators)
        return _edit(await store.get_history(self.conn, edit_id))

    async def replace(self, new_profile: str, *, kind: str, run_id: int | None,
                      section: str | None = None) -> ProfileEdit:
        before = await self.text()
        async with self.conn.transaction():
            edit_id = await store.write_profile(
                self.conn, before=before, after=new_profile, at=utc_iso_precise(self.clock()), kind=kind,
                section=section, old_text=before, new_text=new_profile, run_id=run_id,
                locators=sorted(text_ops.citations_in(new_profile)))
        return _edit(await store.get_history(self.conn, edit_id))

    async def history(self, *, limit: int = 50) -> list[ProfileEdit]:
        return [_edit(r) for r in await store.list_history(self.conn, limit=limit)]

    async def undo(self, edit_id: int) -> ProfileEdit:
        """Reverse one edit; the undo is itself an edit, so nothing is ever lost."""
        row = await store.get_history(self.conn, edit_id)
        if row is None:
            raise UserFacingError(f"there is no edit {edit_id}", hint="see `biographer bio --history`")
        if row.kind == "create":
            raise UserFacingError("the profile's creation cannot be undone", hint="undo later edits instead")
        current = await self.text()
        if await store.latest_history_id(self.conn) == edit_id or row.kind == "consolidation":
            if current != row.profile_after:
                raise UserFacingError(f"the profile changed after edit {edit_id}",
                                      hint="undo the later edits first (newest first)")
            restored = row.profile_before
        elif row.new_text and current.count(row.new_text) == 1:
            at = current.index(row.new_text)
            restored = current[:at] + row.old_text + current[at + len(row.new_text):]
        else:
            raise UserFacingError(f"later edits changed the text edit {edit_id} wrote",
                                  hint="undo the later edits first (newest first)")
        async with self.conn.transaction():
            new_id = await store.write_profile(
                self.conn, before=current, after=restored, at=utc_iso_precise(self.clock()), kind="undo",
                section=row.section, old_text=row.new_text, new_text=row.old_text, run_id=None,
                locators=sorted(text_ops.citations_in(row.old_text)), undoes=edit_id)
        return _edit(await store.get_history(self.conn, new_id))

    async def diff_since(self, since: datetime) -> str:
        before = await store.profile_as_of(self.conn, utc_iso_precise(since)) or ""
        return text_ops.unified_diff(before, await self.text(),
                                     label_before=f"bio.md {since.date().isoformat()}", label_after="bio.md now")

    async def edits_since_consolidation(self) -> int:
        return await store.edits_since_last(self.conn, "consolidation")


def render(profile: str, *, events: list[TimelineEvent], questions: list[OpenQuestion]) -> str:
    """bio.md as the owner and the model see it: the table-backed sections filled in."""
    timeline = "\n".join(
        f"- {e.date} — {e.title}" + (f": {e.detail}" if e.detail else "")
        + (" " + " ".join(f"[{loc}]" for loc in e.locators) if e.locators else "")
        for e in events) or "_(no events yet)_"
    asked = "\n".join(f"- #{q.id} (priority {q.priority}) {q.text}" for q in questions) or "_(none open)_"
    for section, body in (("Timeline", timeline), ("Open Questions", asked)):
        start, end = text_ops.section_span(profile, section)
        profile = profile[:start] + "\n" + body + "\n\n" + profile[end:].lstrip("\n")
    return profile.rstrip("\n") + "\n"
