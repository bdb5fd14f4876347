"""Every example under `biographer COMMAND --help` works on the examples/ folder a newcomer has: run
as written (in a folder holding examples/, with its own HOME), each gives a result that is not empty.

The examples of each help page run in their order against a fresh copy of one store built from
examples/ (as the README's first command builds it). The few that cannot run here are named below
with the reason, and what they need is tested elsewhere."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shlex
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from bot.cli import build_parser, main
from bot.cli_args import cli_facets
from core.config import Settings

ROOT = Path(__file__).resolve().parents[2]
# examples whose command asks the model: with none configured (as here) each must say so at once,
# in one line and a hint; tests/agent and tests/ledger run them against a scripted model server
NEEDS_MODEL = {"ask", "chat", "answer", "report", "analyze", "consolidate", "ledger extract"}
NOT_RUN_HERE = {
    "biographer run": "serves until stopped (tests/frontends/test_voice_and_run.py runs it)",
    "biographer serve": "serves until stopped (tests/server/test_docker_command_line.py runs it)",
    "biographer mail sync work": "reads an IMAP server (tests/feeds/test_mail_cli.py syncs from a real Dovecot)",
}
OWNER = "Ana"  # the examples' owner, as the README's quick start sets her
KEY = "a long passphrase"  # the store key encrypt's example sets


Parsers = Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Parsers:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:  # an alias names the same parser twice
                    seen.add(id(sub))
                    yield from _parsers(sub, (*path, name))


def _examples(epilog: str | None) -> list[str]:
    """The command lines of a help page's examples: comments (after two spaces) cut, `a ; b` split."""
    lines = []
    for line in (epilog or "").splitlines():
        line = re.split(r"\s{2,}", line.strip())[0]
        lines += [part.strip() for part in line.split(" ; ") if "biographer " in part]
    return lines


def help_examples() -> dict[str, list[str]]:
    """Each command's examples, its subcommands' after its own, each line once: a family runs in
    one store, in the order its help pages show them (`ledger add` before `ledger done 1`)."""
    families: dict[str, list[str]] = {}
    for path, parser in _parsers(build_parser()):
        if path:
            lines = families.setdefault(path[0], [])
            lines += [line for line in _examples(parser.epilog) if line not in lines]
    return {name: lines for name, lines in families.items() if lines}


async def _given(family: str, settings: Settings) -> None:
    """What an example names and the examples/ store cannot hold by itself: a backup by the name
    restore's example gives, an agent's save for saves', the encrypted store decrypt's reads."""
    from core.serving.saves import SaveRequest

    async with cli_facets(settings, model=False) as facets:
        if family == "restore":
            await facets.admin.backup(settings.backup_dir, stamp=datetime(2024, 5, 1, 4, 0), keep=3)
        if family == "saves":
            issued = await facets.admin.clients.add("cursor", operations=("search", "save"))
            agent = await facets.serving.clients.authenticate(f"Bearer {issued.token}")
            await facets.serving.saves.save(agent, SaveRequest(
                text="Maya recommends Dr. Sousa for the knee", kind="recommendation", person="Maya",
                source="told to Cursor", date="2024-03-05"), idempotency_key=None)


def test_what_is_not_run_here_is_still_an_example():
    every = {line for lines in help_examples().values() for line in lines}
    assert set(NOT_RUN_HERE) <= every
    assert {"biographer ingest \"examples/WhatsApp Chat with Maya.txt\" examples/journal/",
            "biographer grep knee --person Maya --oldest-first"} <= every  # the first two a newcomer tries


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A store built from examples/ by the README's first command."""
    data = tmp_path_factory.mktemp("examples-store") / "data"
    folder = data.parent / "work"
    shutil.copytree(ROOT / "examples", folder / "examples")
    env = {"BIOGRAPHER_DATA_DIR": str(data), "BIOGRAPHER_OWNER_ALIASES": OWNER}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        patch.chdir(folder)
        assert main(["ingest", "examples/"]) == 0
    return data


def _argv(line: str) -> tuple[dict[str, str], list[str]]:
    words = shlex.split(line)
    env = {}
    while "=" in words[0] and words[0] != "biographer":
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert words[0] == "biographer", line
    return env, [os.path.expanduser(w) if w.startswith("~") else w for w in words[1:]]


@pytest.mark.parametrize(("family", "lines"), help_examples().items(), ids=lambda v: v if isinstance(v, str) else "")
def test_each_help_example_gives_a_result_on_the_examples_folder(family, lines, built, tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    shutil.copytree(built, data)
    folder, home = tmp_path / "work", tmp_path / "home"
    shutil.copytree(ROOT / "examples", folder / "examples")
    home.mkdir()
    monkeypatch.chdir(folder)
    for name, value in {"BIOGRAPHER_DATA_DIR": str(data), "BIOGRAPHER_OWNER_ALIASES": OWNER, "HOME": str(home),
                        "WORK_MAIL_PASSWORD": "not used here", "BIOGRAPHER_STORE_KEY": KEY}.items():
        monkeypatch.setenv(name, value)
    if family == "decrypt":  # its example reads the key from where encrypt's put it
        assert main(["encrypt"]) == 0
    asyncio.run(_given(family, Settings()))
    for line in lines:
        if line in NOT_RUN_HERE:
            continue
        env, argv = _argv(line)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        capsys.readouterr()
        code = main(argv)
        out, err = capsys.readouterr()
        if family in NEEDS_MODEL or " ".join(argv[:2]) in NEEDS_MODEL:  # at once, one line and a hint
            assert code == 2 and err.startswith("error: ") and err.count("\n") == 2 and "\n  → " in err, line
            continue
        assert code == 0, f"{line}: {err}"
        assert out.strip() and out.strip() not in ("[]", "{}"), f"{line} printed nothing\n{err}"
