"""What the front ends and the scheduler call for the feeds: set up, list and remove mail accounts
and watched paths, run them, and say what each did last."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.errors import UserFacingError
from core.feeds.book import Feed, FeedBook, FeedRun
from core.feeds.mail import KIND as MAIL, MailAccount, MailSync, SecretLookup, sync_all
from core.feeds.watch import KIND as WATCH, Watcher, parse_duration, watch_config
from core.memory.facade import Memory
from core.ports import Progress, no_progress
from core.times import Clock, utc_now


class Feeds:
    def __init__(self, memory: Memory, *, secrets: SecretLookup, clock: Clock = utc_now,
                 mail_timeout: float = 60.0, watch_settle_seconds: float = 5.0,
                 database_every: str = "1h") -> None:
        self.book = FeedBook(memory.conn, clock=clock)
        self.mail = MailSync(self.book, memory, secrets, timeout=mail_timeout)
        self.watcher = Watcher(self.book, memory, settle_seconds=watch_settle_seconds, clock=clock)
        self.database_every = parse_duration(database_every)
        self.memory = memory

    # ------------------------------------------------------------ mail

    async def add_mail(self, name: str, account: MailAccount) -> Feed:
        if not name.strip():
            raise UserFacingError("a mail account needs a name", hint="e.g. `biographer mail add work --host ...`")
        return await self.book.add(kind=MAIL, name=name.strip(), config=account.config(),
                                   exists_hint="`biographer mail list` shows it; remove it first to change it")

    async def mail_accounts(self) -> list[Feed]:
        return await self.book.list(MAIL)

    async def mail_account(self, name: str) -> Feed:
        for feed in await self.mail_accounts():
            if feed.name == name:
                return feed
        raise UserFacingError(f"there is no mail account {name!r}", hint="`biographer mail list` shows them")

    async def remove_mail(self, name: str) -> Feed:
        feed = await self.mail_account(name)
        await self.book.remove(feed)
        return feed

    async def sync_mail(self, name: str | None = None, *, progress: Progress = no_progress) -> list[FeedRun]:
        """One account (its failure raised, one line with a hint) or all of them (each failure one
        line in its run, the others going on)."""
        if name is not None:
            return [await self.mail.sync(await self.mail_account(name), progress=progress)]
        return await sync_all(self.mail, await self.mail_accounts(), progress=progress)

    # ------------------------------------------------------------ watched paths

    async def add_watch(self, path: Path, *, every: str | None = None) -> Feed:
        config = watch_config(path, every, database_every=self.database_every)
        return await self.book.add(kind=WATCH, name=config["path"], config=config,
                                   exists_hint="`biographer watch list` shows it; remove it first to change it")

    async def watched(self) -> list[Feed]:
        return await self.book.list(WATCH)

    async def remove_watch(self, number: int) -> Feed:
        """By its number in `watch list` (1, 2, ...)."""
        watched = await self.watched()
        if not 1 <= number <= len(watched):
            raise UserFacingError(f"there is no watched path {number}",
                                  hint="`biographer watch list` shows them with their numbers")
        await self.book.remove(watched[number - 1])
        return watched[number - 1]

    async def watch_pass(self) -> list[FeedRun]:
        """Read what changed or is due among the watched paths (the scheduler calls this every minute)."""
        return await self.watcher.run_pass()

    async def on_change_paths(self) -> list[Path]:
        """The watched paths read on change (not on a schedule), for file-system events to wake the pass."""
        return [Path(f.config["path"]) for f in await self.watched() if not f.config.get("every")]

    # ------------------------------------------------------------ everything

    async def all(self) -> list[Feed]:
        """Every feed with when it last ran and how it went (for `doctor`)."""
        return await self.book.list()

    async def feeds_of(self, source_ids: Sequence[int]) -> dict[int, Feed]:
        """The feed that brought each of these sources, for those a feed brought."""
        return await self.book.feeds_of(list(source_ids))


def mail_account_of(feed: Feed) -> MailAccount:
    return MailAccount.from_config(feed.config)


__all__ = ["Feeds", "Feed", "FeedRun", "MailAccount", "mail_account_of"]
