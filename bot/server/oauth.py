"""The memory server as an OAuth 2.1 authorization server and resource server for /mcp and /v1,
as MCP's authorization spec (revision 2025-11-25) asks of a remote server that Claude.ai's or
ChatGPT's connectors sign in to:

- protected-resource metadata (RFC 9728) at /.well-known/oauth-protected-resource (and /mcp, /v1
  after it), which a 401's `WWW-Authenticate: Bearer resource_metadata=...` points to;
- authorization-server metadata (RFC 8414) at /.well-known/oauth-authorization-server;
- /authorize (code with PKCE, S256 only) sending the owner to the consent page (/oauth/consent,
  bot/server/page/consent.py), /token (codes and refresh tokens), /register (RFC 7591), /revoke (RFC 7009);
- apps whose client_id is the https address of their metadata (Client ID Metadata Documents, the
  revision's preferred way), fetched and checked by core/serving/oauth_apps.py.

The protocol's checks are the `mcp` SDK's (`mcp.server.auth`: request parsing, PKCE, redirect URI
and scope checks, refresh scope narrowing); the grants, codes and tokens are core/serving/oauth.py's.
Registration and revocation are written here because the SDK's would keep client secrets in the
clear, and its revocation insists on a secret a public client does not have: every app registered
here is a public client (`token_endpoint_auth_method: none`, which RFC 7591 §3.2.1 lets the server
substitute), bound by PKCE, its exact redirect URI and the owner's consent."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.provider import (AccessToken, AuthorizationCode, AuthorizationParams, AuthorizeError,
                                      RefreshToken, TokenError)
from mcp.server.auth.routes import build_metadata, cors_middleware, validate_issuer_url
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken, ProtectedResourceMetadata
from pydantic import AnyHttpUrl, AnyUrl, ConfigDict, TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core.errors import UserFacingError
from core.serving.clients import OPERATIONS
from core.serving.oauth import IssuedTokens, OAuthBook
from core.serving.oauth_apps import redirect_uri_refusal

CONSENT_PATH = "/oauth/consent"
PROTECTED = ("/mcp", "/v1")  # the resources; the server's root names them both
#: URLs as the metadata's own models keep them: `https://host`, not `https://host/` (an issuer is
#: compared as a string, RFC 8414 §3.3, and the redirect's `iss` must be spelled the same)
_URL = TypeAdapter(AnyHttpUrl, config=ConfigDict(url_preserve_empty_path=True))


@dataclass(frozen=True)
class OAuthSite:
    """The addresses the metadata names: the server as the world reaches it (BIOGRAPHER_PUBLIC_URL,
    e.g. a tunnel's https address), else as this machine does."""

    base: str  # scheme://host[:port], no path, no trailing slash

    @classmethod
    def at(cls, url: str) -> OAuthSite:
        base = url.rstrip("/")
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query:
            raise UserFacingError(f"not a server address: {url!r}",
                                  hint="BIOGRAPHER_PUBLIC_URL is scheme and host only, e.g. https://bio.example.net")
        try:
            validate_issuer_url(_URL.validate_python(base))
        except ValueError:
            raise UserFacingError(f"OAuth needs https outside this machine, not {url!r}",
                                  hint="put the server behind https (a reverse proxy or tunnel) and set "
                                       "BIOGRAPHER_PUBLIC_URL to its https address") from None
        return cls(base=base)

    @property
    def host(self) -> str:
        return (urlsplit(self.base).hostname or "").lower()

    @property
    def resources(self) -> frozenset[str]:
        """What a token may be issued for (RFC 8707): the server, or either door of it."""
        return frozenset({self.base, self.base + "/", *(self.base + p for p in PROTECTED)})

    def resource_of(self, path: str) -> str:
        return self.base + next((p for p in PROTECTED if path == p or path.startswith(p + "/")), "")

    def metadata_url(self, path: str) -> str:
        """Where a 401 at `path` sends an OAuth client (RFC 9728 §3.1: the well-known name before the path)."""
        door = next((p for p in PROTECTED if path == p or path.startswith(p + "/")), "")
        return f"{self.base}/.well-known/oauth-protected-resource{door}"


def _app_info(metadata: dict) -> OAuthClientInformationFull:
    return OAuthClientInformationFull.model_validate(metadata)


class StoreProvider:
    """The SDK's OAuthAuthorizationServerProvider over the OAuth book."""

    def __init__(self, book: OAuthBook, site: OAuthSite) -> None:
        self.book = book
        self.site = site

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        metadata = await self.book.app(client_id)
        return _app_info(metadata) if metadata else None

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if params.resource is not None and params.resource not in self.site.resources:
            raise AuthorizeError("invalid_target", f"this server is {self.site.base}/mcp, not {params.resource}")
        query = {"client_id": client.client_id, "redirect_uri": str(params.redirect_uri),
                 "explicit": "1" if params.redirect_uri_provided_explicitly else "0",
                 "code_challenge": params.code_challenge, "state": params.state,
                 "scope": " ".join(params.scopes) if params.scopes else None, "resource": params.resource}
        return f"{self.site.base}{CONSENT_PATH}?" + urlencode({k: v for k, v in query.items() if v is not None})

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AuthorizationCode | None:
        grant = await self.book.code(client.client_id, authorization_code)
        if grant is None:
            return None
        return AuthorizationCode(code=authorization_code, scopes=list(grant.operations),
                                 expires_at=grant.expires_at.timestamp(), client_id=grant.app,
                                 code_challenge=grant.code_challenge, redirect_uri=AnyUrl(grant.redirect_uri),
                                 redirect_uri_provided_explicitly=grant.redirect_uri_explicit,
                                 resource=grant.resource)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        try:
            return _token(await self.book.exchange_code(client.client_id, authorization_code.code))
        except UserFacingError as error:
            raise TokenError("invalid_grant", f"{error.message}: {error.hint}") from None

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        grant = await self.book.refresh_token(refresh_token)
        if grant is None:
            return None
        return RefreshToken(token=refresh_token, client_id=grant.app, scopes=list(grant.client.operations),
                            expires_at=int(grant.expires_at.timestamp()), resource=grant.resource)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        try:
            return _token(await self.book.rotate(refresh_token.token, tuple(o for o in OPERATIONS if o in scopes)))
        except UserFacingError as error:
            raise TokenError("invalid_grant", f"{error.message}: {error.hint}") from None

    async def load_access_token(self, token: str) -> AccessToken | None:
        grant = await self.book.access_token(token)
        if grant is None:
            return None
        return AccessToken(token=token, client_id=grant.app, scopes=list(grant.client.operations),
                           expires_at=int(grant.expires_at.timestamp()), resource=grant.resource)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        await self.book.revoke(token.token)


def _token(issued: IssuedTokens) -> OAuthToken:
    return OAuthToken(access_token=issued.access_token, expires_in=issued.expires_in,
                      scope=" ".join(issued.operations), refresh_token=issued.refresh_token)


def _registration_error(description: str, *, error: str = "invalid_client_metadata") -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=400,
                        headers={"Cache-Control": "no-store"})


class Registration:
    """POST /register (RFC 7591 §3): any app may register (it gains nothing until the owner consents)."""

    def __init__(self, book: OAuthBook) -> None:
        self.book = book

    async def handle(self, request: Request) -> Response:
        try:
            asked = OAuthClientMetadata.model_validate_json(await request.body())
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "body"
            return _registration_error(f"{where}: {first.get('msg', 'invalid')} (RFC 7591 client metadata as JSON)")
        for uri in asked.redirect_uris or ():
            if (why := redirect_uri_refusal(uri)) is not None:
                return _registration_error(why, error="invalid_redirect_uri")
        if "authorization_code" not in asked.grant_types or \
                set(asked.grant_types) - {"authorization_code", "refresh_token"}:
            return _registration_error("grant_types: this server grants authorization_code and refresh_token only")
        if "code" not in asked.response_types:
            return _registration_error("response_types must include 'code'")
        unknown = set((asked.scope or "").split()) - set(OPERATIONS)
        if unknown:
            return _registration_error(f"scope: unknown {', '.join(sorted(unknown))} (scopes: {' '.join(OPERATIONS)})")
        info = OAuthClientInformationFull(
            **asked.model_dump(exclude={"token_endpoint_auth_method", "scope", "grant_types"}),
            # a public client: nothing secret to keep (see the module's docstring)
            token_endpoint_auth_method="none", scope=" ".join(OPERATIONS),
            grant_types=["authorization_code", "refresh_token"],
            client_id=str(uuid.uuid4()), client_id_issued_at=int(time.time()))
        await self.book.register_app(info.client_id, info.model_dump(mode="json", exclude_none=True))
        return JSONResponse(info.model_dump(mode="json", exclude_none=True), status_code=201,
                            headers={"Cache-Control": "no-store"})


class Revocation:
    """POST /revoke (RFC 7009): the app's own token ends its grant; anything else is answered 200
    alike, so the endpoint tells nobody which tokens exist."""

    def __init__(self, provider: StoreProvider) -> None:
        self.provider = provider
        self.authenticator = ClientAuthenticator(provider)

    async def handle(self, request: Request) -> Response:
        try:
            client = await self.authenticator.authenticate_request(request)
        except AuthenticationError as error:
            return JSONResponse({"error": "invalid_client", "error_description": error.message}, status_code=401)
        token = (await request.form()).get("token")
        if not isinstance(token, str) or not token:
            return JSONResponse({"error": "invalid_request", "error_description": "no token to revoke"},
                                status_code=400)
        found = await self.provider.load_access_token(token) or await self.provider.load_refresh_token(client, token)
        if found is not None and found.client_id == client.client_id:
            await self.provider.revoke_token(found)
        return Response(status_code=200, headers={"Cache-Control": "no-store"})


def oauth_routes(book: OAuthBook, site: OAuthSite) -> list[Route]:
    provider = StoreProvider(book, site)
    issuer = _URL.validate_python(site.base)
    metadata = build_metadata(issuer, None, ClientRegistrationOptions(enabled=True, valid_scopes=list(OPERATIONS)),
                              RevocationOptions(enabled=True))
    metadata.token_endpoint_auth_methods_supported = ["none"]
    metadata.revocation_endpoint_auth_methods_supported = ["none"]
    metadata.authorization_response_iss_parameter_supported = True  # the consent page adds iss (RFC 9207)
    metadata.client_id_metadata_document_supported = True  # core/serving/oauth_apps.py fetches them
    token = TokenHandler(provider, ClientAuthenticator(provider))
    routes = [
        Route("/.well-known/oauth-authorization-server", methods=["GET", "OPTIONS"],
              endpoint=cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"])),
        Route("/authorize", endpoint=AuthorizationHandler(provider).handle, methods=["GET", "POST"]),
        Route("/token", endpoint=cors_middleware(token.handle, ["POST", "OPTIONS"]), methods=["POST", "OPTIONS"]),
        Route("/register", endpoint=cors_middleware(Registration(book).handle, ["POST", "OPTIONS"]),
              methods=["POST", "OPTIONS"]),
        Route("/revoke", endpoint=cors_middleware(Revocation(provider).handle, ["POST", "OPTIONS"]),
              methods=["POST", "OPTIONS"]),
    ]
    for door in ("", *PROTECTED):
        document = ProtectedResourceMetadata(resource=_URL.validate_python(site.base + door), authorization_servers=[issuer],
                                             scopes_supported=list(OPERATIONS), resource_name="Biographer memory",
                                             resource_documentation=None)
        routes.append(Route(f"/.well-known/oauth-protected-resource{door}", methods=["GET", "OPTIONS"],
                            endpoint=cors_middleware(ProtectedResourceMetadataHandler(document).handle,
                                                     ["GET", "OPTIONS"])))
    return routes
