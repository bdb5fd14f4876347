"""The OAuth consent page: an app sent here by /authorize (bot/server/oauth.py) asks for the owner's
memory; the owner, logged in to the page, chooses what it may do and see, and the browser goes
back to the app with a code (or with `access_denied`). Only the owner can consent: the page's
session, CSRF token and origin checks guard the form as every other post of the page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from mcp.server.auth.provider import construct_redirect_uri

from bot.server.page.guard import SECURITY_HEADERS, LoginRequired, current_session, posted_by_page
from bot.server.page.routes import render, service_of
from core.errors import UserFacingError
from core.serving.clients import OPERATIONS, parse_operations, parse_sections
from core.serving.oauth import Consent, suggested_name
from core.serving.page_sessions import PageSession
from core.serving.sections import DEFAULT_SAVE_SECTION, IMPORTED_SECTIONS

router = APIRouter(include_in_schema=False)
#: what the consent page ticks when the app asked for nothing in particular: reading, not writing
DEFAULT_OPERATIONS = ("search", "read", "list")
_CHALLENGE = re.compile(r"^[A-Za-z0-9._~-]{43,128}$")  # RFC 7636 §4.2: S256's is 43 characters
_ORIGIN_PART = re.compile(r"^[A-Za-z0-9.:\[\]-]+$")
WHAT = {"search": "search your memory", "read": "read the passages it finds, with who said them and when",
        "list": "list every passage a filter keeps", "save": "save notes, preferences and links into its own section",
        "delete": "delete what it saved itself"}


class NotAnAuthorization(UserFacingError):
    """The consent page opened without a valid authorization request (400)."""


@dataclass(frozen=True)
class Asked:
    """An authorization request as /authorize passed it on, checked again here."""

    client_id: str
    app_name: str
    redirect_uri: str
    explicit: bool
    code_challenge: str
    state: str | None
    operations: tuple[str, ...]
    resource: str | None


async def _asked(request: Request, fields) -> Asked:
    oauth = service_of(request).oauth
    client_id = str(fields.get("client_id") or "")
    app = await oauth.app(client_id) if client_id else None
    if app is None:
        raise NotAnAuthorization("no app asked for access here (an unknown or missing client_id)",
                                 hint="start again from your app: it sends you here through /authorize")
    redirect_uri = str(fields.get("redirect_uri") or "")
    if redirect_uri not in app.get("redirect_uris", []):
        raise NotAnAuthorization("the app's return address is not one it registered",
                                 hint="start again from your app")
    challenge = str(fields.get("code_challenge") or "")
    if not _CHALLENGE.match(challenge):
        raise NotAnAuthorization("the request has no PKCE code challenge", hint="start again from your app")
    resource = fields.get("resource") or None
    if resource is not None and resource not in request.app.state.oauth_site.resources:
        raise NotAnAuthorization(f"the app asked for another server ({resource})", hint="start again from your app")
    scope = str(fields.get("scope") or "").split()
    return Asked(client_id=client_id, app_name=str(app.get("client_name") or client_id),
                 redirect_uri=redirect_uri, explicit=fields.get("explicit") != "0", code_challenge=challenge,
                 state=fields.get("state") or None, resource=resource,
                 operations=tuple(o for o in OPERATIONS if o in scope) or DEFAULT_OPERATIONS)


def _form_target(redirect_uri: str) -> str:
    """The CSP source of where the form's answer redirects (Chromium applies form-action to the
    redirect too): the app's origin, or its own scheme for a native app."""
    parts = urlsplit(redirect_uri)
    if parts.scheme in ("http", "https") and _ORIGIN_PART.match(parts.netloc):
        return f"{parts.scheme}://{parts.netloc}"
    return f"{parts.scheme}:" if re.match(r"^[a-z][a-z0-9+.-]*$", parts.scheme) else ""


async def _consent_page(request: Request, session: PageSession, asked: Asked, *, status_code: int = 200,
                        error: UserFacingError | None = None, name: str | None = None,
                        chosen: tuple[str, ...] | None = None) -> Response:
    taken = await service_of(request).oauth.taken_names()
    response = render(request, "consent.html", session, status_code=status_code, active="", asked=asked,
                      error=error, name=name or suggested_name(asked.app_name, taken), what=WHAT,
                      chosen=chosen or asked.operations, sections=[*IMPORTED_SECTIONS, DEFAULT_SAVE_SECTION],
                      returns_to=urlsplit(asked.redirect_uri).netloc or asked.redirect_uri)
    policy = SECURITY_HEADERS["content-security-policy"].replace(
        "form-action 'self'", f"form-action 'self' {_form_target(asked.redirect_uri)}".rstrip())
    response.headers["content-security-policy"] = policy
    return response


@router.get("/oauth/consent")
async def consent_form(request: Request) -> Response:
    try:
        session = await current_session(request)
    except LoginRequired:
        if request.headers.get("sec-fetch-site") != "cross-site":
            raise  # to /login, and back here
        # sent here by the app's site, the browser withheld the SameSite=Strict cookie; the same
        # address opened again by this page itself is a same-site navigation, which carries it
        return render(request, "consent_continue.html", None, again=f"{request.url.path}?{request.url.query}")
    return await _consent_page(request, session, await _asked(request, request.query_params))


def _back_to_app(asked: Asked, request: Request, **answer: str) -> Response:
    issuer = request.app.state.oauth_site.base  # RFC 9207: the app checks who answered
    return RedirectResponse(construct_redirect_uri(asked.redirect_uri, **answer, state=asked.state, iss=issuer),
                            status_code=303, headers={"cache-control": "no-store"})


@router.post("/oauth/consent")
async def consent(request: Request) -> Response:
    session = await posted_by_page(request)
    form = await request.form()
    asked = await _asked(request, form)
    if form.get("decision") != "allow":
        return _back_to_app(asked, request, error="access_denied",
                            error_description="the owner did not allow access")
    name = str(form.get("name") or "").strip()
    chosen = tuple(str(v) for v in form.getlist("operations"))
    try:
        operations = parse_operations(chosen)
        sections = () if form.get("scope_sections") != "some" else parse_sections(
            [*(str(v) for v in form.getlist("sections")), str(form.get("other_sections") or "")])
        if form.get("scope_sections") == "some" and not sections:
            raise UserFacingError("no section chosen", hint="tick the sections the app may see, or choose every section")
        code = await service_of(request).oauth.give_code(Consent(
            app=asked.client_id, name=name, operations=operations, sections=sections,
            code_challenge=asked.code_challenge, redirect_uri=asked.redirect_uri,
            redirect_uri_explicit=asked.explicit, resource=asked.resource))
    except UserFacingError as error:
        return await _consent_page(request, session, asked, status_code=400, error=error, name=name, chosen=chosen)
    return _back_to_app(asked, request, code=code)
