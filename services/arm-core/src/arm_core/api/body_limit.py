"""Small bodies stay small: every request body but an upload's multipart form (JSON of the
API, the pages' forms) is read up to a limit, and one past it is 413 before any route sees
it. Uploads have their own limit, checked as they stream to storage."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_STREAMED = b"multipart/form-data"


class BodyLimit:
    def __init__(self, app: ASGIApp, most: int) -> None:
        self.app = app
        self.most = most

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if headers.get(b"content-type", b"").lower().startswith(_STREAMED):
            await self.app(scope, receive, send)
            return
        length = headers.get(b"content-length", b"")
        if length.isdigit() and int(length) > self.most:
            await self._refuse(send)
            return
        # Without a length (chunked), the body is read here, up to the limit.
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replaying(None, receive), send)
                return
            body += message.get("body", b"")
            if len(body) > self.most:
                await self._refuse(send)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replaying(bytes(body), receive), send)

    async def _refuse(self, send: Send) -> None:
        payload = {
            "error": {
                "code": "BODY_TOO_LARGE",
                "message": f"тело запроса больше {self.most} байт",
            }
        }
        content = json.dumps(payload, ensure_ascii=False).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(content)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": content})


def _replaying(body: bytes | None, receive: Receive) -> Receive:
    """The body read once, then whatever the connection says next (a disconnect)."""
    pending = [body] if body is not None else []

    async def replay() -> Message:
        if pending:
            return {"type": "http.request", "body": pending.pop(), "more_body": False}
        return await receive()

    return replay
