"""Numbered, append-only schema migrations, each recorded in `_migrations` when applied.

Never edit an applied migration: add a new one. Migrations live in storage/schema*.py modules,
which are found and imported automatically. Numbers are claimed per area so parallel work
does not collide: 1-9 memory core, 10-19 importers/people, 20-29 biographer/profile,
30-39 front ends/scheduler, 60-69 security and reliability (160-169 when it must follow the
later areas' migrations).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.db import Store


Migration = Callable[["Store"], Awaitable[None]]
MIGRATIONS: dict[int, Migration] = {}


def migration(number: int) -> Callable[[Migration], Migration]:
    def register(fn: Migration) -> Migration:
        if number in MIGRATIONS:
            raise RuntimeError(f"migration {number} defined twice")
        MIGRATIONS[number] = fn
        return fn

    return register


def _load_schema_modules() -> None:
    """Import every storage/schema*.py so its migrations register themselves: a feature adds
    its schema module without editing a shared list."""
    import importlib
    import pkgutil

    import storage

    for module in pkgutil.iter_modules(storage.__path__):
        if module.name.startswith("schema"):
            importlib.import_module(f"storage.{module.name}")


async def apply_migrations(conn: Store) -> None:
    _load_schema_modules()
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
    )
    async with conn.execute("SELECT number FROM _migrations") as cur:
        applied = {row[0] for row in await cur.fetchall()}
    for number in sorted(MIGRATIONS):
        if number in applied:
            continue
        fn = MIGRATIONS[number]
        await conn.execute("BEGIN IMMEDIATE")
        try:
            await fn(conn)
            await conn.execute(
                "INSERT INTO _migrations (number, name) VALUES (?, ?)", (number, fn.__name__)
            )
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
        await conn.execute("COMMIT")
