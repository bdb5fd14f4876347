"""The page's routes: each parses its input, calls the service, and renders a template. Every page
depends on a live session and every post on `posted_by_page` (session + CSRF + origin)."""

from __future__ import annotations

from importlib import resources
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.templating import Jinja2Templates

from bot.server.page import guard, views
from bot.server.page.asking import answer_events
from bot.server.page.guard import current_session, posted_by_page
from bot.server.page.imports import ImportJobs
from bot.server.page.markdown import link_citations, render_markdown
from core.serving.api_errors import NotAuthenticated
from core.dates import parse_bound
from core.biographer.gate import AgentGate
from core.errors import ModelUnavailable, UserFacingError
from core.serving.memory_api import MAX_LIMIT, Filters
from core.serving.clients import OWNER
from core.serving.saves import version_locator
from core.serving.page_sessions import PageSession
from core.biographer.profile import citations_in
from core.service.serving import ServingFacet

router = APIRouter(include_in_schema=False)
Session = Annotated[PageSession, Depends(current_session)]
Posted = Annotated[PageSession, Depends(posted_by_page)]
STATIC = {"page.css": "text/css; charset=utf-8", "page.js": "text/javascript; charset=utf-8",
          "favicon.svg": "image/svg+xml"}
SEARCH_MODES = ("hybrid", "keyword", "semantic")
# a row's number in an address: beyond SQLite's integers there is no such row (and binding one raises)
RowId = Annotated[int, Path(ge=1, le=2**63 - 1)]


def service_of(request: Request) -> ServingFacet:
    return request.app.state.service


def templates_of(request: Request) -> Jinja2Templates:
    return request.app.state.templates


def render(request: Request, template: str, session: PageSession | None, *, status_code: int = 200,
           **context: object) -> Response:
    return templates_of(request).TemplateResponse(
        request, template, {"session": session, "csrf": session.csrf if session else "", **context},
        status_code=status_code)


def safe_next(target: str | None) -> str:
    """Where to go after logging in: a path of this server only (never //elsewhere)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/bio"
    return target


# ------------------------------------------------------------------ static files (no login: nothing private)

@router.get("/static/{name}")
async def static(name: str) -> Response:
    if name not in STATIC:
        return Response("not found", status_code=404, media_type="text/plain")
    body = resources.files("bot.server.page").joinpath("static", name).read_bytes()
    return Response(body, media_type=STATIC[name], headers={"cache-control": "no-cache"})


@router.get("/favicon.ico")
async def favicon() -> Response:
    """Browsers ask for /favicon.ico whatever the page links: the same SVG (Chromium and Firefox
    read an SVG served there by its type), rather than a 404 in every tab's log."""
    return await static("favicon.svg")


# ------------------------------------------------------------------ login

@router.get("/login")
async def login_form(request: Request, next: str = "/bio", refused: bool = False) -> Response:
    return render(request, "login.html", None, next=safe_next(next), refused=refused)


@router.post("/login")
async def login(request: Request) -> Response:
    guard.check_same_origin(request)
    form = await request.form()
    target = safe_next(str(form.get("next") or ""))
    try:
        new = await service_of(request).page_sessions.login(str(form.get("token") or ""),
                                                   lifetime=request.app.state.config.session_lifetime)
    except NotAuthenticated as error:
        return render(request, "login.html", None, status_code=401, next=target, error=error)
    # through /login/done, which tells a browser that refused the cookie from one that never had it
    response = RedirectResponse("/login/done?" + urlencode({"next": target}), status_code=303)
    guard.set_session_cookie(response, new.secret, request.app.state.config.session_lifetime)
    return response


@router.get("/login/done")
async def logged_in(request: Request, next: str = "/bio") -> Response:
    try:
        await current_session(request)
    except guard.LoginRequired:
        return RedirectResponse("/login?refused=1", status_code=303)
    return RedirectResponse(safe_next(next), status_code=303)


@router.post("/logout")
async def logout(request: Request, session: Posted) -> Response:
    await service_of(request).page_sessions.logout(request.cookies[guard.COOKIE])
    response = RedirectResponse("/login", status_code=303)
    guard.clear_session_cookie(response)
    return response


# ------------------------------------------------------------------ bio.md and its history

@router.get("/")
async def home(session: Session) -> Response:
    return RedirectResponse("/bio", status_code=303)


@router.get("/bio")
async def bio(request: Request, session: Session) -> Response:
    text = await service_of(request).biographer.bio()
    return render(request, "bio.html", session, active="bio", bio_html=render_markdown(text),
                  unwritten=not citations_in(text))


@router.get("/bio/history")
async def history(request: Request, session: Session, since: str | None = None, undone: int | None = None,
                  error: str | None = None) -> Response:
    service = service_of(request)
    diff = None
    if since:
        diff = views.diff_lines(await service.biographer.book.diff_since(parse_bound(since, zone=service.timezone, end=False)))
    edits = await service.biographer.book.history(limit=100)
    return render(request, "history.html", session, active="history", since=since or "", diff=diff,
                  edits=[(e, views.edit_diff(e)) for e in edits], zone=service.timezone, undone=undone,
                  local_time=views.local_time)


@router.post("/bio/undo/{edit_id}")
async def undo(request: Request, edit_id: RowId, session: Posted) -> Response:
    undo_edit = await service_of(request).biographer.book.undo(edit_id)
    return RedirectResponse(f"/bio/history?undone={undo_edit.undoes}", status_code=303)


# ------------------------------------------------------------------ a cited passage

@router.get("/passage/{locator}")
async def passage(request: Request, locator: str, session: Session,
                  window: Annotated[int, Query(ge=0, le=5000)] = 0, part: bool = False) -> Response:
    service = service_of(request)
    found = await service.memory_api.read(OWNER, locator, window=window)
    return render(request, "passage_part.html" if part else "passage.html", session, active="", passage=found,
                  when=views.time_span(found.time_start, found.time_end, service.timezone), asked=locator)


# ------------------------------------------------------------------ timeline and people

@router.get("/timeline")
async def timeline(request: Request, session: Session, year: Annotated[int | None, Query(ge=1, le=9999)] = None,
                   month: Annotated[int | None, Query(ge=1, le=12)] = None) -> Response:
    service = service_of(request)
    zoom = views.timeline_zoom(await service.biographer.timeline(), year=year, month=month)
    period = f"{year}-{month:02d}" if year and month else str(year) if year else None
    figure = await _picture(request, "timeline", period)
    return render(request, "timeline.html", session, active="timeline", zoom=zoom, cite=link_citations,
                  figure=figure)


@router.get("/people")
async def people(request: Request, session: Session) -> Response:
    figure = await _picture(request, "people", None)
    return render(request, "people.html", session, active="people", people=await service_of(request).people(),
                  figure=figure,
                  quote=lambda name: quote(name, safe=""))


@router.get("/people/{name:path}")
async def person(request: Request, name: str, session: Session) -> Response:
    service = service_of(request)
    view = await service.person_page(name)
    return render(request, "person.html", session, active="people", person=view, zone=service.timezone,
                  local_time=views.local_time, cite=link_citations,
                  search_url="/search?" + urlencode({"person": view.name}))


async def _picture(request: Request, kind: str, period: str | None) -> views.Figure | None:
    """A picture for the page: drawn once, kept briefly under a random name the <img> asks for
    (the page allows images from itself only, so no data: URL)."""
    service = service_of(request)
    zone = service.timezone
    since = parse_bound(period, zone=zone, end=False) if period else None
    until = parse_bound(period, zone=zone, end=True) if period else None
    picture = await service.pictures.make(kind, since=since, until=until)
    if picture.empty:
        return None
    return request.app.state.pictures.keep(picture)


@router.get("/pictures/{key}.png")
async def picture_file(request: Request, key: str, session: Session) -> Response:
    png = request.app.state.pictures.get(key)
    if png is None:
        return Response(status_code=404)
    return Response(png, media_type="image/png", headers={"cache-control": "no-store"})


# ------------------------------------------------------------------ open questions

@router.get("/questions")
async def questions(request: Request, session: Session) -> Response:
    return await _questions_page(request, session)


async def _questions_page(request: Request, session: PageSession, *, status_code: int = 200,
                          **context: object) -> Response:
    service = service_of(request)
    return render(request, "questions.html", session, status_code=status_code, active="questions",
                  questions=await service.biographer.open_questions(), model=service.model_configured, cite=link_citations,
                  **context)


@router.post("/questions/{question_id}/answer")
async def answer(request: Request, question_id: RowId, session: Posted) -> Response:
    service = service_of(request)
    text = str((await request.form()).get("answer") or "").strip()
    if not service.model_configured:
        return await _questions_page(request, session, status_code=503, error=NO_MODEL, answered_id=question_id,
                                     draft=text)
    if not text:
        return await _questions_page(request, session, status_code=400, answered_id=question_id,
                                     error=UserFacingError("the answer is empty", hint="write it in the box"))
    async with request.app.state.gate.turn():
        reply = await service.biographer.answer_question(question_id, text)
    return await _questions_page(request, session, answered_id=question_id, reply=reply)


NO_MODEL = UserFacingError(
    "no language model is configured, so answers cannot be folded into bio.md (nothing was saved)",
    hint="set BIOGRAPHER_LLM_API_KEY (OpenRouter or OpenAI) or point BIOGRAPHER_LLM_BASE_URL at a local Ollama, "
         "then restart `biographer serve`; see .env.example")


# ------------------------------------------------------------------ ask

@router.get("/ask")
async def ask_page(request: Request, session: Session) -> Response:
    return render(request, "ask.html", session, active="ask", model=service_of(request).model_configured,
                  no_model=NO_ASK_MODEL)


@router.post("/ask")
async def ask(request: Request, session: Posted) -> Response:
    """The answer as it is found, as server-sent events (asking.py); the page's script reads them."""
    service = service_of(request)
    question = str((await request.form()).get("question") or "").strip()
    if not service.model_configured:
        raise NO_ASK_MODEL
    if not question:
        raise UserFacingError("the question is empty", hint="write it in the box, e.g. when did I move to Porto?")
    gate: AgentGate = request.app.state.gate
    if not streamed(request):  # the form, posted by a browser without the page's script: the whole answer
        async with gate.turn():
            reply = await service.biographer.ask(question, conversation="page")
        return render(request, "ask.html", session, active="ask", model=True, no_model=NO_ASK_MODEL,
                      question=question, reply=reply)
    answer_part = templates_of(request).get_template("answer_part.html")
    events = answer_events(lambda watcher: service.biographer.ask(question, conversation="page", watcher=watcher),
                           lambda answer: answer_part.render(reply=answer), gate=gate)
    return StreamingResponse(events, media_type="text/event-stream",
                             headers={"cache-control": "no-store", "x-accel-buffering": "no"})


def streamed(request: Request) -> bool:
    """The page's script asks for the answer as events; a plain form post gets a page."""
    return "text/event-stream" in request.headers.get("accept", "")


NO_ASK_MODEL = ModelUnavailable(
    "no language model is configured, so questions cannot be answered here",
    hint="set BIOGRAPHER_LLM_API_KEY (OpenRouter or OpenAI) or point BIOGRAPHER_LLM_BASE_URL at a local Ollama, "
         "then restart `biographer serve`; meanwhile Search finds the passages themselves")


# ------------------------------------------------------------------ search

@router.get("/search")
async def search(request: Request, session: Session, q: str = "", mode: str = "hybrid",
                 kind: Annotated[list[str], Query()] = [],  # noqa: B006 (FastAPI reads the default)
                 person: str = "", since: str = "", until: str = "",
                 limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 20, cursor: str | None = None) -> Response:
    """Ranked passages for a query; with filters only, every passage they keep (oldest first, in pages)."""
    service = service_of(request)
    form = {"q": q.strip(), "mode": mode if mode in SEARCH_MODES else "hybrid", "kind": [k for k in kind if k],
            "person": person.strip(), "since": since.strip(), "until": until.strip(), "limit": limit}
    filters = Filters(kinds=tuple(form["kind"]), person=form["person"] or None, since=form["since"] or None,
                      until=form["until"] or None)
    answer = listed = more = None
    if form["q"]:
        answer = await service.memory_api.search(OWNER, form["q"], limit=limit, mode=form["mode"], filters=filters)
    elif filters != Filters():
        listed = await service.memory_api.list(OWNER, filters=filters, cursor=cursor, limit=limit)
        if listed.next_cursor:
            more = "/search?" + urlencode({**form, "cursor": listed.next_cursor}, doseq=True)
    return render(request, "search.html", session, active="search", form=form, answer=answer, listed=listed,
                  more=more, kinds=sorted((await service.memory.stats()).get("by_kind", {})), modes=SEARCH_MODES,
                  people=[p.name for p in await service.people()][:500],
                  span=lambda p: views.time_span(p.time_start, p.time_end, service.timezone), mark=views.marked)


# ------------------------------------------------------------------ what agents saved

@router.get("/saves")
async def saves(request: Request, session: Session, client: str = "", deleted: int | None = None,
                versions: int | None = None) -> Response:
    """Every record agents saved (its current version), by client, each with a Delete."""
    service = service_of(request)
    records = await service.save_shelf.list(client=client.strip() or None)
    texts = [(await service.memory.read(version_locator(v))).text for v in records]
    makers = sorted({v.client for v in await service.save_shelf.list()}, key=str.lower)
    return render(request, "saves.html", session, active="saves", saves=list(zip(records, texts)), client=client,
                  makers=makers, deleted=deleted, versions=versions, zone=service.timezone, local_time=views.local_time)


@router.post("/saves/{record_id}/delete")
async def delete_save(request: Request, record_id: RowId, session: Posted) -> Response:
    """Delete a saved record whole: every version, its vectors and bytes, in backups too."""
    deleted = await service_of(request).save_shelf.delete(OWNER, record_id)
    return RedirectResponse(f"/saves?deleted={deleted.record}&versions={deleted.versions}", status_code=303)


# ------------------------------------------------------------------ imports

def jobs_of(request: Request) -> ImportJobs:
    return request.app.state.imports


@router.get("/imports")
async def imports(request: Request, session: Session) -> Response:
    """Drop files to import; and what keeps the store current (mail, watched paths, live chats)."""
    service = service_of(request)
    return render(request, "imports.html", session, active="imports",
                  max_mb=request.app.state.config.max_upload_bytes // 2**20,
                  feeds=await service.feeds.all() if service.feeds else [],
                  live=await service.live.chats() if service.live else [])


@router.post("/imports")
async def new_import(request: Request, session: Posted) -> JSONResponse:
    return JSONResponse(jobs_of(request).new().to_json())


@router.post("/imports/{job_id}/files")
async def upload(request: Request, job_id: str, name: str, session: Posted) -> JSONResponse:
    await jobs_of(request).receive(job_id, name, request.stream())
    return JSONResponse(jobs_of(request).get(job_id).to_json())


@router.post("/imports/{job_id}/start")
async def start_import(request: Request, job_id: str, session: Posted) -> JSONResponse:
    return JSONResponse(jobs_of(request).start(job_id).to_json())


@router.get("/imports/{job_id}")
async def import_status(request: Request, job_id: str, session: Session) -> JSONResponse:
    return JSONResponse(jobs_of(request).get(job_id).to_json())

