"""The feeds the owner set up (mail accounts, watched paths): add, list, remove, and what each did
when it last ran; the documents each brought are linked to it so `sources` can say where they came from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.errors import UserFacingError
from core.times import Clock, utc_iso, utc_now
from core.words import counted
from storage import documents as document_store
from storage import feeds as feed_store
from storage.db import Store

Feed = feed_store.FeedRow


@dataclass(frozen=True)
class FeedRun:
    """What one pass of one feed did: counts for the summary, or the one line of its error."""

    feed: Feed
    messages_added: int = 0
    documents_added: int = 0
    chats: frozenset[str] = frozenset()  # the conversations new messages went into
    error: str | None = None  # the feed could not be read at all
    file_errors: tuple[str, ...] = ()  # files that failed alone, one line each (the others were read)

    @property
    def problem(self) -> str | None:
        """What went wrong, in one line for `doctor`, or None."""
        if self.error:
            return self.error
        if self.file_errors:
            more = len(self.file_errors) - 1
            return self.file_errors[0] + (f" (and {more} more)" if more else "")
        return None


class FeedBook:
    def __init__(self, conn: Store, *, clock: Clock = utc_now) -> None:
        self.conn = conn
        self.clock = clock

    async def add(self, *, kind: str, name: str, config: dict[str, Any], exists_hint: str) -> Feed:
        async with self.conn.transaction():
            feed_id = await feed_store.add_feed(self.conn, kind=kind, name=name, config=config,
                                                added_at=utc_iso(self.clock()))
        if feed_id is None:
            raise UserFacingError(f"{name!r} is set up already", hint=exists_hint)
        return next(f for f in await self.list(kind) if f.id == feed_id)

    async def list(self, kind: str | None = None) -> list[Feed]:
        return await feed_store.list_feeds(self.conn, kind)

    async def remove(self, feed: Feed) -> None:
        """Stop reading it; what it brought stays (`biographer forget` removes a source)."""
        async with self.conn.transaction():
            await feed_store.remove_feed(self.conn, feed.id)

    async def cursors(self, feed: Feed) -> dict[str, dict[str, Any]]:
        return await feed_store.cursors(self.conn, feed.id)

    async def set_cursor(self, feed: Feed, key: str, state: dict[str, Any]) -> None:
        async with self.conn.transaction():
            await feed_store.set_cursor(self.conn, feed.id, key, state)

    async def link(self, feed: Feed, identities: Sequence[str]) -> frozenset[str]:
        """Note that the documents of these identities (those that were saved) came from `feed`;
        returns the conversations they belong to."""
        ids = [i for i in [await document_store.find_by_identity(self.conn, identity) for identity in identities]
               if i is not None]
        return await self._link(feed, ids)

    async def link_new_files(self, feed: Feed, *, after_id: int, under: str) -> frozenset[str]:
        """Link the documents saved since `after_id` from files at or under the watched path;
        returns the conversations they belong to."""
        return await self._link(feed, await feed_store.documents_since(self.conn, after_id, under=under))

    async def _link(self, feed: Feed, ids: list[int]) -> frozenset[str]:
        if not ids:
            return frozenset()
        async with self.conn.transaction():
            await feed_store.link_documents(self.conn, feed.id, ids)
        documents = [await document_store.get_document(self.conn, i) for i in ids]
        return frozenset(d.conversation_key or d.name for d in documents if d is not None)

    async def highest_document_id(self) -> int:
        return await feed_store.highest_document_id(self.conn)

    async def record(self, run: FeedRun, *, at: datetime | None = None) -> None:
        async with self.conn.transaction():
            await feed_store.record_run(self.conn, run.feed.id, at=utc_iso(at or self.clock()),
                                        added=run.messages_added, error=run.problem)

    async def feeds_of(self, document_ids: list[int]) -> dict[int, Feed]:
        """The feed that brought each of these sources (for `sources`)."""
        return await feed_store.feeds_of_documents(self.conn, document_ids)


def summary(runs: Sequence[FeedRun]) -> str | None:
    """One line for the owner about a pass over the feeds ("12 new messages in 3 chats"), or None
    when it added nothing; errors are not in it (they are logged and shown by `doctor`)."""
    messages = sum(r.messages_added for r in runs)
    if not messages:
        return None
    chats = set().union(*(r.chats for r in runs))
    return f"{counted(messages, 'new message')} in {counted(len(chats), 'chat')}"
