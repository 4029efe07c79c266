"""Small bodies stay small: every request body but an upload's, whatever its content type
(JSON of the API, the pages' forms, a multipart form sent anywhere else), is read up to a
limit before any route sees it, and one past it is 413. Uploads, to the upload routes alone,
have their own limit, checked as they stream to storage."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arm_core.api.errors import error_response

# (method, path) of the routes that take a file: their bodies stream, bounded by
# UPLOAD_MAX_BYTES (``api.files``).
UPLOAD_ROUTES = frozenset({("POST", "/api/v1/files")})


class BodyLimit:
    def __init__(self, app: ASGIApp, most: int) -> None:
        self.app = app
        self.most = most

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (scope["method"], scope["path"]) in UPLOAD_ROUTES:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length", b"")
        if length.isdigit() and int(length) > self.most:
            await self._refuse(scope, receive, send)
            return
        # Whatever the method or the length says (a GET with a body, a chunked body, a
        # length that lies), the body is read here, up to the limit.
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
