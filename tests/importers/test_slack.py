"""Slack workspace export, zipped and unzipped: a real (scrambled) export from a parser's fixtures
in tests/importers/data/slack."""

from __future__ import annotations

import json
import shutil
import zipfile
from datetime import datetime, timezone
from pathlib import Path

from core.importers import default_importers, pick_importer
from core.importers.base import ImportContext
from core.importers.slack import SlackImporter, Workspace, render_text, to_message
from tests.importers.conftest import parse_all

EXPORT = Path(__file__).parent / "data" / "slack" / "export"
MAIN, JOINER, GONE = "WgO268Xc0KtFylJ", "VFRmaaKq7LC7tyRP", "9FNmCFGF"


def _check_channel(document, messages) -> None:
    assert document.name == "Slack #B75B4C7" and document.kind == "slack"
    assert document.conversation.key == "slack:CO69735E8A" and document.conversation.is_group
    by_ts = {m.platform_id: m for m in messages}
    join = by_ts["1736554636.807919"]
    assert join.kind == "system" and join.sender == JOINER  # a notice, not the joiner's words
    first = by_ts["1736478514.897649"]
    assert first.sender == MAIN and first.sender_id == "UOF82F39AE" and first.text == "CYmxt38hm"
    assert first.time == datetime.fromtimestamp(1736478514.897649, tz=timezone.utc)
    reply = by_ts["1736554746.482349"]  # in the next day's file, answering the thread of the 10th
    assert reply.reply_to == "1736478630.905399" and reply.sender == JOINER
    assert "1736554828.343759" not in by_ts  # the deleted parent (tombstone) is not a message...
    assert by_ts["1736554838.911679"].reply_to == "1736554828.343759"  # ...its reply stays
    shared = by_ts["1736582524.607359"]
    assert shared.text == "[file: befvnsUNVjwGzKFcKxuIlJ2dYo5z59neCfT8P2Y3t]"
    assert shared.attachments == ("befvnsUNVjwGzKFcKxuIlJ2dYo5z59neCfT8P2Y3t",)
    assert len(messages) == 12  # 13 in the files, less the tombstone
    assert [m.platform_id for m in messages] == sorted(m.platform_id for m in messages)


def test_unzipped_export_one_document_per_channel(tmp_path: Path, context: ImportContext) -> None:
    export = shutil.copytree(EXPORT, tmp_path / "slack")
    [(document, messages)] = parse_all(export / "B75B4C7" / "2025-01-10.json", context)
    _check_channel(document, messages)
    # the channel's other days and the workspace files are read with it, not a second time
    for other in (export / "B75B4C7" / "2025-01-11.json", export / "users.json", export / "channels.json"):
        assert isinstance(pick_importer(other, default_importers()), SlackImporter)
        assert parse_all(other, context) == []


def test_zipped_export(tmp_path: Path, context: ImportContext) -> None:
    path = tmp_path / "Acme Slack export Jan 10 2025 - Jan 11 2025.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for file in sorted(EXPORT.rglob("*.json")):
            archive.write(file, file.relative_to(EXPORT).as_posix())
    [(document, messages)] = parse_all(path, context)
    _check_channel(document, messages)


def test_the_owner_is_found_through_users_json(tmp_path: Path) -> None:
    export = shutil.copytree(EXPORT, tmp_path / "slack")
    owner = ImportContext(owner_aliases=frozenset({"080eb6b"}))  # the owner's Slack handle
    [(_, messages)] = parse_all(export / "B75B4C7" / "2025-01-10.json", owner)
    assert {m.sender for m in messages if m.is_owner} == {MAIN}


def test_direct_messages_and_markup(tmp_path: Path, context: ImportContext) -> None:
    export = tmp_path / "slack"
    (export / "D0DM").mkdir(parents=True)
    (export / "users.json").write_text(json.dumps([
        {"id": "U1", "name": "mara", "real_name": "Mara Lind", "profile": {"real_name": "Mara Lind"}},
        {"id": "U2", "name": "teo", "profile": {"real_name": "Teo Ramos", "display_name": "teo"}}]))
    (export / "channels.json").write_text("[]")
    (export / "dms.json").write_text(json.dumps([{"id": "D0DM", "created": 1, "members": ["U1", "U2"]}]))
    (export / "D0DM" / "2024-03-05.json").write_text(json.dumps([
        {"type": "message", "user": "U2", "ts": "1709672864.000100",
         "text": "<@U1> see <https://example.com/plan|the plan> in <#C1|general> &amp; tell <!here>",
         "edited": {"user": "U2", "ts": "1709672900.000000"}},
        {"type": "message", "user": "U1", "ts": "1709672900.000200", "text": "Booked!"}]))
    [(document, messages)] = parse_all(export / "D0DM" / "2024-03-05.json", context)
    assert document.name == "Slack DM with Teo Ramos" and not document.conversation.is_group
    teo, mara = messages
    assert teo.text == ("@Mara Lind see the plan (https://example.com/plan) in #general & tell @here (edited)")
    assert mara.is_owner and not teo.is_owner


def test_bots_and_unknown_notices() -> None:
    workspace = Workspace()
    context = ImportContext()
    bot = to_message({"type": "message", "subtype": "bot_message", "username": "Deploy bot", "bot_id": "B1",
                      "ts": "1.0", "text": "deployed"}, workspace, context)
    assert bot.sender == "Deploy bot" and bot.kind == "text" and not bot.is_owner
    notice = to_message({"type": "message", "subtype": "channel_purpose", "user": "U9", "ts": "2.0",
                         "text": "set the channel purpose: trips"}, workspace, context)
    assert notice.kind == "system"
    assert render_text("<mailto:a@b.org|a@b.org> <!subteam^S1|@design>", workspace) == "mailto:a@b.org @design".replace(
        "mailto:a@b.org", "a@b.org (mailto:a@b.org)")


def test_integration_posts_keep_their_words_and_nothing_vanishes_uncounted(context: ImportContext) -> None:
    """slack-export-viewer's test archive (MIT): 94 of its 158 messages are GitHub posts with
    empty `text` and their words in legacy attachments. They vanished without a count."""
    path = Path(__file__).parent / "data" / "slack" / "slack-export-viewer-testarchive.zip"
    documents = parse_all(path, context)
    messages = [m for _, ms in documents for m in ms]
    assert len(messages) == 158
    assert sum(sum(d.skipped.values()) for d, _ in documents) == 0
    commits = [m for m in messages if "Handle null state; resolves #1" in m.text]
    assert len(commits) == 1
    assert commits[0].text.startswith("[traveling-sailor:master] 1 new commit by hfaran:")


def test_messages_left_out_are_counted(tmp_path: Path, context: ImportContext) -> None:
    (tmp_path / "users.json").write_text(json.dumps([{"id": "U1", "name": "ana", "real_name": "Ana"}]))
    (tmp_path / "channels.json").write_text(json.dumps([{"id": "C1", "name": "general", "members": ["U1"]}]))
    (tmp_path / "general").mkdir()
    day = tmp_path / "general" / "2024-03-05.json"
    day.write_text(json.dumps([
        {"type": "message", "user": "U1", "text": "ferry at nine", "ts": "1709672000.000100"},
        {"type": "message", "user": "U1", "text": "", "ts": "1709672001.000100"},
        {"type": "message", "subtype": "tombstone", "text": "This message was deleted.", "ts": "1709672002.000100"},
    ]))
    [(document, messages)] = parse_all(day, context)
    assert [m.text for m in messages] == ["ferry at nine"]
    assert document.skipped == {"messages with nothing to read": 1, "deleted or superseded messages": 1}
