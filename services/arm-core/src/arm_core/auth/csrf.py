"""Cross-site request forgery: a state-changing request (POST, PUT, PATCH, DELETE) is refused
with 403 CSRF_REFUSED when

* it names another origin (``Origin``, or ``Referer`` where a browser sent no ``Origin``), or
* it rides on a session cookie without the session's CSRF token (header ``X-CSRF-Token``, or
  form field ``csrf_token`` of an url-encoded form).

A bearer token is no ambient credential, so bearer requests are exempt. Behind a proxy there
is no session of ours: the origin check is what stands.
"""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs, urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arm_core.api.errors import error_response
from arm_core.audit.refusals import note_refusal
from arm_core.auth.identity import CSRF, PRINCIPAL, VIA
from arm_core.settings import CoreSettings

UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Names, not secrets.
TOKEN_HEADER = "x-csrf-token"  # noqa: S105
TOKEN_FIELD = "csrf_token"  # noqa: S105


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}".lower()


def own_origin(settings: CoreSettings, scope: Scope, headers: dict[str, str]) -> str:
    if settings.public_url:
        return _origin(settings.public_url) or ""
    return f"{scope.get('scheme', 'http')}://{headers.get('host', '')}".lower()


class RequireSameSite:
    def __init__(self, app: ASGIApp, settings: CoreSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope.get("state") or {}
        if scope["type"] != "http" or scope["method"] not in UNSAFE or state.get(VIA) == "bearer":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        claimed = headers.get("origin") or (
            _origin(headers["referer"]) if "referer" in headers else None
        )
        if claimed is not None and claimed.lower() != own_origin(self.settings, scope, headers):
            await _refuse(scope, receive, send, "запрос пришёл с другого сайта")
            return
        expected = state.get(CSRF)
        if expected is not None:
            given = headers.get(TOKEN_HEADER)
            if given is None and headers.get("content-type", "").startswith(
                "application/x-www-form-urlencoded"
            ):
                body = await _whole_body(receive)
                given = next(iter(parse_qs(body.decode("latin-1")).get(TOKEN_FIELD, [])), None)
                receive = _replay(body)
            if not given or not hmac.compare_digest(given.encode(), str(expected).encode()):
                await _refuse(scope, receive, send, "нет токена CSRF сессии: обновите страницу")
                return
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, receive: Receive, send: Send, message: str) -> None:
    runtime = scope["app"].state.runtime
    principal = (scope.get("state") or {}).get(PRINCIPAL)
    client = scope.get("client")
    await note_refusal(
        runtime.pool,
        runtime.rate_limits,
        actor=principal.user if principal is not None else None,
        outcome="CSRF_REFUSED",
        method=scope["method"],
        path=scope["path"],
        client=client[0] if client else None,
    )
    await error_response(403, "CSRF_REFUSED", message)(scope, receive, send)


async def _whole_body(receive: Receive) -> bytes:
    """The form's body; its size is bounded by the body limit outside this middleware."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive
