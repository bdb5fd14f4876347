"""The owner's local web page, served by the memory server's process beside REST and MCP: bio.md
with its citations one click away, its history with undo, the timeline, people, open questions,
search and imports. Server-rendered (Jinja2) with a little plain JavaScript, everything shipped in
the package (no CDN, no build step), over the serving facet only (core/service/serving.py); guard.py is its door."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.exceptions import HTTPException
from starlette.routing import Match, Mount
from starlette.templating import Jinja2Templates
from starlette.types import Scope

from bot.server.errors import status_of
from bot.server.page.guard import CrossSiteRefused, LoginRequired, PageConfig, PageGuard
from bot.server.page.imports import ImportJobs
from bot.server.page.consent import router as consent_router
from bot.server.page.markdown import link_markers
from bot.server.page.views import PictureShelf, local_time
from bot.server.page.routes import router, streamed
from bot.server.oauth import OAuthSite
from core.biographer.gate import AgentGate
from core.errors import UserFacingError
from core.service.serving import ServingFacet
from core.words import counted

__all__ = ["PageConfig", "PageMount", "build_page"]

#: paths that belong to the API beside the page (its 404s and 405s stay the API's own)
API_PATHS = ("/v1", "/mcp", "/openapi.json", "/.well-known", "/authorize", "/token", "/register", "/revoke")


class PageMount(Mount):
    """The page mounted at the root, under every path but the API's."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        path = scope.get("path", "")
        if any(path == p or path.startswith(p + "/") for p in API_PATHS):
            return Match.NONE, {}
        return super().matches(scope)


def _wants_json(request: Request) -> bool:
    """The page's script talks JSON (imports, and the answer's events); everything else is a page a
    person reads."""
    if request.method == "POST" and request.url.path == "/ask":
        return streamed(request)
    return request.url.path.startswith("/imports/") or request.method == "POST" and request.url.path == "/imports"


def _page_error(request: Request, status: int, message: str, hint: str = "") -> Response:
    if _wants_json(request):
        return JSONResponse({"error": message, "hint": hint}, status_code=status)
    part = bool(request.query_params.get("part"))
    return request.app.state.templates.TemplateResponse(
        request, "error_part.html" if part else "error.html",
        {"session": None, "csrf": "", "status": status, "message": message, "hint": hint, "part": part},
        status_code=status)


async def _login_required(request: Request, error: LoginRequired) -> Response:
    if request.method in ("GET", "HEAD") and not _wants_json(request):
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={quote(target, safe='/')}" if target != "/" else "/login",
                                status_code=303)
    return _page_error(request, 401, f"not logged in: {error.reason}", "log in again at /login")


async def _cross_site(request: Request, error: CrossSiteRefused) -> Response:
    return _page_error(request, 403, f"refused: {error.reason}", "use the page itself; reload it if it was open "
                                                                 "before you logged in again")


async def _user_facing(request: Request, error: UserFacingError) -> Response:
    return _page_error(request, status_of(error), error.message, error.hint)


async def _invalid(request: Request, error: RequestValidationError) -> Response:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("query", "path", "body"))
    return _page_error(request, 400, f"{where or 'input'}: {first.get('msg', 'invalid')}", "check the address")


async def _http(request: Request, error: HTTPException) -> Response:
    return _page_error(request, error.status_code, "no such page" if error.status_code == 404 else str(error.detail))


def build_page(service: ServingFacet, config: PageConfig, *, site: OAuthSite, gate: AgentGate | None = None) -> FastAPI:
    """`site`: the server's address, as the OAuth consent page names it to the apps it answers;
    `gate`: the process's one-run-at-a-time for the agent (the bots' and the scheduler's, under
    `biographer run`), which the page's questions take too."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.state.service = service
    app.state.gate = gate or AgentGate()
    app.state.config = config
    app.state.oauth_site = site
    environment = Environment(loader=PackageLoader("bot.server.page", "templates"),
                              autoescape=select_autoescape(default=True))
    # a ledger item's sources as locators the page links (an item the owner set by hand has none)
    environment.filters["locators"] = lambda sources: [
        f"doc{s.document_id}:{s.char_start}-{s.char_end}" for s in sources if s.document_id is not None]
    environment.globals["link_markers"] = link_markers  # an answer's [n] as links (the answer macro)
    environment.filters["local_day"] = lambda when: local_time(when, service.timezone)[:10]
    environment.filters["counted"] = counted  # {{ n|counted("message") }}: "1 message", "2 messages"
    app.state.templates = Jinja2Templates(env=environment)
    app.state.pictures = PictureShelf()
    app.state.imports = ImportJobs(service, max_file_bytes=config.max_upload_bytes)
    app.include_router(router)
    app.include_router(consent_router)
    app.add_exception_handler(LoginRequired, _login_required)
    app.add_exception_handler(CrossSiteRefused, _cross_site)
    app.add_exception_handler(UserFacingError, _user_facing)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http)
    app.add_middleware(PageGuard, hosts=config.hosts)
    return app
