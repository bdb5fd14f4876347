"""A small Telegram Bot API server on 127.0.0.1 that records what the bot sends and feeds it updates.

It speaks the real protocol (form or multipart POSTs to /bot<token>/<method>, JSON replies, file
downloads from /file/bot<token>/<path>), so the real python-telegram-bot Application runs against it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.frontends.waiting import wait_until

BOT_USER = {"id": 999000, "is_bot": True, "first_name": "Biographer", "username": "test_biographer_bot"}


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    files: dict[str, bytes] = field(default_factory=dict)


class FakeTelegram:
    def __init__(self, token: str = "123456:TEST-TOKEN") -> None:
        self.token = token
        self.calls: list[Call] = []
        self.files: dict[str, tuple[str, bytes]] = {}  # file_id -> (file_path, content)
        self._updates: list[dict] = []
        self._next_update = 1
        self._next_message = 1000
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.url = ""

    # ---------------------------------------------------------------- server

    async def __aenter__(self) -> FakeTelegram:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/bot{token}/{method}", self._api)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._runner.cleanup()

    async def _api(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401)
        method = request.match_info["method"]
        params: dict[str, Any] = {}
        files: dict[str, bytes] = {}
        if request.can_read_body:
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    files[key] = value.file.read()
                    params[key] = value.filename
                else:
                    params[key] = _decode(value)
        handler = getattr(self, f"_m_{method}", None)
        if method != "getUpdates":
            async with self._changed:
                self.calls.append(Call(method, params, files))
                self._changed.notify_all()
        if handler is None:
            return web.json_response({"ok": True, "result": True})
        result = await handler(params) if asyncio.iscoroutinefunction(handler) else handler(params)
        return web.json_response({"ok": True, "result": result})

    async def _download(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        for file_path, content in self.files.values():
            if file_path == path:
                return web.Response(body=content)
        return web.Response(status=404)

    # ---------------------------------------------------------------- Bot API methods

    def _m_getMe(self, params: dict) -> dict:
        return {**BOT_USER, "can_join_groups": False, "can_read_all_group_messages": False,
                "supports_inline_queries": False}

    async def _m_getUpdates(self, params: dict) -> list[dict]:
        offset = int(params.get("offset") or 0)
        deadline = time.monotonic() + min(float(params.get("timeout") or 0), 1.0)
        async with self._changed:
            # like Telegram: an offset confirms every earlier update, which is then forgotten
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
            while True:
                ready = [u for u in self._updates if u["update_id"] >= offset]
                remaining = deadline - time.monotonic()
                if ready or remaining <= 0:
                    return ready
                try:
                    await asyncio.wait_for(self._changed.wait(), remaining)
                except TimeoutError:
                    pass

    def _message(self, chat_id: int, **fields: Any) -> dict:
        self._next_message += 1
        return {"message_id": self._next_message, "date": int(time.time()),
                "chat": {"id": int(chat_id), "type": "private"}, "from": BOT_USER, **fields}

    def _m_sendMessage(self, params: dict) -> dict:
        return self._message(params["chat_id"], text=params["text"])

    def _m_editMessageText(self, params: dict) -> dict:
        return {"message_id": int(params["message_id"]), "date": int(time.time()),
                "chat": {"id": int(params["chat_id"]), "type": "private"}, "from": BOT_USER,
                "text": params["text"], "edit_date": int(time.time())}

    def _m_sendDocument(self, params: dict) -> dict:
        return self._message(params["chat_id"], document={"file_id": f"sent-{self._next_message}",
                                                           "file_unique_id": f"u{self._next_message}",
                                                           "file_name": params.get("document", "file")})

    def _m_sendPhoto(self, params: dict) -> dict:
        sizes = [{"file_id": f"photo-{self._next_message}", "file_unique_id": f"p{self._next_message}",
                  "width": 1080, "height": 1350}]
        return self._message(params["chat_id"], photo=sizes,
                             **({"caption": params["caption"]} if params.get("caption") else {}))

    def _m_getFile(self, params: dict) -> dict:
        file_id = params["file_id"]
        file_path, content = self.files[file_id]
        return {"file_id": file_id, "file_unique_id": f"u-{file_id}", "file_size": len(content),
                "file_path": file_path}

    # ---------------------------------------------------------------- scripting

    def add_file(self, file_id: str, file_path: str, content: bytes) -> None:
        self.files[file_id] = (file_path, content)

    async def push(self, *, user: dict, chat_type: str = "private", **fields: Any) -> dict:
        """Queue an incoming message from `user` (a Bot API User dict); returns the message."""
        self._next_message += 1
        message = {"message_id": self._next_message, "date": fields.pop("date", int(time.time())),
                   "chat": {"id": user["id"], "type": chat_type, "first_name": user["first_name"]},
                   "from": user, **fields}
        await self._queue({"message": message})
        return message

    async def push_edit(self, *, user: dict, message: dict, **fields: Any) -> dict:
        """The owner edits an earlier message (a new caption, say): Telegram sends `edited_message`."""
        edited = {**message, **fields, "edit_date": int(time.time())}
        await self._queue({"edited_message": edited})
        return edited

    async def push_callback(self, *, user: dict, data: str, message: dict) -> None:
        await self._queue({"callback_query": {"id": f"cb{self._next_update}", "from": user,
                                              "chat_instance": "1", "data": data, "message": message}})

    # ---------------------------------------------------------------- Telegram Business

    async def push_business_connection(self, *, user: dict, connection_id: str, enabled: bool = True,
                                       rights: dict | None = None) -> None:
        """`user` connects the bot in Settings → Telegram Business → Chatbots (or disconnects it)."""
        await self._queue({"business_connection": {
            "id": connection_id, "user": user, "user_chat_id": user["id"], "date": int(time.time()),
            "is_enabled": enabled, **({"rights": rights} if rights is not None else {})}})

    def _business_chat(self, contact: dict) -> dict:
        return {"id": contact["id"], "type": "private", "first_name": contact["first_name"],
                **({"last_name": contact["last_name"]} if contact.get("last_name") else {})}

    async def push_business_message(self, *, connection_id: str, contact: dict, sender: dict,
                                    **fields: Any) -> dict:
        """A message in the connected account's private chat with `contact`, written by `sender`
        (the contact or the account itself)."""
        self._next_message += 1
        message = {"message_id": self._next_message, "date": fields.pop("date", int(time.time())),
                   "chat": self._business_chat(contact), "from": sender,
                   "business_connection_id": connection_id, **fields}
        await self._queue({"business_message": message})
        return message

    async def push_edited_business_message(self, *, message: dict, **fields: Any) -> dict:
        edited = {**message, **fields, "edit_date": int(time.time())}
        await self._queue({"edited_business_message": edited})
        return edited

    async def push_deleted_business_messages(self, *, connection_id: str, contact: dict,
                                             message_ids: list[int]) -> None:
        await self._queue({"deleted_business_messages": {
            "business_connection_id": connection_id, "chat": self._business_chat(contact),
            "message_ids": message_ids}})

    async def _queue(self, update: dict) -> None:
        async with self._changed:
            self._updates.append({"update_id": self._next_update, **update})
            self._next_update += 1
            self._changed.notify_all()

    def sent(self, method: str = "sendMessage") -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def texts(self, method: str = "sendMessage") -> list[str]:
        return [c.params.get("text", "") for c in self.sent(method)]

    async def wait_for(self, condition: Callable[[], Any], *, timeout: float = 15.0) -> Any:
        """Wait until `condition()` is truthy (checked whenever the bot calls the API)."""
        return await wait_until(self._changed, condition, timeout=timeout, so_far=lambda: (
            f"calls so far: {[(c.method, c.params) for c in self.calls]}"))


def _decode(value: str) -> Any:
    """PTB sends JSON-typed parameters (reply_markup, commands) as JSON text."""
    if value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
