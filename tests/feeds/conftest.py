"""A real Dovecot on 127.0.0.1 per test (skipped where Debian's dovecot-imapd is not installed),
a client that puts mail in place by IMAP APPEND, and a memory over a temp store."""

from __future__ import annotations

import mailbox
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.feeds.dovecot import PASSWORD, USER, Dovecot, dovecot_binary, make_dovecot, unsupported_version

DATA = Path(__file__).resolve().parents[1] / "importers" / "data" / "email"


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    if dovecot_binary() is None:
        pytest.skip("Dovecot is not installed (apt-get install dovecot-imapd): the IMAP tests need a real server")
    if (reason := unsupported_version()) is not None:
        pytest.skip(reason)
    server = make_dovecot()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.root, ignore_errors=True)


def real_emails() -> list[bytes]:
    """The 42 e-mails of mbox_creator's test mailbox (tests/importers/data/README.md), split by
    Python's own mailbox module, with CRLF line ends as IMAP carries them."""
    return [bytes(m).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
            for m in mailbox.mbox(DATA / "mbox_creator_test_mailbox")]


class Mailbox:
    """The test's side of the server: puts mail in place and moves it, as another mail program would."""

    def __init__(self, server: Dovecot) -> None:
        from imapclient import IMAPClient

        self.client = IMAPClient("127.0.0.1", port=server.port, ssl=False, timeout=10)
        self.client.login(USER, PASSWORD)

    def append(self, folder: str, messages: list[bytes]) -> None:
        for message in messages:
            self.client.append(folder, message)

    def close(self) -> None:
        self.client.logout()


@pytest.fixture
def mailbox_of(dovecot: Dovecot) -> Iterator[Mailbox]:
    box = Mailbox(dovecot)
    yield box
    try:
        box.close()
    except Exception:  # noqa: BLE001 - a test may have stopped the server
        pass
