"""Running the memory server inside a process that owns its signals (`biographer serve`,
`biographer run`): uvicorn serves in a task; the caller says when to stop."""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import uvicorn

from bot.server.app import build_app
from bot.server.oauth import OAuthSite
from bot.server.operations import Limits
from bot.server.page import PageConfig
from core.biographer.gate import AgentGate
from core.config import Settings
from core.errors import UserFacingError
from core.service.serving import ServingFacet

log = logging.getLogger(__name__)
DEFAULT_PORT = 8765


class _EmbeddedServer(uvicorn.Server):
    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        # the embedding process handles SIGINT/SIGTERM and stops us; uvicorn's own handlers would
        # replace the runtime's and stop the web server alone
        yield


def local_url(host: str, port: int) -> str:
    """The address a browser on this machine opens (a wildcard bind is reached on localhost)."""
    host = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    return f"http://{host if ':' not in host else f'[{host}]'}:{port}"


def page_config_of(settings: Settings, *, host: str, site: OAuthSite) -> PageConfig:
    # the public address's host too: the owner reaches the consent page there from a connector
    return PageConfig.for_server(bind_host=host, extra_hosts=[*settings.page_hosts, site.host],
                                 session_hours=settings.page_session_hours, max_upload_mb=settings.page_max_upload_mb)


def limits_of(settings: Settings) -> Limits:
    return Limits(rate_per_minute=settings.api_rate_per_minute, max_body_bytes=settings.api_max_body_bytes)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound here rather than by uvicorn, whose failure to bind is a log
    line and a SystemExit that escapes the event loop as a traceback."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, reuse_port=False, backlog=2048)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise UserFacingError(f"port {port} on {host} is already in use (another biographer serve or run?)",
                                  hint="stop the other one, or pick another port: --port N or BIOGRAPHER_API_PORT") from None
        if error.errno in (errno.EACCES, errno.EPERM):
            raise UserFacingError(f"not allowed to listen on {host}:{port}",
                                  hint="ports below 1024 need privileges: pick --port 8765 or another above 1024") from None
        raise UserFacingError(f"cannot listen on {host}:{port}: {error.strerror}",
                              hint="check --host (or BIOGRAPHER_API_HOST) names an address of this machine") from None


async def _serve(server: uvicorn.Server, listening: socket.socket) -> None:
    try:
        await server.serve(sockets=[listening])
    except SystemExit:  # uvicorn's way of saying start-up failed (e.g. the app's lifespan raised)
        raise UserFacingError("the memory server failed to start (see the log line above)",
                              hint="run with -v for details") from None
    finally:
        listening.close()


@asynccontextmanager
async def serving(service: ServingFacet, settings: Settings, *, host: str | None = None,
                  port: int | None = None, gate: AgentGate | None = None) -> AsyncIterator[str]:
    """The server listening (port 0: any free one); yields its base URL; stops on exit. `gate`:
    the agent's one-run-at-a-time shared with the bots and the scheduler of this process."""
    host = host or settings.api_host
    port = DEFAULT_PORT if port is None else port
    listening = bind(host, port)  # first: with port 0, the address OAuth's metadata names is known only now
    try:
        site = OAuthSite.at(settings.public_url or local_url(host, listening.getsockname()[1]))
        app = build_app(service, limits=limits_of(settings), site=site,
                        page=page_config_of(settings, host=host, site=site), gate=gate)
    except BaseException:
        listening.close()
        raise
    config = uvicorn.Config(app, host=host, port=port, log_config=None,
                            lifespan="on", server_header=False)
    server = _EmbeddedServer(config)
    task = asyncio.create_task(_serve(server, listening), name="biographer-memory-server")
    while not server.started:
        if task.done():
            task.result()  # raises what stopped it: uvicorn's start-up failure as a UserFacingError
        await asyncio.sleep(0.01)
    url = local_url(host, server.servers[0].sockets[0].getsockname()[1])
    log.info("memory server listening on %s (REST %s/v1, MCP %s/mcp, your page %s/)", url, url, url, url)
    try:
        yield url
    finally:
        server.should_exit = True
        await task
