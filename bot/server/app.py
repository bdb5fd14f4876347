"""The memory server's app: REST under /v1 (OpenAPI at /openapi.json) and MCP at /mcp, over the
serving facet. A FastAPI (Starlette) app, so the local page (bot/server/page/) adds its routes beside."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Route

from bot.server import rest
from bot.server.auth import BodyLimit, Door, GuardedMcp
from bot.server.errors import error_response
from bot.server.mcp import build_mcp_server, mcp_endpoint
from bot.server.oauth import OAuthSite, oauth_routes
from bot.server.operations import Limits, Operations
from bot.server.page import PageConfig, PageMount, build_page
from core.biographer.gate import AgentGate
from core.errors import UserFacingError
from core.service.serving import ServingFacet


def server_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("biographer")
    except PackageNotFoundError:
        return "unknown"


async def _user_facing(request: Request, error: UserFacingError) -> JSONResponse:
    return error_response(error, resource_metadata=request.app.state.door.site.metadata_url(request.url.path))


async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "body"
    return JSONResponse({"error": f"{where}: {first.get('msg', 'invalid')}",
                         "hint": "see /openapi.json for the request schema"}, status_code=422)


async def _http(request: Request, error: HTTPException) -> JSONResponse:
    """Starlette's own refusals (no such path, wrong method) in the API's one shape, not {"detail"}."""
    if isinstance(error.__cause__, UserFacingError):  # FastAPI wraps what failed while reading a body
        return error_response(error.__cause__)
    hint = {404: "the API is under /v1 (see /openapi.json) and MCP at /mcp",
            405: "see /openapi.json for each path's method"}.get(error.status_code, "see /openapi.json")
    message = "no such path" if error.status_code == 404 else str(error.detail).lower()
    return JSONResponse({"error": f"{message}: {request.method} {request.url.path[:200]}", "hint": hint},
                        status_code=error.status_code, headers=getattr(error, "headers", None))


def build_app(service: ServingFacet, *, limits: Limits, site: OAuthSite, page: PageConfig | None = None,
              gate: AgentGate | None = None) -> FastAPI:
    """The API at `site` (the address OAuth's metadata names); with `page`, the owner's local page
    too (under every other path), and with it the OAuth consent that only the owner can give."""
    version = server_version()
    page_app = build_page(service, page, site=site, gate=gate) if page is not None else None
    operations = Operations(service, limits=limits, version=version)
    door = Door(service, site, rate_per_minute=limits.rate_per_minute)
    manager, endpoint = mcp_endpoint(build_mcp_server(operations, version=version),
                                     max_body_bytes=limits.max_body_bytes)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with manager.run():
            try:
                yield
            finally:
                await operations.indexer.close()
                if page_app is not None:
                    await page_app.state.imports.close()

    # no /docs or /redoc: their pages load scripts from a CDN, and nothing here reaches out
    app = FastAPI(title="Biographer memory", version=version, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="The owner's memory for their other agents: search, read, list and save, behind "
                              "per-client bearer tokens (`biographer clients add`) or OAuth 2.1 (remote connectors sign in and "
                              "the owner consents on the page: /.well-known/oauth-protected-resource). MCP at /mcp.")
    app.state.operations = operations
    app.state.door = door
    app.add_exception_handler(UserFacingError, _user_facing)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http)
    app.include_router(rest.router)
    app.router.routes.append(Route("/mcp", endpoint=GuardedMcp(endpoint, door), methods=["GET", "POST", "DELETE"]))
    if page_app is not None:
        app.router.routes.extend(oauth_routes(service.oauth, site))
        app.router.routes.append(PageMount("/", app=page_app))
    # the page's uploads (a file of an import, streamed) may be larger than any API request
    app.add_middleware(BodyLimit, limit=limits.max_body_bytes,
                       larger={"/imports/": page.max_upload_bytes} if page is not None else {})
    return app
