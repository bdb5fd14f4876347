"""Numbered, append-only schema migrations, each recorded in `_migrations` when applied.

Never edit an applied migration, and never renumber one (stores in the field recorded it by its
number): add a new one. Migrations live in the modules of storage/schema/, one per part of the
product, found and imported automatically, and run in the order of their numbers. The numbers
up to 171 were once claimed in ranges per part of the product; a new migration simply takes the
next number after the highest (tests/core/test_store.py holds the list, so a gap or a number
below the highest shows up in review).
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


async def run_statements(conn: Store, statements: list[str]) -> None:
    """Execute DDL one statement at a time (executescript would commit the migration's transaction)."""
    for statement in statements:
        await conn.execute(statement)


def _load_schema_modules() -> None:
    """Import every module of storage/schema/ so its migrations register themselves: a part of the
    product adds its schema module without editing a shared list."""
    import importlib
    import pkgutil

    from storage import schema

    for module in pkgutil.iter_modules(schema.__path__):
        importlib.import_module(f"storage.schema.{module.name}")


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
