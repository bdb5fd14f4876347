"""Mail over IMAP: each account's folders (the INBOX and the Sent folder by default) read from the
last UID seen, every new message saved exactly as importing its .eml would save it.

The protocol is IMAPClient's (a kept library; its calls block, so each runs in a thread). A
folder's cursor is its UIDVALIDITY and the last UID saved: a changed UIDVALIDITY means the server
renumbered the folder, so it is read again from the start, and the e-mails' identities (the hash
of their bytes) and Message-IDs keep what is stored already from being stored twice. Each message
is saved in its own transaction and the cursor moves after each batch, so a connection lost
half-way leaves nothing half-saved and the next sync goes on from there.
"""

from __future__ import annotations

import asyncio
import imaplib
import logging
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from core.errors import ImportFailed, UserFacingError
from core.feeds.book import Feed, FeedBook, FeedRun
from core.memory.facade import Memory
from core.ports import Progress, no_progress

log = logging.getLogger(__name__)

KIND = "mail"
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
FETCH_BATCH = 25  # messages fetched and saved before the cursor moves
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
T = TypeVar("T")

#: the password of an account, by the name of the environment variable (or .env entry) holding it
SecretLookup = Callable[[str], "str | None"]


@dataclass(frozen=True)
class MailAccount:
    host: str
    port: int
    user: str
    password_env: str
    folders: tuple[str, ...] = ()  # () = the INBOX and the Sent folder

    @property
    def tls(self) -> bool:
        """TLS always, except to this machine (a local bridge such as Proton's, or a test server)."""
        return self.host.lower() not in LOCAL_HOSTS

    def config(self) -> dict[str, Any]:
        return {"host": self.host, "port": self.port, "user": self.user, "password_env": self.password_env,
                "folders": list(self.folders)}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> MailAccount:
        return cls(host=config["host"], port=int(config["port"]), user=config["user"],
                   password_env=config["password_env"], folders=tuple(config.get("folders") or ()))


def new_account(*, host: str, port: int | None, user: str, password_env: str,
                folders: Sequence[str] = ()) -> MailAccount:
    """An account as the owner typed it, checked; the port defaults to 993 (IMAP over TLS), or
    143 on this machine, where no TLS is used."""
    if not _ENV_NAME.match(password_env):
        raise UserFacingError(f"{password_env!r} is not the name of an environment variable",
                              hint="pass the variable's name, e.g. --password-env WORK_MAIL_PASSWORD, and put "
                                   "the password in the environment or .env under that name")
    host = host.strip()
    if not host:
        raise UserFacingError("no mail server named", hint="pass --host, e.g. --host imap.gmail.com")
    local = host.lower() in LOCAL_HOSTS
    if port is not None and not 0 < port < 65536:
        raise UserFacingError(f"port {port} is not a port", hint="IMAP over TLS is 993")
    return MailAccount(host=host, port=port or (143 if local else 993), user=user, password_env=password_env,
                       folders=tuple(folders))


class MailSession:
    """One IMAP connection, read-only: folders are selected read-only and bodies fetched with
    BODY.PEEK, so nothing on the server changes (not even a message's \\Seen flag). Blocking."""

    def __init__(self, account: MailAccount, password: str, *, timeout: float) -> None:
        from imapclient import IMAPClient

        self.client = IMAPClient(account.host, port=account.port, ssl=account.tls, timeout=timeout)
        self.client.login(account.user, password)

    def folders(self) -> tuple[list[str], str | None]:
        """Every folder's name, and the Sent folder's (by its special-use flag, else its usual name)."""
        from imapclient.imapclient import SENT

        names = [name for _flags, _delimiter, name in self.client.list_folders()]
        return names, self.client.find_special_folder(SENT)

    def select(self, folder: str) -> int:
        """Select `folder`; its UIDVALIDITY."""
        return int(self.client.select_folder(folder, readonly=True)[b"UIDVALIDITY"])

    def uids_after(self, last_uid: int) -> list[int]:
        # `N:*` always matches the folder's last message, even when its UID is below N
        return sorted(uid for uid in self.client.search(["UID", f"{last_uid + 1}:*"]) if uid > last_uid)

    def fetch(self, uids: Sequence[int]) -> dict[int, bytes]:
        found = self.client.fetch(list(uids), ["BODY.PEEK[]"])
        return {uid: data[b"BODY[]"] for uid, data in found.items() if data.get(b"BODY[]") is not None}

    def close(self) -> None:
        try:
            self.client.logout()
        except (OSError, imaplib.IMAP4.error):
            pass  # the server is gone already; nothing is left to tidy


@dataclass
class _Tally:
    messages: int = 0
    documents: int = 0
    chats: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)  # e-mails that could not be saved, one line each


class MailSync:
    """Reads every mail feed's new messages into the memory."""

    def __init__(self, book: FeedBook, memory: Memory, secrets: SecretLookup, *,
                 timeout: float = 60.0, batch: int = FETCH_BATCH) -> None:
        self.book = book
        self.memory = memory
        self.secrets = secrets
        self.timeout = timeout
        self.batch = batch

    async def sync(self, feed: Feed, *, progress: Progress = no_progress) -> FeedRun:
        """Read `feed`'s new mail and record the run; a failure is recorded and raised (one line
        with a hint), with what was saved before it kept."""
        tally = _Tally()
        try:
            await self._sync(feed, MailAccount.from_config(feed.config), tally, progress)
        except UserFacingError as error:
            await self.book.record(self._run(feed, tally, error=error.message))
            raise
        if tally.documents:
            await self.memory.index_pending()
        run = self._run(feed, tally)
        await self.book.record(run)
        return run

    @staticmethod
    def _run(feed: Feed, tally: _Tally, *, error: str | None = None) -> FeedRun:
        return FeedRun(feed=feed, messages_added=tally.messages, documents_added=tally.documents,
                       chats=frozenset(tally.chats), error=error, file_errors=tuple(tally.errors))

    async def _sync(self, feed: Feed, account: MailAccount, tally: _Tally, progress: Progress) -> None:
        password = self.secrets(account.password_env)
        if not password:
            raise UserFacingError(f"mail {feed.name}: {account.password_env} is not set",
                                  hint=f"put the password (or app password) of {account.user} in the environment "
                                       f"or .env as {account.password_env}=...")
        session = await self._call(feed, account, lambda: MailSession(account, password, timeout=self.timeout))
        try:
            names, sent = await self._call(feed, account, session.folders)
            folders = list(account.folders) or ["INBOX", *([sent] if sent else [])]
            missing = [f for f in folders if f not in names and f.upper() != "INBOX"]
            if missing:
                raise UserFacingError(f"mail {feed.name}: there is no folder {missing[0]!r} on {account.host}",
                                      hint=f"its folders are: {', '.join(names)}")
            cursors = await self.book.cursors(feed)
            for folder in folders:
                await self._folder(feed, account, session, folder, folder == sent, cursors.get(folder), tally,
                                   progress)
        finally:
            await asyncio.to_thread(session.close)

    async def _folder(self, feed: Feed, account: MailAccount, session: MailSession, folder: str, sent: bool,
                      cursor: dict[str, Any] | None, tally: _Tally, progress: Progress) -> None:
        validity = await self._call(feed, account, session.select, folder)
        last = int(cursor["last_uid"]) if cursor and cursor.get("uidvalidity") == validity else 0
        if cursor and last == 0:
            log.warning("mail %s: %s was renumbered (UIDVALIDITY %s, was %s): reading it again; what is stored "
                        "already is not stored twice", feed.name, folder, validity, cursor.get("uidvalidity"))
        # here, not at the top: the mail reader loads when mail is read, not when any command starts
        from core.importers.email import raw_email_document

        uids = await self._call(feed, account, session.uids_after, last)
        for start in range(0, len(uids), self.batch):
            batch = uids[start:start + self.batch]
            bodies = await self._call(feed, account, session.fetch, batch)
            documents = []
            for uid in batch:
                if uid not in bodies:
                    continue  # expunged between the search and the fetch
                document = raw_email_document(bodies[uid], self.memory.context, stem=f"{folder} {uid}", sent=sent)
                try:
                    report = await self.memory.save([document], index=False)
                except ImportFailed as error:  # one broken e-mail must not hold the folder back every night
                    tally.errors.append(f"{folder} UID {uid}: {error.reason}")
                    continue
                tally.messages += report.messages_added
                tally.documents += report.documents_added
                documents.append(document)
            tally.chats |= await self.book.link(feed, [d.identity for d in documents])
            await self.book.set_cursor(feed, folder, {"uidvalidity": validity, "last_uid": batch[-1]})
            progress(f"mail {folder}", start + len(batch), len(uids))

    async def _call(self, feed: Feed, account: MailAccount, fn: Callable[..., T], *args: object) -> T:
        """One blocking IMAP step in a thread, its failures as one line that says what to do."""
        from imapclient.exceptions import LoginError

        where = f"mail {feed.name}"
        try:
            return await asyncio.to_thread(fn, *args)
        except LoginError:
            raise UserFacingError(f"{where}: {account.host} refused the password of {account.user}",
                                  hint=f"check that {account.password_env} holds the password (or the app password "
                                       "your provider issues for mail programs)") from None
        except (imaplib.IMAP4.abort, socket.timeout, ConnectionResetError, BrokenPipeError,
                ConnectionAbortedError, EOFError) as error:
            log.warning("%s: connection to %s lost", where, account.host, exc_info=error)
            raise UserFacingError(f"{where}: the connection to {account.host} was lost ({error or type(error).__name__})",
                                  hint="what was read is kept; `biographer mail sync` goes on from there") from None
        except OSError as error:
            log.warning("%s: cannot reach %s", where, account.host, exc_info=error)
            raise UserFacingError(f"{where}: cannot reach {account.host}:{account.port} "
                                  f"({error.strerror or error})",
                                  hint="check the host and port (IMAP over TLS is 993) and that the server is up"
                                  ) from None
        except imaplib.IMAP4.error as error:
            log.warning("%s: %s answered an error", where, account.host, exc_info=error)
            raise UserFacingError(f"{where}: {account.host} answered: {error}",
                                  hint="check the account's settings with `biographer mail list`") from None


async def sync_all(sync: MailSync, feeds: Sequence[Feed], *, progress: Progress = no_progress) -> list[FeedRun]:
    """Every feed in turn; a feed that fails is one line in its run and the others go on."""
    runs = []
    for feed in feeds:
        try:
            runs.append(await sync.sync(feed, progress=progress))
        except UserFacingError as error:
            runs.append(FeedRun(feed=feed, error=error.message))
    return runs
