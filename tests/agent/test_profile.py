"""bio.md: exact-match edits, history, diff, undo, and consolidation that must keep every citation."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.errors import UserFacingError
from core.biographer.profile import EditRejected, apply_edit, skeleton
from core.service.admin import AdminFacet
from tests.agent.test_loop import locator_of, tool_messages
from tests.fakes.openai_server import FakeOpenAIServer


def test_skeleton_has_every_section() -> None:
    text = skeleton()
    for section in ("Summary", "Identity", "Timeline", "People & Relationships", "Interests & Preferences",
                    "Patterns", "Hypotheses", "Inferences", "Open Questions"):
        assert f"## {section}\n" in text


def test_edit_rules() -> None:
    text, section = apply_edit(skeleton(), "", "- Lives in Porto", section="identity")
    assert section == "Identity" and "## Identity\n\n- Lives in Porto\n\n## Timeline" in text
    with pytest.raises(EditRejected, match="occurs 2 times"):
        apply_edit(text + "\n- Lives in Porto\n", "- Lives in Porto", "x")
    with pytest.raises(EditRejected, match="generated"):
        apply_edit(text, "", "- 2019 moved", section="Timeline")
    with pytest.raises(EditRejected, match="headings are fixed"):
        apply_edit(text, "## Patterns", "## Habits")
    deleted, _ = apply_edit(text, "- Lives in Porto\n", "")
    assert "Porto" not in deleted


async def test_edit_mismatch_names_the_nearest_text(seeded: AdminFacet, fake_openai: FakeOpenAIServer) -> None:
    loc = await locator_of(seeded, "lease Porto")
    fake_openai.call("search", {"query": "lease"})
    fake_openai.call("edit_profile", {"old_text": "", "new_text": f"- Lives in Porto since March 2024 [{loc}]",
                                      "section": "Identity"})
    fake_openai.call("edit_profile", {"old_text": "- Lives in Porto since 2024",
                                      "new_text": f"- Lives in Porto [{loc}]"})
    fake_openai.call("edit_profile", {"old_text": "", "new_text": "- Grew up in Faro [doc42:0-10]",
                                      "section": "Identity"})
    fake_openai.reply("Noted.")

    await seeded.biographer.ask("I live in Porto now")

    mismatch = tool_messages(fake_openai.requests[3])[-1]
    assert mismatch.startswith("error: old_text does not occur in bio.md exactly as written")
    assert f"the nearest text is: '- Lives in Porto since March 2024 [{loc}]'" in mismatch
    invented = tool_messages(fake_openai.requests[4])[-1]
    assert "doc42:0-10 were not returned by a tool" in invented
    bio = await seeded.biographer.bio()
    assert f"- Lives in Porto since March 2024 [{loc}]" in bio and "Faro" not in bio
    [edit, created] = await seeded.biographer.book.history()
    assert (edit.kind, edit.section, edit.locators) == ("correction", "Identity", (loc,))
    assert edit.run_id is not None and created.kind == "create"


async def test_history_diff_and_undo(service: AdminFacet, clock) -> None:
    book = service.biographer.book
    await book.text()
    clock.advance(days=1)
    first = await book.edit("", "- Works at a bakery", section="Identity")
    clock.advance(days=1)
    second = await book.edit("- Works at a bakery", "- Works at the Porto bakery")
    third = await book.edit("", "- Loves sourdough", section="Interests & Preferences")

    # an older edit whose text is still there can be undone alone
    undo = await service.biographer.book.undo(second.id)
    bio = await service.biographer.bio()
    assert "- Works at a bakery" in bio and "Porto bakery" not in bio and "sourdough" in bio
    assert undo.undoes == second.id and undo.kind == "undo"
    with pytest.raises(UserFacingError, match="changed the text"):
        await service.biographer.book.undo(second.id)  # what it wrote is gone now
    assert [e.id for e in await service.biographer.book.history()][:4] == [undo.id, third.id, second.id, first.id]

    # since the first edit, only sourdough is new (the bakery line changed and changed back)
    diff = await service.biographer.book.diff_since(clock.now - timedelta(hours=12))
    assert [line for line in diff.splitlines() if line.startswith(("+- ", "-- "))] == ["+- Loves sourdough"]
    assert (await service.biographer.book.diff_since(clock.now - timedelta(days=3))).count("\n+- ") == 2


async def test_consolidation_refuses_a_rewrite_that_drops_a_citation(service: AdminFacet,
                                                                     fake_openai: FakeOpenAIServer) -> None:
    book = service.biographer.book
    await book.edit("", "- Lives in Porto [doc1:0-50]\n- Moved to Porto in 2024 [doc2:0-10]", section="Identity")
    await book.edit("", "- Maya: best friend [doc1:0-50]", section="People & Relationships")
    before = await book.text()
    fake_openai.reply("- Lives in Porto since 2024 [doc1:0-50]")  # Identity: doc2 dropped
    fake_openai.reply("- Maya, best friend [doc1:0-50]")  # People: fine

    assert await service.biographer.consolidate() is True
    after = await book.text()
    assert "- Lives in Porto [doc1:0-50]\n- Moved to Porto in 2024 [doc2:0-10]" in after  # kept as it was
    assert "- Maya, best friend [doc1:0-50]" in after
    [latest, *_] = await service.biographer.book.history()
    assert latest.kind == "consolidation"
    # only the non-empty, model-written sections were sent, one request per section
    assert len(fake_openai.requests) == 2
    assert "Moved to Porto in 2024 [doc2:0-10]" in fake_openai.requests[0]["messages"][-1]["content"]
    # and the old profile is one undo away
    await service.biographer.book.undo(latest.id)
    assert await book.text() == before


async def test_consolidation_refused_everywhere_leaves_the_profile(service: AdminFacet,
                                                                   fake_openai: FakeOpenAIServer) -> None:
    book = service.biographer.book
    await book.edit("", "- Lives in Porto [doc1:0-50]", section="Identity")
    before = await book.text()
    fake_openai.reply("## Identity\n- Lives in Porto [doc1:0-50]")  # adds a heading
    assert await service.biographer.consolidate() is False
    assert await book.text() == before
