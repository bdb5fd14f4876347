"""Running the memory server inside a process that owns its signals (`biographer serve`,
`biographer run`): uvicorn serves in a task; the caller says when to stop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import uvicorn

from bot.server.app import build_app
from bot.server.operations import Limits
from bot.server.page import PageConfig
from core.config import Settings
from core.errors import UserFacingError
from core.service import Service

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


def page_config_of(settings: Settings, *, host: str) -> PageConfig:
    return PageConfig.for_server(bind_host=host, extra_hosts=settings.page_hosts,
                                 session_hours=settings.page_session_hours, max_upload_mb=settings.page_max_upload_mb)


def limits_of(settings: Settings) -> Limits:
    return Limits(rate_per_minute=settings.api_rate_per_minute, max_body_bytes=settings.api_max_body_bytes)


@asynccontextmanager
async def serving(service: Service, settings: Settings, *, host: str | None = None,
                  port: int | None = None) -> AsyncIterator[str]:
    """The server listening (port 0: any free one); yields its base URL; stops on exit."""
    host = host or settings.api_host
    port = DEFAULT_PORT if port is None else port
    app = build_app(service, limits=limits_of(settings), page=page_config_of(settings, host=host))
    config = uvicorn.Config(app, host=host, port=port, log_config=None,
                            lifespan="on", server_header=False)
    server = _EmbeddedServer(config)
    task = asyncio.create_task(server.serve(), name="biographer-memory-server")
    while not server.started:
        if task.done():
            try:
                task.result()
            except SystemExit:  # uvicorn exits when it cannot bind
                pass
            raise UserFacingError(f"the memory server could not listen on {host}:{port} (in use, or not allowed)",
                                  hint="pick another port: --port or BIOGRAPHER_API_PORT")
        await asyncio.sleep(0.01)
    url = local_url(host, server.servers[0].sockets[0].getsockname()[1])
    log.warning("memory server listening on %s (REST %s/v1, MCP %s/mcp, your page %s/)", url, url, url, url)
    try:
        yield url
    finally:
        server.should_exit = True
        await task
