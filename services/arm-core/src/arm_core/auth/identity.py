"""Who is acting, resolved once per request before any route runs:

* OpenID Connect (``OIDC_ISSUER``): a bearer token signed by the issuer;
* behind an authenticating proxy (``AUTH_USER_HEADER``): the login, roles and teams it passes,
  taken only from the proxies in ``AUTH_TRUSTED_PROXIES`` when those are set;
* neither (development only, see ``CoreSettings.refusal``): the development identity, an admin.

No route but ``/healthcheck`` answers without one; ``/metrics`` answers to its own token
instead, when one is set.
"""

from __future__ import annotations

import hmac
import ipaddress

from starlette.types import ASGIApp, Receive, Scope, Send

from arm_core.api.errors import error_response
from arm_core.auth.oidc import Issuer, IssuerUnavailable, TokenRefused
from arm_core.auth.principal import Principal, Role, claim, names
from arm_core.settings import CoreSettings
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

OPEN_PATHS = frozenset({"/healthcheck"})
PRINCIPAL = "principal"
METRICS_PATH = "/metrics"


class Unauthenticated(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def development_principal(settings: CoreSettings) -> Principal:
    return Principal(user=settings.dev_user, roles=frozenset({Role.ADMIN}))


def proxy_principal(
    settings: CoreSettings, headers: dict[str, str], client: str | None
) -> Principal:
    """The user the trusted proxy names (``headers`` with lower-case names; ``client``: the
    peer's address), or ``Unauthenticated``."""
    assert settings.auth_user_header is not None
    if settings.auth_trusted_proxies and not _trusted(settings, client):
        raise Unauthenticated("запрос пришёл не через доверенный прокси")
    user = headers.get(settings.auth_user_header.lower(), "").strip()
    if not user:
        raise Unauthenticated("пользователь не определён")
    roles = (
        names(headers.get(settings.auth_roles_header.lower(), ""))
        if settings.auth_roles_header
        else settings.auth_default_roles
    )
    teams = (
        names(headers.get(settings.auth_teams_header.lower(), ""))
        if settings.auth_teams_header
        else []
    )
    return Principal.of(user, roles, teams)


def token_principal(settings: CoreSettings, claims: dict[str, object]) -> Principal:
    user = claim(claims, settings.oidc_user_claim) or claims.get("sub")
    if not isinstance(user, str) or not user.strip():
        raise Unauthenticated("в токене нет имени пользователя")
    return Principal.of(
        user.strip(),
        names(claim(claims, settings.oidc_roles_claim)),
        names(claim(claims, settings.oidc_teams_claim)),
    )


def _trusted(settings: CoreSettings, client: str | None) -> bool:
    if client is None:
        return False
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(net) for net in settings.auth_trusted_proxies)


def _bearer(headers: dict[str, str]) -> str | None:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _metrics_token_ok(settings: CoreSettings, headers: dict[str, str]) -> bool:
    token = settings.metrics_token
    given = _bearer(headers)
    if token is None or given is None:
        return False
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
        try:
            principal = await self._resolve(scope, headers)
        except Unauthenticated as exc:
            await error_response(401, "UNAUTHENTICATED", exc.message)(scope, receive, send)
            return
        except IssuerUnavailable as exc:
            log.warning("oidc_issuer_unavailable", error=str(exc))
            await error_response(503, "AUTH_UNAVAILABLE", "сервер входа недоступен")(
                scope, receive, send
            )
            return
        # Resolved once: the routes read it as ``request.state.principal``.
        scope.setdefault("state", {})[PRINCIPAL] = principal
        await self.app(scope, receive, send)

    async def _resolve(self, scope: Scope, headers: dict[str, str]) -> Principal:
        settings = self.settings
        if settings.auth_mode == "off":
            return development_principal(settings)
        if settings.auth_mode == "proxy":
            client = scope.get("client")
            return proxy_principal(settings, headers, client[0] if client else None)
        token = _bearer(headers)
        if token is None:
            raise Unauthenticated("нужен вход: токен Bearer")
        issuer: Issuer = scope["app"].state.runtime.issuer
        try:
            claims = await issuer.verify(token)
        except TokenRefused as exc:
            log.info("token_refused", reason=exc.message, path=scope["path"])
            raise Unauthenticated(exc.message) from None
        return token_principal(settings, claims)
