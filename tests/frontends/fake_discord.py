"""A small Discord on 127.0.0.1: the REST API and the gateway websocket, so the real discord.py
Client and CommandTree run against it (login, IDENTIFY, READY, MESSAGE_CREATE, INTERACTION_CREATE,
replies, interaction callbacks and follow-ups), and the test sees everything the bot sent.

discord.py builds every REST URL from `discord.http.Route.BASE` (webhooks and interaction callbacks
included) and connects to `DiscordWebSocket.DEFAULT_GATEWAY`: pointing those two class attributes
here is all the wiring a test needs.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.frontends.waiting import wait_until

APPLICATION_ID = 555000
BOT_USER = {"id": str(APPLICATION_ID), "username": "biographer", "discriminator": "0", "global_name": "Biographer",
            "avatar": None, "bot": True}
_ids = itertools.count(900_000_000)


def _json(data: Any, *, status: int = 200) -> web.Response:
    """JSON as Discord sends it: discord.py checks for exactly `application/json` (no charset)."""
    return web.Response(body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"})


def snowflake() -> str:
    return str(next(_ids))


def user(user_id: int, name: str) -> dict:
    return {"id": str(user_id), "username": name.lower(), "discriminator": "0", "global_name": name, "avatar": None}


@dataclass
class Sent:
    method: str
    path: str
    body: dict
    files: dict[str, bytes] = field(default_factory=dict)
    response: Any = None  # what the fake answered (a sent message carries its id)

    @property
    def content(self) -> str:
        return self.body.get("content") or (self.body.get("data") or {}).get("content") or ""


class FakeDiscord:
    def __init__(self, token: str = "discord-test-token") -> None:
        self.token = token
        self.sent: list[Sent] = []
        self.commands: list[dict] = []
        self._socket: web.WebSocketResponse | None = None
        self._sequence = 0
        self._ready = asyncio.Event()
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.url = ""

    # ---------------------------------------------------------------- server

    async def __aenter__(self) -> FakeDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._socket is not None:
            await self._socket.close()
        await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self):
        import yarl

        return yarl.URL(f"{self.url.replace('http', 'ws')}/gateway")

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._socket = socket
        await socket.send_json({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
        async for frame in socket:
            if frame.type != WSMsgType.TEXT:
                continue
            payload = json.loads(frame.data)
            if payload["op"] == 1:  # heartbeat
                await socket.send_json({"op": 11, "d": None, "s": None, "t": None})
            elif payload["op"] == 2:  # IDENTIFY
                if payload["d"]["token"] != self.token:
                    await socket.close(code=4004, message=b"Authentication failed.")
                    break
                await self.dispatch("READY", {
                    "v": 10, "user": BOT_USER, "guilds": [], "session_id": "fake-session",
                    "resume_gateway_url": f"{self.url.replace('http', 'ws')}/gateway", "shard": [0, 1],
                    "application": {"id": str(APPLICATION_ID), "flags": 0}})
                self._ready.set()
        return socket

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["path"]
        if request.headers.get("Authorization") != f"Bot {self.token}" and not path.startswith(
                ("/interactions/", "/webhooks/")):
            return _json({"message": "401: Unauthorized", "code": 0}, status=401)
        body, files = await self._body(request)
        record = Sent(request.method, path, body, files)
        response = record.response = await self._answer(request.method, path, body)
        async with self._changed:
            self.sent.append(record)
            self._changed.notify_all()
        return _json(response) if response is not None else web.Response(status=204)

    async def _body(self, request: web.Request) -> tuple[dict, dict[str, bytes]]:
        if not request.can_read_body:
            return {}, {}
        if request.content_type.startswith("multipart/"):
            body, files = {}, {}
            async for part in await request.multipart():
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                else:
                    files[part.filename or part.name] = await part.read()
            return body, files
        text = await request.text()
        return (json.loads(text) if text else {}), {}

    async def _answer(self, method: str, path: str, body: dict) -> Any:
        """The JSON Discord would answer (None: 204 No Content)."""
        parts = path.strip("/").split("/")
        ws_url = f"{self.url.replace('http', 'ws')}/gateway"
        if path == "/users/@me":
            return BOT_USER
        if path == "/oauth2/applications/@me":
            return {"id": str(APPLICATION_ID), "name": "Biographer", "description": "", "icon": None,
                    "bot_public": False, "bot_require_code_grant": False, "owner": user(1, "Developer"),
                    "verify_key": "0" * 64, "flags": 0}
        if path == "/gateway/bot":
            return {"url": ws_url, "shards": 1, "session_start_limit": {
                "total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}}
        if parts[0] == "applications" and parts[-1] == "commands" and method == "PUT":
            self.commands = [{**c, "id": snowflake(), "application_id": str(APPLICATION_ID), "version": "1"}
                             for c in body]
            return self.commands
        if path == "/users/@me/channels":
            recipient = body["recipient_id"]
            return {"id": recipient, "type": 1, "recipients": [user(int(recipient), "Owner")]}
        if parts[0] == "users":
            return user(int(parts[1]), "Someone")
        if parts[0] == "channels" and parts[-1] == "typing":
            return None
        if parts[0] == "channels" and parts[-1] == "messages" and method == "POST":
            return self.message(channel_id=parts[1], author=BOT_USER, **body)
        if parts[0] == "channels" and method == "PATCH":
            return self.message(channel_id=parts[1], author=BOT_USER, id=parts[3], **body)
        if parts[0] == "interactions":
            kind = body.get("type")
            ephemeral = bool((body.get("data") or {}).get("flags", 0) & 64)
            return {"interaction": {"id": parts[1], "type": 2, "response_message_loading": kind == 5,
                                    "response_message_ephemeral": ephemeral},
                    "resource": {"type": kind}}
        if parts[0] == "webhooks":
            return self.message(channel_id="0", author=BOT_USER, **body)
        return {}

    # ---------------------------------------------------------------- scripting

    def message(self, *, channel_id: str, author: dict, content: str | None = "", **fields: Any) -> dict:
        data = {"id": fields.pop("id", None) or snowflake(), "channel_id": str(channel_id), "author": author,
                "content": content or "", "timestamp": "2024-05-06T10:00:00+00:00", "edited_timestamp": None,
                "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [],
                "embeds": [], "pinned": False, "type": 0}
        for key in ("guild_id", "attachments", "message_reference", "flags", "components"):
            if key in fields:
                data[key] = fields[key]
        # a sent attachment comes back as Discord stores it
        data["attachments"] = [{"size": 0, "url": f"https://cdn.invalid/{a.get('filename')}",
                                "proxy_url": f"https://cdn.invalid/{a.get('filename')}", **a,
                                "id": str(a.get("id") or snowflake())} for a in data["attachments"]]
        return data

    async def dispatch(self, event: str, data: dict) -> None:
        self._sequence += 1
        await self._socket.send_json({"op": 0, "t": event, "s": self._sequence, "d": data})

    async def ready(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(self._ready.wait(), timeout)

    async def direct_message(self, author: dict, content: str, **fields: Any) -> dict:
        """A message to the bot in a DM (the DM channel's id is the author's id here)."""
        message = self.message(channel_id=author["id"], author=author, content=content, **fields)
        await self.dispatch("MESSAGE_CREATE", message)
        return message

    async def slash(self, author: dict, name: str, *, guild_id: str | None = None,
                    private_channel: bool = False, **options: Any) -> dict:
        """A slash command: in the bot's DM, in a server channel (`guild_id`), or in a DM between
        other people where the app is user-installed (`private_channel`)."""
        command = next(c for c in self.commands if c["name"] == name)
        interaction = {
            "id": snowflake(), "application_id": str(APPLICATION_ID), "type": 2, "token": f"tok-{snowflake()}",
            "version": 1, "locale": "en-US", "app_permissions": "0", "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "authorizing_integration_owners": {"0" if guild_id else "1": guild_id or author["id"]},
            "data": {"id": command["id"], "name": name, "type": 1,
                     "options": [{"name": k, "type": 4 if isinstance(v, int) else 3, "value": v}
                                 for k, v in options.items()]},
        }
        if guild_id:
            interaction.update(guild_id=guild_id, channel_id="7777", context=0,
                               channel={"id": "7777", "type": 0, "guild_id": guild_id, "name": "general", "position": 0,
                                        "permission_overwrites": [], "nsfw": False, "parent_id": None,
                                        "topic": None, "rate_limit_per_user": 0, "last_message_id": None},
                               member={"user": author, "roles": [], "joined_at": "2024-01-01T00:00:00+00:00",
                                       "deaf": False, "mute": False, "flags": 0, "permissions": "0"})
        else:
            channel_id = "8888" if private_channel else author["id"]
            interaction.update(channel_id=channel_id, context=2 if private_channel else 1, user=author,
                               channel={"id": channel_id, "type": 1})
        await self.dispatch("INTERACTION_CREATE", interaction)
        return interaction

    async def press(self, author: dict, message: Sent, label: str) -> None:
        """Click a button of a message the bot sent."""
        rows = message.body.get("components") or []
        button = next(b for row in rows for b in row["components"] if b.get("label") == label)
        await self.dispatch("INTERACTION_CREATE", {
            "id": snowflake(), "application_id": str(APPLICATION_ID), "type": 3, "token": f"tok-{snowflake()}",
            "version": 1, "locale": "en-US", "app_permissions": "0", "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024, "context": 1,
            "authorizing_integration_owners": {"1": author["id"]}, "channel_id": author["id"],
            "channel": {"id": author["id"], "type": 1}, "user": author,
            "message": self.message(channel_id=author["id"], author=BOT_USER, id=message.response["id"],
                                    content=message.content, components=rows),
            "data": {"custom_id": button["custom_id"], "component_type": 2}})

    def replies(self) -> list[Sent]:
        """What the bot said: messages, interaction responses and follow-ups, in order."""
        return [s for s in self.sent if s.method in ("POST", "PATCH") and (
            s.path.endswith("/messages") or s.path.startswith(("/webhooks/", "/interactions/"))
            or "/messages/" in s.path)]

    def texts(self) -> list[str]:
        return [s.content for s in self.replies() if s.content]

    async def wait_for(self, condition: Callable[[], Any], *, timeout: float = 15.0) -> Any:
        return await wait_until(self._changed, condition, timeout=timeout, so_far=lambda: (
            f"sent so far: {[(s.method, s.path, s.body) for s in self.sent]}"))
