"""`biographer serve` (the memory server: REST and MCP for the owner's other agents) and
`biographer clients add | list | revoke` (their bearer tokens), `biographer saves list | delete`
(what they saved)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bot.cli_args import cli_facets, cli_service, count, print_json
from core.words import counted

if TYPE_CHECKING:
    from core.serving.clients import ClientInfo
    from core.config import Settings

_FORMAT = argparse.RawDescriptionHelpFormatter


async def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Serve until Ctrl-C or SIGTERM."""
    import asyncio
    import signal

    from bot.server.run import DEFAULT_PORT, serving

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    port = args.port if args.port is not None else (settings.api_port or DEFAULT_PORT)
    # with the model (when one is configured): answers to open questions on the page need it
    async with cli_facets(settings, model=True) as facets:
        service = facets.serving
        await service.memory.warm_up(vector_memory_mb=settings.search_vector_memory_mb)
        async with serving(service, settings, host=args.host or settings.api_host, port=port) as url:
            clients = await service.clients.list()
            print(f"memory server on {url}: REST {url}/v1, MCP {url}/mcp, OpenAPI {url}/openapi.json", flush=True)
            print(f"your page: {url}/ (log in with a token from `biographer clients add NAME --web`)", flush=True)
            if settings.public_url:
                print(f"remote connectors (Claude.ai, ChatGPT): {settings.public_url.rstrip('/')}/mcp, signing in "
                      "with OAuth; you allow each one on your page", flush=True)
            if not clients:
                print("no client may use it yet: `biographer clients add NAME --allow search,read,list,save` "
                      "for an agent, `biographer clients add me --web` for your page", flush=True)
            await stop.wait()
    return 0


async def cmd_clients(args: argparse.Namespace, settings: Settings) -> int:
    """Add, list or revoke the clients that may use the memory server."""
    from core.serving.clients import parse_operations, parse_sections
    from core.errors import UserFacingError

    async with cli_service(settings, model=False) as service:
        if args.clients_action == "add":
            if args.web and (args.allow or args.sections):
                raise UserFacingError("a page login (--web) opens the whole page: it takes no --allow or --sections",
                                      hint="give agents their own client: biographer clients add NAME --allow OPS")
            if not args.web and not args.allow:
                raise UserFacingError("say what the client is for: --allow OPS (an agent) or --web (your page)",
                                      hint="e.g. biographer clients add cursor --allow search,read "
                                           "or biographer clients add me --web")
            issued = await service.clients.add(args.name, page=True) if args.web else await service.clients.add(
                args.name, operations=parse_operations(args.allow), sections=parse_sections(args.sections))
            if args.json:
                print_json({"name": issued.client.name, "token": issued.token})
                return 0
            info = issued.client
            print(f"{_may(info)}.\nIts token (shown once; only a digest is kept):\n\n  {issued.token}\n")
            if args.web:
                from bot.server.run import DEFAULT_PORT, local_url

                print(f"Start the server (biographer serve), open "
                      f"{local_url(settings.api_host, settings.api_port or DEFAULT_PORT)}/ and paste the token there.")
            return 0
        if args.clients_action == "revoke":
            await service.clients.revoke(args.name)
            print(f"revoked {args.name!r}: its token no longer works")
            return 0
        clients = await service.clients.list(include_revoked=args.all)
    if args.json:
        print_json([c.to_json() for c in clients])
        return 0
    if not clients:
        print("no clients yet: `biographer clients add NAME --allow search,read,list,save`")
    for c in clients:
        state = f"revoked {c.revoked_at}" if c.revoked_at else f"since {c.created_at}"
        print(f"{_may(c)}  ({state})")
    return 0


async def cmd_saves(args: argparse.Namespace, settings: Settings) -> int:
    """List or delete what agents saved."""
    from core.errors import UserFacingError
    from core.serving.clients import OWNER

    async with cli_service(settings, model=False) as service:
        if args.saves_action == "delete":
            deleted = await service.save_shelf.delete(OWNER, args.id)
            print(f"deleted record {deleted.record}: {counted(deleted.versions, 'version')} forgotten, "
                  "backups included")
            return 0
        records = await service.save_shelf.list(client=args.client)
        if args.client and not records:  # a misspelt name is not "no saves"
            names = [c.name for c in await service.clients.list(include_revoked=True)]
            if args.client not in names:
                raise UserFacingError(f"no client named {args.client!r}",
                                      hint="clients: " + (", ".join(names) or "none yet (biographer clients add)"))
    if args.json:
        print_json([{"record": v.record_id, "client": v.client, "section": v.section, "kind": v.kind,
                     "version": v.version, "saved_at": v.saved_at, "locator": f"doc{v.document_id}:0-{v.text_length}"}
                    for v in records])
        return 0
    if not records:
        print("no saves" + (f" by client {args.client!r}" if args.client else ""))
    for v in records:
        print(f"#{v.record_id}  {v.kind} in {v.section} by {v.client}, version {v.version}, {v.saved_at}  "
              f"(read it: biographer read doc{v.document_id})")
    return 0


def _may(info: ClientInfo) -> str:
    from core.serving.clients import PAGE

    if PAGE in info.operations:
        return f"client {info.name!r} opens the local web page (everything the owner sees and does there)"
    via = f", granted over OAuth to app {info.oauth_app}" if info.oauth_app else ""
    return (f"client {info.name!r} may {', '.join(info.operations)} in "
            f"{', '.join(info.sections) if info.sections else 'every section'}{via}")


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    serve = sub.add_parser(
        "serve", parents=[parent], formatter_class=_FORMAT,
        help="serve your memory to your other agents (REST, MCP) and your local web page",
        description="Serve the memory over HTTP to the owner's other agents: REST under /v1 (OpenAPI at "
                    "/openapi.json) and MCP (Streamable HTTP) at /mcp, for clients with a token from `biographer "
                    "clients add`; and the owner's web page at / (log in with a token from `biographer clients add "
                    "NAME --web`). Listens on localhost unless told otherwise; see the README for HTTPS.",
        epilog="examples:\n  biographer clients add claude-desktop --allow search,read,list,save\n"
               "  biographer clients add me --web\n  biographer serve")
    serve.add_argument("--host", help="address to listen on (default: BIOGRAPHER_API_HOST, else 127.0.0.1; "
                                      "0.0.0.0 exposes it to your network: put HTTPS in front)")
    serve.add_argument("--port", type=count(0, 65535),
                       help="port to listen on (default: BIOGRAPHER_API_PORT, else 8765; 0 picks a free one)")
    serve.set_defaults(handler=cmd_serve)

    clients = sub.add_parser(
        "clients", parents=[parent], formatter_class=_FORMAT, help="tokens for the memory server's clients",
        description="The agents that may use the memory server, each with its own revocable bearer token.",
        epilog="examples:\n  biographer clients add cursor --allow search,read --sections chats,notes\n"
               "  biographer clients add me --web\n"
               "  biographer clients add claude-desktop --allow search,read,list,save --json\n"
               "  biographer clients list\n  biographer clients revoke cursor")
    actions = clients.add_subparsers(dest="clients_action", metavar="ACTION",
                                     help="add, list or revoke (default: list)")
    add = actions.add_parser("add", parents=[parent], formatter_class=_FORMAT,
                             help="a new client and its token (printed once)",
                             epilog="examples:\n  biographer clients add cursor --allow search,read,list,save\n"
                                    "  biographer clients add me --web")
    add.add_argument("name", help="the client's name, e.g. claude-desktop (one live client per name)")
    add.add_argument("--allow", action="append", default=[], metavar="OPS",
                     help="what an agent may do: any of search,read,list,save,delete (delete: its own saves; "
                          "comma-separated); "
                          "give this or --web")
    add.add_argument("--sections", action="append", default=[], metavar="SECTIONS",
                     help="only these sections (comma-separated): chats, email, ai-chats, meetings, calendar, "
                          "documents, journal, biographer, other, or a section agents save into such as notes "
                          "(default: every section)")
    add.add_argument("--web", action="store_true",
                     help="a login for your local web page instead of an agent's token: it opens the page "
                          "(everything you see and do there) and no API (default: off)")
    add.add_argument("--json", action="store_true", help='print {"name": ..., "token": ...}')
    revoke = actions.add_parser("revoke", parents=[parent], formatter_class=_FORMAT,
                                help="stop a client's token working, at once",
                                epilog="example:\n  biographer clients revoke cursor")
    revoke.add_argument("name", help="the client's name, as `biographer clients list` shows it")
    listing = actions.add_parser("list", parents=[parent], formatter_class=_FORMAT, help="the clients (never tokens)",
                                 epilog="example:\n  biographer clients list --json")
    listing.add_argument("--all", action="store_true", help="revoked clients too")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    clients.set_defaults(handler=cmd_clients, clients_action="list", all=False, json=False)

    saves = sub.add_parser(
        "saves", parents=[parent], formatter_class=_FORMAT, help="what your agents saved: list or delete",
        description="The records your agents saved through the memory server (notes, preferences, decisions, "
                    "recommendations, links). Deleting one forgets every version of it, in backups too.",
        epilog="examples:\n  biographer saves list --client cursor\n  biographer saves delete 1")
    saves_actions = saves.add_subparsers(dest="saves_action", metavar="ACTION", help="list or delete (default: list)")
    saves_list = saves_actions.add_parser("list", parents=[parent], formatter_class=_FORMAT,
                                          help="each saved record's current version")
    saves_list.add_argument("--client", help="only what this client saved")
    saves_list.add_argument("--json", action="store_true", help="print the list as JSON")
    saves_delete = saves_actions.add_parser("delete", parents=[parent], formatter_class=_FORMAT,
                                            help="forget a saved record, every version of it")
    saves_delete.add_argument("id", type=count(1, 2**62), help="the record's number, as `saves list` shows it")
    saves.set_defaults(handler=cmd_saves, saves_action="list", client=None, json=False)
