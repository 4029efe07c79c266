"""Small bodies stay small: every request body but an upload's multipart form (JSON of the
API, the pages' forms) is read up to a limit, and one past it is 413 before any route sees
it. Uploads have their own limit, checked as they stream to storage."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arm_core.api.errors import error_response

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
            await self._refuse(scope, receive, send)
            return
        # Without a length (chunked), the body is read here, up to the limit.
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replaying(message, receive), send)
                return
            body += message.get("body", b"")
            if len(body) > self.most:
                await self._refuse(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        whole: Message = {"type": "http.request", "body": bytes(body), "more_body": False}
        await self.app(scope, _replaying(whole, receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(413, "BODY_TOO_LARGE", f"тело запроса больше {self.most} байт")
        await response(scope, receive, send)


def _replaying(first: Message, receive: Receive) -> Receive:
    """``first`` (the body read whole, or the disconnect that cut it), then whatever the
    connection says next."""
    pending = [first]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay
