"""The layering holds: front ends (bot/) go through their own facet of the service only; the core
knows no platform."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def attribute_uses(path: Path, attribute: str) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == attribute]


def test_front_ends_never_import_storage_or_touch_a_connection():
    offenders = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        bad = {m for m in imported_modules(path) if m.split(".")[0] in {"storage", "aiosqlite", "sqlean", "sqlite3"}}
        uses = attribute_uses(path, "conn")
        if bad or uses:
            offenders[str(path.relative_to(ROOT))] = (sorted(bad), uses)
    assert offenders == {}


def own_facet(path: Path) -> str:
    """The one facet of core/service a front-end module may import."""
    relative = path.relative_to(ROOT / "bot")
    if relative.parts[0] == "server":
        return "core.service.serving"
    if relative.name.startswith("cli"):
        return "core.service.admin"
    if relative.name == "scheduler.py":
        return "core.service.schedule"
    return "core.service.chat"  # the chat commands, their adapters and what they render


def test_each_front_end_imports_only_its_own_facet():
    """The server gets the serving facet, the CLI the admin one, the scheduler its own, the bots
    the chat one; only the composition root (bot/compose.py) knows them all and their parts."""
    offenders = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        if path == ROOT / "bot" / "compose.py":
            continue
        bad = {m for m in imported_modules(path)
               if (m == "core.service" or m.startswith("core.service.")) and m != own_facet(path)}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_core_and_storage_know_no_platform_or_front_end():
    offenders = {}
    for folder in ("core", "storage"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            bad = {m for m in imported_modules(path)
                   if m.split(".")[0] in {"bot", "telegram", "discord", "starlette", "uvicorn", "mcp"}}
            if bad:
                offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_storage_never_imports_the_core_beyond_its_error_vocabulary():
    offenders = {}
    for path in sorted((ROOT / "storage").rglob("*.py")):
        bad = {m for m in imported_modules(path) if m.split(".")[0] == "core" and m != "core.errors"}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


SQL_WORDS = re.compile(r"\.execute(many)?\(|\b(SELECT|INSERT INTO|DELETE FROM|MATCH)\b ")


def test_the_store_s_sql_and_its_fts5_syntax_live_in_storage_only():
    """The core asks storage; only importers, which read other programs' databases (chat.db,
    ChatStorage.sqlite), hold SQL of their own."""
    offenders = {}
    for path in sorted((ROOT / "core").rglob("*.py")):
        if "importers" in path.parts:
            continue
        lines = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if SQL_WORDS.search(line) and not line.lstrip().startswith("#")]
        if lines:
            offenders[str(path.relative_to(ROOT))] = lines
    assert offenders == {}


def test_every_tool_schema_has_a_handler_and_every_handler_a_schema():
    from core.agent.schemas import SCHEMAS
    from core.agent.tools import Toolbox

    toolbox = Toolbox.__new__(Toolbox)
    Toolbox.__init__(toolbox, memory=type("M", (), {"conn": None})(), book=None, zone=None, remember=None)
    assert set(toolbox.tools) == set(SCHEMAS)


def test_every_importer_declares_its_capabilities():
    from core.importers.base import ImporterBase
    from core.importers.registry import default_importers

    importers = default_importers()
    assert all(isinstance(i, ImporterBase) for i in importers), [type(i).__name__ for i in importers]
    readers = {type(i).__name__ for i in importers if i.reads_media_beside}
    assert readers == {"WhatsAppImporter", "TelegramImporter", "TelegramHtmlImporter"}


# Which of core's packages each may import, lowest first. The shared vocabulary (core's top-level
# modules: types, ports, errors, config, times, dates, files) may be imported by all and imports
# none of the packages. The agent, the biographer's runs and the ledger are one room in three
# parts (the tool loop, what it keeps, what it extracts), so they may import one another.
SHARED = "core"
ALLOWED_CORE_IMPORTS: dict[str, set[str]] = {
    SHARED: set(),
    "core.importers": set(),
    "core.providers": set(),
    "core.privacy": set(),
    "core.memory": {"core.importers", "core.providers", "core.privacy"},
    "core.chat": {"core.memory"},
    "core.serving": {"core.memory", "core.privacy"},
    "core.agent": {"core.memory", "core.privacy", "core.biographer", "core.ledger"},
    "core.biographer": {"core.memory", "core.privacy", "core.agent", "core.ledger"},
    "core.ledger": {"core.memory", "core.importers", "core.agent", "core.biographer"},
    "core.pictures": {"core.memory", "core.biographer"},
    # the jobs are the scheduler's side of its facet (core/service/schedule.py), typed by it
    "core.schedule": {"core.memory", "core.biographer", "core.ledger", "core.pictures", "core.chat", "core.feeds",
                      "core.service"},
    "core.feeds": {"core.memory", "core.importers"},
}


def core_package(module: str) -> str | None:
    """The package of core a module belongs to ('core' for the shared vocabulary), or None."""
    parts = module.split(".")
    if parts[0] != "core":
        return None
    if len(parts) > 1 and (ROOT / "core" / parts[1]).is_dir():
        return f"core.{parts[1]}"
    return SHARED


def test_core_s_packages_import_only_downwards():
    """A newcomer can trust the map: e.g. memory never reaches up into the biographer or serving.
    The service facets (core/service*) compose everything and are left out."""
    offenders = {}
    for path in sorted((ROOT / "core").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if module.startswith("core.service"):
            continue
        mine = core_package(module)
        assert mine in ALLOWED_CORE_IMPORTS, f"{mine} is a new package of core: give it a row above"
        bad = {core_package(m) for m in imported_modules(path)
               if core_package(m) not in (None, SHARED, mine, *ALLOWED_CORE_IMPORTS[mine])}
        if bad:
            offenders[module] = sorted(bad)
    assert offenders == {}


def test_every_package_says_what_it_holds_and_what_it_may_import():
    missing = []
    for init in sorted([*(ROOT / "core").glob("*/__init__.py"), *(ROOT / "storage").glob("*/__init__.py")]):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        if not doc:
            missing.append(str(init.relative_to(ROOT)))
    assert missing == []
