"""The `biographer` command: global options, the subcommands (each defined next to its feature),
and one place that turns errors into a line that says what to do."""

from __future__ import annotations

import argparse
import os
import sys
import types
from importlib import import_module
from pathlib import Path

# in the order `--help` lists their commands; a command imports them only up to its own
SUBCOMMAND_MODULES = ("cli_memory", "cli_backup", "cli_encrypt", "cli_agent", "cli_people", "cli_ledger",
                      "cli_pictures", "cli_run", "cli_server", "cli_doctor", "cli_policy", "cli_mail", "cli_watch")


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("biographer")
    except PackageNotFoundError:
        return "unknown (not installed)"


class VersionAction(argparse.Action):
    """--version, looked up only when asked for: importlib.metadata costs every other command
    some 15-40 ms of start-up (bench/startup.py)."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit", **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"biographer {version()}")  # on stdout, as argparse's own version action
        parser.exit()


def global_options(*, top: bool) -> argparse.ArgumentParser:
    """--data-dir and -v, accepted before the subcommand and after it."""
    parser = argparse.ArgumentParser(add_help=False)
    default = None if top else argparse.SUPPRESS
    parser.add_argument("--data-dir", type=Path, default=default, metavar="DIR",
                        help="where the store lives (env BIOGRAPHER_DATA_DIR; default: your user data folder, "
                             "see `biographer doctor`)")
    parser.add_argument("-v", "--verbose", action="store_true", default=False if top else argparse.SUPPRESS,
                        help="log details to stderr (secrets masked)")
    return parser


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every subcommand; with `command`, only those registered up to its own module, and only
    those modules imported (grep, read, stats and search: 4-5 ms instead of 28-31 ms to parse):
    what the command parses and prints is the same."""
    parser = argparse.ArgumentParser(
        prog="biographer", parents=[global_options(top=True)],
        description="Your life's sources in one local store: searchable offline, explained by your biographer.",
        epilog="`biographer COMMAND --help` describes each command, with an example.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    after = global_options(top=False)
    for name in SUBCOMMAND_MODULES:
        import_module(f"bot.{name}").register(sub, after)
        if command is not None and command in sub.choices:
            break
    return parser


def command_named(argv: list[str]) -> str | None:
    """The subcommand argv names, where nothing before it but the global options could change how
    the top level parses (`-h` there lists every command): else None, and the whole parser is made."""
    at = 0
    while at < len(argv):
        word = argv[at]
        if word in ("-v", "--verbose") or word.startswith("--data-dir="):
            at += 1
        elif word == "--data-dir":
            at += 2
        else:
            return None if word.startswith("-") else word
    return None


def _load_settings(args: argparse.Namespace):
    """Settings from the environment, `.env` in this folder and in the user config folder, and the
    command line. A bad value is one line naming the setting."""
    from pydantic import ValidationError

    from core.config import Settings, env_files
    from core.errors import UserFacingError

    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    try:
        return Settings(_env_file=env_files(), **overrides)
    except ValidationError as error:
        first = error.errors()[0]
        name = "BIOGRAPHER_" + str(first["loc"][0]).upper() if first.get("loc") else "a setting"
        raise UserFacingError(f"{name} is not valid: {first['msg']}",
                              hint="fix it in the environment or .env (see .env.example)") from None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Biographer uses no pydantic plugins, and looking for them reads every installed package's
    # entry points when the first model class is made (10-30 ms of every command); the owner's
    # own setting of it wins
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    args = build_parser(command_named(argv)).parse_args(argv)
    args.argv = argv
    from bot.logs import configure_logging
    from core.errors import UserFacingError

    configure_logging(verbose=args.verbose)
    try:
        settings = _load_settings(args)
        configure_logging(verbose=args.verbose, secrets=settings.secret_values())
        result = args.handler(args, settings)
        if not isinstance(result, types.CoroutineType):
            return int(result)
        import asyncio  # here, not at the top: `--help` and a bad argument never start a loop

        return asyncio.run(result)
    except UserFacingError as error:
        print(f"error: {error.message}" + (f"\n  → {error.hint}" if error.hint else ""), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: everything saved so far is kept; run the same command again to resume",
              file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`biographer stats | head`): not an error; keep Python quiet at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
