"""Mail over IMAP against a real Dovecot: first and later syncs, moves, a renumbered folder, a
wrong password and the server going away half-way."""

from __future__ import annotations

import email
from pathlib import Path

import pytest

from core.errors import UserFacingError
from core.feeds.facade import Feeds
from core.feeds.mail import new_account
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder
from tests.feeds.conftest import Mailbox, real_emails
from tests.feeds.dovecot import PASSWORD, USER

pytestmark = pytest.mark.asyncio

EMAILS = real_emails()


def message_ids(messages: list[bytes]) -> set[str]:
    """Message-IDs as the stdlib's parser reads them (not the importer under test)."""
    return {email.message_from_bytes(m)["Message-ID"].strip("<>") for m in messages}


async def stored(memory) -> dict[str, bool]:
    """Every stored e-mail: its Message-ID and whether it counts as the owner's."""
    async with memory.conn.execute("SELECT platform_id, is_owner FROM messages WHERE platform = 'email'") as cur:
        rows = await cur.fetchall()
    ids = [row[0] for row in rows]
    assert len(ids) == len(set(ids)), "an e-mail was stored twice"
    return {row[0]: bool(row[1]) for row in rows}


def feeds_over(memory, *, password: str = PASSWORD) -> Feeds:
    return Feeds(memory, secrets={"MAIL_PASSWORD": password}.get, mail_timeout=10)


async def add(feeds: Feeds, dovecot, *folders: str):
    return await feeds.add_mail("home", new_account(host="127.0.0.1", port=dovecot.port, user=USER,
                                                    password_env="MAIL_PASSWORD", folders=folders))


async def test_first_sync_saves_inbox_and_sent_as_their_eml_files_would_be(tmp_path: Path, dovecot, mailbox_of):
    inbox, sent = EMAILS[:20], EMAILS[20:24]
    mailbox_of.append("INBOX", inbox)
    mailbox_of.append("Sent", sent)
    async with memory_at(tmp_path, HashEmbedder()) as memory:
        feeds = feeds_over(memory)
        await add(feeds, dovecot)
        [run] = await feeds.sync_mail("home")
        assert run.error is None and run.messages_added == 24
        found = await stored(memory)
        assert set(found) == message_ids(inbox + sent)
        # the Sent folder says the owner wrote them; nothing else does (no alias matches)
        assert {i for i, owner in found.items() if owner} == message_ids(sent)
        # the same e-mails saved as .eml files are the same sources: importing them adds nothing
        files = []
        for n, message in enumerate(inbox):
            files.append(tmp_path / f"{n}.eml")
            files[-1].write_bytes(message)
        report = await memory.ingest(files)
        assert (report.documents_added, report.documents_skipped, report.errors) == (0, 20, [])
        [feed] = await feeds.all()
        assert feed.last_run_at is not None and feed.last_added == 24 and feed.last_error is None


async def test_a_second_sync_adds_only_the_new_mail(tmp_path: Path, dovecot, mailbox_of):
    mailbox_of.append("INBOX", EMAILS[:10])
    async with memory_at(tmp_path, HashEmbedder()) as memory:
        feeds = feeds_over(memory)
        await add(feeds, dovecot)
        assert (await feeds.sync_mail("home"))[0].messages_added == 10
        mailbox_of.append("INBOX", EMAILS[10:13])
        [run] = await feeds.sync_mail("home")
        assert run.messages_added == 3 and run.documents_added == 3
        assert (await feeds.sync_mail("home"))[0].messages_added == 0
        assert set(await stored(memory)) == message_ids(EMAILS[:13])


async def test_a_message_moved_to_another_folder_is_not_stored_twice(tmp_path: Path, dovecot, mailbox_of):
    mailbox_of.append("INBOX", EMAILS[:5])
    async with memory_at(tmp_path, HashEmbedder()) as memory:
        feeds = feeds_over(memory)
        await add(feeds, dovecot, "INBOX", "Archive")
        assert (await feeds.sync_mail("home"))[0].messages_added == 5
        mailbox_of.client.select_folder("INBOX")
        moved = mailbox_of.client.search(["ALL"])[:2]
        mailbox_of.client.move(moved, "Archive")
        mailbox_of.append("Archive", EMAILS[5:6])
        [run] = await feeds.sync_mail("home")
        assert run.messages_added == 1
        assert set(await stored(memory)) == message_ids(EMAILS[:6])


async def test_a_renumbered_folder_is_read_again_without_storing_anything_twice(tmp_path: Path, dovecot,
                                                                               mailbox_of):
    mailbox_of.client.create_folder("Projects")
    mailbox_of.append("Projects", EMAILS[:3])
    async with memory_at(tmp_path, HashEmbedder()) as memory:
        feeds = feeds_over(memory)
        await add(feeds, dovecot, "Projects")
        assert (await feeds.sync_mail("home"))[0].messages_added == 3
        before = mailbox_of.client.folder_status("Projects", ["UIDVALIDITY"])[b"UIDVALIDITY"]
        # the folder made again (as a server restored from a backup does): new UIDVALIDITY, UIDs
        # from 1, and the new e-mail first, at a UID the old cursor would skip
        mailbox_of.client.delete_folder("Projects")
        mailbox_of.client.create_folder("Projects")
        mailbox_of.append("Projects", [EMAILS[3], *EMAILS[:3]])
        assert mailbox_of.client.folder_status("Projects", ["UIDVALIDITY"])[b"UIDVALIDITY"] != before
        [run] = await feeds.sync_mail("home")
        assert run.messages_added == 1
        assert set(await stored(memory)) == message_ids(EMAILS[:4])


async def test_a_wrong_password_is_one_line_that_names_the_variable(tmp_path: Path, dovecot, mailbox_of):
    mailbox_of.append("INBOX", EMAILS[:2])
    async with memory_at(tmp_path, HashEmbedder()) as memory:
        feeds = feeds_over(memory, password="not-it")
        await add(feeds, dovecot)
        with pytest.raises(UserFacingError) as raised:
            await feeds.sync_mail("home")
        assert raised.value.message == f"mail home: 127.0.0.1 refused the password of {USER}"
        assert "MAIL_PASSWORD" in raised.value.hint
        [feed] = await feeds.all()
        assert feed.last_error == raised.value.message
        assert await stored(memory) == {}


async def test_the_server_going_away_mid_sync_leaves_whole_mails_and_the_next_sync_resumes(
        tmp_path: Path, dovecot, mailbox_of):
    mailbox_of.append("INBOX", EMAILS[:20])
    async with memory_at(tmp_path, HashEmbedder()) as memory:
        feeds = feeds_over(memory)
        feeds.mail.batch = 5
        await add(feeds, dovecot)

        def stop_after_the_first_batch(stage: str, done: int, total: int | None) -> None:
            if done == 5:
                dovecot.stop()

        with pytest.raises(UserFacingError, match="the connection to 127.0.0.1 was lost|cannot reach"):
            await feeds.sync_mail("home", progress=stop_after_the_first_batch)
        first = await stored(memory)
        assert len(first) == 5
        # each stored e-mail is whole: its document finished, its words searchable
        async with memory.conn.execute("SELECT COUNT(*) FROM documents WHERE kind = 'email' AND chunk_count > 0"
                                       ) as cur:
            assert (await cur.fetchone())[0] == 5
        dovecot.start()
        [run] = await feeds.sync_mail("home")
        assert run.messages_added == 15
        assert set(await stored(memory)) == message_ids(EMAILS[:20])
