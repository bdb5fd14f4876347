"""MCP over Streamable HTTP at /mcp (the official `mcp` SDK): tools `search`, `read`, `list`,
`save` and `delete`, whose input schemas are the REST request models and whose results are the REST
answers; resources (bot/server/mcp_resources.py) and the prompt `use_memory` (bot/server/mcp_prompt.py).

Stateless and plain JSON: each POST carries the bearer token and is answered on its own, so the
one check at the door (bot/server/auth.py) covers every call and no session outlives a revoked token."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, ValidationError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.server import mcp_prompt, mcp_resources
from bot.server.errors import error_body, status_of
from bot.server.operations import Operations
from bot.server.schemas import DeleteRequest, ListRequest, ReadRequest, SaveToolRequest, SearchRequest
from core.serving.api_errors import NotAuthenticated, NotFound
from core.serving.clients import Client
from core.errors import UserFacingError

INSTRUCTIONS = (
    "The owner's personal memory: their chats, e-mail, documents and journal, kept by Biographer. Use `search` "
    "for ranked passages, `read` for the exact text at a locator (with its senders and time), `list` to see "
    "everything a filter keeps (not ranked; page with next_cursor), and `save` to keep what the owner told you "
    "(a note, preference, decision, recommendation or link) in your own section. Quote passages as they are and "
    "cite their locators; never present a search miss as a fact about the owner's life. The prompt `use_memory` "
    "holds the rules in full; the resources biographer://bio.md, biographer://timeline and "
    "biographer://people/NAME summarise the owner's life for a token that sees every section.")

Handler = Callable[[Operations, Client, Any], Awaitable[dict]]

TOOLS: dict[str, tuple[type[BaseModel], str, Handler]] = {
    "search": (SearchRequest,
               "Search the owner's memory. Returns passages (locator, text, source, time, speakers, source_hash) "
               "best first, and an outcome: matched, nothing_matched (the index is complete: nothing fits), "
               "index_building (nothing yet: try later) or unavailable. Ranked results are the best matches, never "
               "a whole list: for a question that asks for every instance or for things in the plural "
               "(exhaustive_list: true), use `list` with "
               "filters to see every passage.",
               lambda ops, client, body: ops.search(client, body)),
    "read": (ReadRequest,
             "Read the exact text at a locator from search or list, with who wrote it, when, and the source. Pass "
             "the generation or source_hash you saw to be told (an error) if the source changed since.",
             lambda ops, client, body: ops.read(client, body)),
    "list": (ListRequest,
             "List every passage a filter keeps (kind, person, since/until, section, status), oldest first, "
             "unranked, for 'show me everything' questions. Pass next_cursor to get the next page until it is null.",
             lambda ops, client, body: ops.list(client, body)),
    "save": (SaveToolRequest,
             "Keep something the owner told you: a note, preference, decision, recommendation (with who "
             "recommended it) or link (kept as an address: never fetched or read). It is readable at once by its "
             "locator; searchable once indexed. To correct a record, pass replaces and the expected_hash you read.",
             lambda ops, client, body: ops.save(client, body, idempotency_key=body.idempotency_key)),
    "delete": (DeleteRequest,
               "Delete a record you saved (by the record id save or list gave): every version of it is forgotten. "
               "Needs a token with the delete scope; records saved by others cannot be deleted.",
               lambda ops, client, body: ops.delete(client, body)),
}


def _schema(model: type[BaseModel]) -> dict:
    schema = model.model_json_schema()
    schema.pop("title", None)
    return schema


def _error(error: UserFacingError) -> types.CallToolResult:
    """A refusal as one line of text an MCP client shows: the status REST would send, then the
    same `{"error", "hint"}` body."""
    text = f"{status_of(error)}: {json.dumps(error_body(error), ensure_ascii=False)}"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _refusal(error: UserFacingError) -> MCPError:
    """A refusal outside a tool call (resources, prompts) as a JSON-RPC error whose message holds
    the status, the error and its hint, for clients that show only the message."""
    hint = f" ({error.hint})" if error.hint else ""
    return MCPError(INVALID_PARAMS, f"{status_of(error)}: {error.message}{hint}", data=error_body(error))


def _refusing(handler: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def answering(ctx, params):
        try:
            return await handler(ctx, params)
        except UserFacingError as error:
            raise _refusal(error) from None
    return answering


def _client(ctx) -> Client:
    client: Client | None = ctx.request.scope.get("state", {}).get("client") if ctx.request else None
    if client is None:  # GuardedMcp admits every request first: this is a wiring error
        raise NotAuthenticated("not authenticated", hint="send `Authorization: Bearer TOKEN`")
    return client


def build_mcp_server(operations: Operations, *, version: str) -> Server:
    schemas = {name: _schema(model) for name, (model, _, _) in TOOLS.items()}

    @_refusing
    async def list_resources(ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=mcp_resources.listed(_client(ctx)))

    @_refusing
    async def list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=mcp_resources.templates(_client(ctx)))

    @_refusing
    async def read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return types.ReadResourceResult(contents=[await mcp_resources.read(operations, _client(ctx), params.uri)])

    async def list_prompts(ctx, params) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=mcp_prompt.listed())

    @_refusing
    async def get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != mcp_prompt.NAME:
            raise NotFound(f"no prompt {params.name[:100]!r}", hint=f"use {mcp_prompt.NAME} (prompts/list)")
        return mcp_prompt.prompt(_client(ctx), (params.arguments or {}).get("question"))

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=name, description=description, input_schema=schemas[name])
            for name, (_, description, _) in TOOLS.items()])

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            client = _client(ctx)
        except UserFacingError as error:
            return _error(error)
        if params.name not in TOOLS:
            return _error(UserFacingError(f"unknown tool {params.name[:100]!r}", hint=f"use one of {', '.join(TOOLS)}"))
        model, _, handler = TOOLS[params.name]
        try:
            body = model.model_validate(params.arguments or {})
        except ValidationError as error:
            first = error.errors()[0]
            return _error(UserFacingError(f"{'.'.join(map(str, first['loc'])) or 'arguments'}: {first['msg']}",
                                          hint=f"see the input schema of `{params.name}` (tools/list)"))
        try:
            out = await handler(operations, client, body)
        except UserFacingError as error:
            return _error(error)
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(out, ensure_ascii=False))],
                                    structured_content=out, is_error=out.get("outcome") == "unavailable")

    return Server("biographer", version=version, instructions=INSTRUCTIONS,
                  get_tool_input_schema=schemas.get, on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_list_resource_templates=list_resource_templates,
                  on_read_resource=read_resource, on_list_prompts=list_prompts, on_get_prompt=get_prompt)


class WithoutStream:
    """The endpoint without the standing GET stream. Stateless and answering each POST in its body,
    this server never sends a message of its own, so a GET stream would only sit idle, held open
    for ever; the transport lets a server answer GET with 405 instead, and the SDK clients go on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            refusal = UserFacingError("this server keeps no stream open: each answer comes with its POST",
                                      hint="POST JSON-RPC requests to /mcp (Accept: application/json, "
                                           "text/event-stream)")
            response = JSONResponse(error_body(refusal), status_code=405, headers={"Allow": "POST, DELETE"})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def mcp_endpoint(server: Server, *, max_body_bytes: int) -> tuple[StreamableHTTPSessionManager, WithoutStream]:
    """The Streamable HTTP endpoint and the session manager whose run() must wrap the app's life."""
    manager = StreamableHTTPSessionManager(
        app=server, stateless=True, json_response=True, max_request_body_size=max_body_bytes,
        # DNS-rebinding protection guards servers that trust whoever reaches them; every request here
        # must carry a bearer token a page in a browser does not have, and behind a reverse proxy or
        # Tailscale the Host header is the public name, which a localhost allow-list would refuse
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    return manager, WithoutStream(StreamableHTTPASGIApp(manager))
