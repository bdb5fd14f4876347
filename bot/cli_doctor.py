"""`biographer doctor`: where the data is, which settings are in effect (secrets masked), and whether
the model, the bots and the scheduler are ready, with what runs next."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli_args import add_json_option, print_json
from core.words import counted

if TYPE_CHECKING:
    from datetime import datetime

    from core.config import Settings
    from core.types import Answer


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    p = sub.add_parser("doctor", parents=[parent], help="where your data is and what is set up",
                       description="Show the data folder's full path, the settings in effect (secrets masked), "
                                   "and whether the model, the bots and the scheduler are ready.",
                       epilog="example:\n  biographer doctor", formatter_class=argparse.RawDescriptionHelpFormatter)
    add_json_option(p, "the report")
    p.set_defaults(handler=cmd_doctor)


def effective_settings(settings: Settings) -> dict[str, Any]:
    """Every setting as BIOGRAPHER_NAME -> value, secrets shown only as set or not."""
    from pydantic import SecretStr

    shown: dict[str, Any] = {}
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            value = "*** (set)"
        elif value is None:
            value = "(not set)"
        elif isinstance(value, Path):
            value = str(value.resolve())
        shown[f"BIOGRAPHER_{name.upper()}"] = value
    return shown


def model_status(settings: Settings) -> str:
    from bot.compose import is_local_url

    where = f"{settings.llm_model} at {settings.llm_base_url}"
    if settings.llm_api_key is None and not is_local_url(settings.llm_base_url):
        return f"{where}: no API key, so nothing is sent; set BIOGRAPHER_LLM_API_KEY (or a local Ollama URL)"
    window = f"context window {settings.llm_context:,} tokens"
    if settings.llm_is_local:
        return f"{where}: local endpoint (nothing leaves the machine), {window}, timeout {settings.llm_timeout:.0f} s"
    return f"{where}: API key set, {window}"


def disclosure_status(settings: Settings, counts: dict[str, int]) -> str:
    """What may leave the machine: where the models are, and the sources under each policy."""
    held = ", ".join(f"{n} {policy}" for policy, n in sorted(counts.items()) if policy != "allow")
    leaving = [name for name, remote in (("embeddings", settings.embedding_is_remote),
                                         ("the chat model", settings.llm_is_remote and settings.llm_api_key is not None)) if remote]
    where = (f"{' and '.join(leaving)} remote, so the policies apply" if leaving
             else "every model is on this machine: nothing leaves, the policies wait")
    return f"{where}; sources: {held or 'all allowed'} (`biographer policy`)"


def multilingual_status(settings: Settings, space: Any) -> str:
    """One line on the multilingual space (core/memory/multilingual.py): off, not needed, or on
    and how far it is filled."""
    if space is None:
        why = ("BIOGRAPHER_MULTILINGUAL_VECTORS=off" if settings.multilingual_vectors == "off"
               else "the store is embedded by a server")
        return f"off ({why})"
    if not space.on:
        return f"not needed ({space.why_off})"
    from bot.cli_memory import FILL_HINT, UNREAD_HINT

    waiting = f", {space.waiting:,} waiting: {FILL_HINT}" if space.waiting else ""
    unread = (f", {space.unread:,} too short to tell a language not yet read in context: {UNREAD_HINT}"
              if space.unread else "")
    return f"on ({counted(space.held, 'passage')}{waiting}{unread}). {space.note}"


def translation_status(settings: Settings, coverage: tuple[list[str], list[str]] | None) -> str:
    """One line on query translation (core/memory/translation.py): off, not needed, or which of
    the store's languages are covered, and how to cover the rest."""
    from core.memory.freedict import ISO_639_1
    from core.memory.translation import language_names as named

    if coverage is None:
        return "off (BIOGRAPHER_DICTIONARY_DIRS=off)"
    covered, missing = coverage
    if not covered and not missing:
        return "not needed (no language but English holds 5% of the store)"
    parts = [f"{named(covered)}: an English question's words are also looked for translated"] if covered else []
    if missing:
        codes = {two: three for three, two in ISO_639_1.items()}
        packages = " ".join(f"dict-freedict-eng-{codes[m]} dict-freedict-{codes[m]}-eng" for m in missing if m in codes)
        folders = ", ".join(str(folder) for folder in settings.dictionary_folders)
        parts.append(f"{named(missing)}: no dictionary in {folders}"
                     + (f" (`apt install {packages}`, or FreeDict's dictd files from freedict.org there)"
                        if packages else ""))
    return "; ".join(parts)


def model_cache_status() -> str:
    """Where the embedding model's optimised copies are kept, and whether they can be: a cache
    that cannot be written (a container's home owned by another user, a read-only mount) costs
    every start the optimisation, which no command warns of."""
    from core.providers.onnx_rewrite import default_cache, writable_cache

    cache = default_cache()
    if writable_cache(cache):
        return f"{cache} (writable)"
    return (f"{cache} is NOT WRITABLE: every start optimises the embedding model again (0.3-0.5 s) and "
            "runs it unfused (slower imports); set XDG_CACHE_HOME to a folder you can write")


async def doctor_report(settings: Settings) -> dict[str, Any]:
    from bot.cli import version
    from bot.cli_agent import render_analysis
    from bot.cli_encrypt import encryption_status
    from bot.compose import open_facets
    from bot.scheduler import build_runner
    from core.config import env_files
    from core.biographer.gate import AgentGate

    data_dir = settings.data_dir.resolve()
    report: dict[str, Any] = {
        "version": version(),
        "data_dir": str(data_dir),
        "store": str(settings.database_path.resolve()),
        "encryption": encryption_status(settings),
        "env_files": {str(p.resolve()): p.is_file() for p in env_files()},
        "model": model_status(settings),
        "embeddings": f"{settings.embedding_backend}: {settings.embedding_model}",
        **({"model_cache": model_cache_status()} if settings.embedding_backend == "local" else {}),
        "telegram": ("configured" + (f", owner ids {', '.join(settings.telegram_owner_ids)}"
                                     if settings.telegram_owner_ids else ", NO OWNER: it refuses everyone")
                     + (f", webhook {settings.telegram_webhook_url}" if settings.telegram_webhook_url else ", polling"))
        if settings.telegram_token else "not configured (BIOGRAPHER_TELEGRAM_TOKEN)",
        "discord": ("configured" + (f", owner ids {', '.join(settings.discord_owner_ids)}"
                                    if settings.discord_owner_ids else ", NO OWNER: it refuses everyone"))
        if settings.discord_token else "not configured (BIOGRAPHER_DISCORD_TOKEN)",
    }
    if not settings.database_path.exists():
        report["stats"] = "no store yet: `biographer ingest PATH` creates it"
    else:
        async with open_facets(settings, with_model=False) as facets:
            service = facets.admin
            stats = await service.stats()
            report["stats"] = {k: stats[k] for k in ("documents", "chunks", "chunks_pending_index", "messages",
                                                    "embedding_model")}
            counts = await service.disclosure.counts()
            report["disclosure"] = disclosure_status(settings, counts)
            advice = await service.memory.embedding_advice()
            report["languages"] = advice.mix.describe()
            report["embedding_advice"] = advice.note
            space = await service.memory.multilingual_state()
            report["multilingual_vectors"] = multilingual_status(settings, space)
            report["translation"] = translation_status(settings, await service.memory.translation_coverage())
            status = await service.biographer.analysis_status()
            report["analysis"] = {"pending": status.pending, "last_unread": status.last_unread, "note": status.note}
            report["analysis_text"] = render_analysis(status)
            report["feeds"] = [feed_status(f) for f in await service.feeds.all()] if service.feeds else []
            report["live"] = [{"chat": c.name, "messages": c.messages, "state": c.state}
                              for c in await service.live.chats()] if service.live else []
            if settings.scheduler_enabled:
                runner = build_runner(settings, facets.schedule, AgentGate(), _Silent())
                upcoming = await runner.upcoming()
                report["scheduler"] = {job: at.isoformat(timespec="minutes") if at else None
                                       for job, at in upcoming.items()}
                report["paused"] = (await service.preferences.load()).paused
    if not settings.scheduler_enabled:
        report["scheduler"] = "off (BIOGRAPHER_SCHEDULER_ENABLED=false)"
    report["settings"] = effective_settings(settings)
    return report


def feed_status(feed: Any) -> dict[str, Any]:
    """A mail account or watched path: what it reads, when it last ran, how that went."""
    if feed.last_run_at is None:
        outcome = "not read yet"
    elif feed.last_error:
        outcome = f"last read {feed.last_run_at}, FAILED: {feed.last_error}"
    else:
        outcome = f"last read {feed.last_run_at}, {feed.last_added} new messages"
    what = (f"{feed.config['user']} at {feed.config['host']}:{feed.config['port']}" if feed.kind == "mail"
            else f"every {feed.config['every']}" if feed.config.get("every") else "on change")
    return {"kind": feed.kind, "name": feed.name, "last_run_at": feed.last_run_at, "last_added": feed.last_added,
            "last_error": feed.last_error, "text": f"{what} · {outcome}"}


class _Silent:
    """A Notifier for computing the schedule: doctor sends nothing."""

    async def send_text(self, text: str) -> None: ...

    async def send_answer(self, answer: Answer) -> None: ...

    async def send_picture(self, png: bytes, caption: str, *, name: str = "picture.png") -> None: ...

    async def send_question(self, question_id: str, text: str, *, sent_at: datetime) -> None: ...


async def cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    report = await doctor_report(settings)
    if args.json:
        report.pop("analysis_text", None)
        print_json(report)
        return 0
    print(f"biographer {report['version']}")
    print(f"data folder: {report['data_dir']}")
    print(f"store:       {report['store']}")
    print(f"encryption:  {report['encryption']}")
    print("settings from: the environment, then " + ", then ".join(  # env_files lists the weakest first
        f"{path} ({'found' if found else 'none'})" for path, found in reversed(report["env_files"].items())))
    stats = report["stats"]
    if isinstance(stats, dict):
        print(f"memory:      {counted(stats['documents'], 'source')}, {counted(stats['chunks'], 'passage')} "
              f"({stats['chunks_pending_index']:,} waiting for embeddings), {counted(stats['messages'], 'message')}")
    else:
        print(f"memory:      {stats}")
    print(f"chat model:  {report['model']}")
    if "analysis_text" in report:
        print(report.pop("analysis_text"))
    print(f"embeddings:  {report['embeddings']}"
          + (f" (this store: {stats['embedding_model']})" if isinstance(stats, dict) and stats["embedding_model"] else ""))
    if "model_cache" in report:
        print(f"model cache: {report['model_cache']}")
    if "languages" in report:
        print(f"languages:   {report['languages']}")
    if report.get("embedding_advice"):
        print(f"  {report['embedding_advice']}")
    if "multilingual_vectors" in report:
        print(f"multilingual: {report['multilingual_vectors']}")
    if "translation" in report:
        print(f"translation: {report['translation']}")
    if "disclosure" in report:
        print(f"disclosure:  {report['disclosure']}")
    if report.get("feeds"):
        print("kept current:")
        for feed in report["feeds"]:
            print(f"  {feed['kind']} {feed['name']}: {feed['text']}")
    print(f"telegram:    {report['telegram']}")
    for chat in report.get("live", []):
        print(f"  live: {chat['chat']} · {counted(chat['messages'], 'message')} · {chat['state']}")
    print(f"discord:     {report['discord']}")
    scheduler = report.get("scheduler")
    if isinstance(scheduler, dict):
        paused = " (paused: /resume to restart)" if report.get("paused") else ""
        print(f"scheduler:   next runs{paused}, owner's time zone:")
        for job, at in scheduler.items():
            print(f"  {job:<17} {at or 'not scheduled'}")
    elif scheduler:
        print(f"scheduler:   {scheduler}")
    print("settings in effect:")
    for name, value in report["settings"].items():
        print(f"  {name}={value}")
    return 0
