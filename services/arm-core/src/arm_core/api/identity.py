"""Who is acting: the login an authenticating proxy passes in ``AUTH_USER_HEADER`` (only from
the proxies in ``AUTH_TRUSTED_PROXIES``, when those are set), or the development identity
when authentication is off. With it on, no route but ``/healthcheck`` answers without one;
``/metrics`` answers to its own token instead, when one is set."""

from __future__ import annotations

import hmac
import ipaddress

from starlette.types import ASGIApp, Receive, Scope, Send

from arm_core.api.errors import error_response
from arm_core.settings import CoreSettings

OPEN_PATHS = frozenset({"/healthcheck"})
ACTOR = "actor"
METRICS_PATH = "/metrics"


class Unauthenticated(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def identity(settings: CoreSettings, headers: dict[str, str], client: str | None) -> str:
    """The acting user (``headers`` with lower-case names; ``client``: the peer's address),
    or ``Unauthenticated``."""
    if settings.auth_user_header is None:
        return settings.dev_user
    if settings.auth_trusted_proxies and not _trusted(settings, client):
        raise Unauthenticated("запрос пришёл не через доверенный прокси")
    user = headers.get(settings.auth_user_header.lower(), "").strip()
    if not user:
        raise Unauthenticated("пользователь не определён")
    return user[:200]


def _trusted(settings: CoreSettings, client: str | None) -> bool:
    if client is None:
        return False
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(net) for net in settings.auth_trusted_proxies)


def _metrics_token_ok(settings: CoreSettings, headers: dict[str, str]) -> bool:
    token = settings.metrics_token
    if token is None:
        return False
    given = headers.get("authorization", "").removeprefix("Bearer ").strip()
    return hmac.compare_digest(given.encode(), token.get_secret_value().encode())


class RequireIdentity:
    """Refuses, with 401 before any route runs, a request without an identity (or, on
    ``/metrics`` with a token set, without the token)."""

    def __init__(self, app: ASGIApp, settings: CoreSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if scope["path"] == METRICS_PATH and self.settings.metrics_token is not None:
            if _metrics_token_ok(self.settings, headers):
                await self.app(scope, receive, send)
                return
            await error_response(401, "UNAUTHENTICATED", "нужен токен метрик")(scope, receive, send)
            return
        client = scope.get("client")
        try:
            actor = identity(self.settings, headers, client[0] if client else None)
        except Unauthenticated as exc:
            await error_response(401, "UNAUTHENTICATED", exc.message)(scope, receive, send)
            return
        # Resolved once: the routes read it as ``request.state.actor``.
        scope.setdefault("state", {})[ACTOR] = actor
        await self.app(scope, receive, send)
