"""Who is acting, resolved once per request before any route runs:

* OpenID Connect (``OIDC_ISSUER``): a bearer token signed by the issuer;
* behind an authenticating proxy (``AUTH_USER_HEADER``): the login, roles and teams it passes,
  taken only from a peer in ``AUTH_TRUSTED_PROXIES`` (the socket's own address: no forwarded
  header is read anywhere; with none named, in development only, from loopback);
* neither (development only, see ``CoreSettings.refusal``): the development identity, an admin.

No route but ``/healthcheck`` answers without one; ``/metrics`` answers to its own token
instead, when one is set. A user with no role of ours is refused everything but signing out.
"""

from __future__ import annotations

import hmac
import ipaddress
from urllib.parse import quote

from starlette.requests import cookie_parser
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from arm_core.api.errors import error_response
from arm_core.audit.refusals import note_refusal
from arm_core.auth.oidc import Issuer, IssuerUnavailable, TokenRefused
from arm_core.auth.principal import Principal, Role, claim, header_names, names
from arm_core.auth.sessions import find_session
from arm_core.settings import CoreSettings
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

OPEN_PATHS = frozenset({"/healthcheck"})
# Open with OpenID Connect on: the way in.
SIGN_IN_PATHS = frozenset({"/auth/login", "/auth/callback"})
# What a signed-in user with no role may still do: leave, and load the page's styles.
ROLELESS_PATHS = frozenset({"/auth/logout"})
ROLELESS_PREFIXES = ("/static/",)
PRINCIPAL = "principal"
# How the principal was proven: "bearer", "session", "proxy" or "development".
VIA = "via"
# The session's CSRF token, which its state-changing requests must carry.
CSRF = "csrf"
SESSION_COOKIE = "arm_session"
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
    if not _trusted(settings, client):
        raise Unauthenticated("запрос пришёл не через доверенный прокси")
    user = headers.get(settings.auth_user_header.lower(), "").strip()
    if not user:
        raise Unauthenticated("пользователь не определён")
    roles = (
        header_names(headers.get(settings.auth_roles_header.lower(), ""))
        if settings.auth_roles_header
        else settings.auth_default_roles
    )
    teams = (
        header_names(headers.get(settings.auth_teams_header.lower(), ""))
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
        names(claim(claims, settings.oidc_roles_claim), what=settings.oidc_roles_claim),
        names(claim(claims, settings.oidc_teams_claim), what=settings.oidc_teams_claim),
    )


def _trusted(settings: CoreSettings, client: str | None) -> bool:
    """Whether the peer (the socket's address) is a proxy allowed to name the user. With no
    proxies named (allowed in development only, see ``CoreSettings.refusal``), a peer on
    loopback is."""
    if client is None:
        return False
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    if not settings.auth_trusted_proxies:
        return address.is_loopback
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
        if self.settings.auth_mode == "oidc" and scope["path"] in SIGN_IN_PATHS:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if scope["path"] == METRICS_PATH and self.settings.metrics_token is not None:
            if _metrics_token_ok(self.settings, headers):
                await self.app(scope, receive, send)
                return
            await error_response(401, "UNAUTHENTICATED", "нужен токен метрик")(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        try:
            principal = await self._resolve(scope, headers, state)
        except Unauthenticated as exc:
            if _page_visit(scope, headers) and self.settings.auth_mode == "oidc":
                # An analyst opening a page is sent to sign in, and brought back after.
                path = scope["path"] + (
                    "?" + scope["query_string"].decode("latin-1") if scope["query_string"] else ""
                )
                target = "/auth/login?next=" + quote(path, safe="")
                await RedirectResponse(target, status_code=303)(scope, receive, send)
                return
            runtime = scope["app"].state.runtime
            client = scope.get("client")
            await note_refusal(
                runtime.pool,
                runtime.rate_limits,
                actor=None,
                outcome="UNAUTHENTICATED",
                method=scope["method"],
                path=scope["path"],
                client=client[0] if client else None,
            )
            await error_response(401, "UNAUTHENTICATED", exc.message)(scope, receive, send)
            return
        except IssuerUnavailable as exc:
            log.warning("oidc_issuer_unavailable", error=str(exc))
            await error_response(503, "AUTH_UNAVAILABLE", "сервер входа недоступен")(
                scope, receive, send
            )
            return
        if not principal.has_role and not _open_to_the_roleless(scope["path"]):
            await _refuse_roleless(scope, receive, send, principal)
            return
        # Resolved once: the routes read it as ``request.state.principal``.
        state[PRINCIPAL] = principal
        await self.app(scope, receive, send)

    async def _resolve(
        self, scope: Scope, headers: dict[str, str], state: dict[str, object]
    ) -> Principal:
        settings = self.settings
        if settings.auth_mode == "off":
            state[VIA] = "development"
            return development_principal(settings)
        if settings.auth_mode == "proxy":
            client = scope.get("client")
            state[VIA] = "proxy"
            return proxy_principal(settings, headers, client[0] if client else None)
        runtime = scope["app"].state.runtime
        token = _bearer(headers)
        if token is None:
            cookie = cookie_parser(headers.get("cookie", "")).get(SESSION_COOKIE)
            session = await find_session(runtime.pool, cookie) if cookie else None
            if session is None:
                raise Unauthenticated("нужен вход: сессия или токен Bearer")
            state[VIA], state[CSRF] = "session", session.csrf_token
            return session.principal
        state[VIA] = "bearer"
        issuer: Issuer = runtime.issuer
        try:
            claims = await issuer.verify(token)
        except TokenRefused as exc:
            log.info("token_refused", reason=exc.message, path=scope["path"])
            raise Unauthenticated(exc.message) from None
        return token_principal(settings, claims)


def _open_to_the_roleless(path: str) -> bool:
    return path in ROLELESS_PATHS or path.startswith(ROLELESS_PREFIXES)


async def _refuse_roleless(
    scope: Scope, receive: Receive, send: Send, principal: Principal
) -> None:
    runtime = scope["app"].state.runtime
    client = scope.get("client")
    await note_refusal(
        runtime.pool,
        runtime.rate_limits,
        actor=principal.user,
        outcome="NO_ROLE",
        method=scope["method"],
        path=scope["path"],
        client=client[0] if client else None,
    )
    await error_response(
        403, "FORBIDDEN", "у пользователя нет роли в АРМ КА: обратитесь к администратору"
    )(scope, receive, send)


def _page_visit(scope: Scope, headers: dict[str, str]) -> bool:
    """A page the browser opens itself (not a fragment a page fetches, nor its event stream):
    worth a redirect to the sign-in."""
    path: str = scope["path"]
    if scope["method"] != "GET" or "hx-request" in headers or path == "/ui/events":
        return False
    return path in ("/", "/ui") or path.startswith("/ui/")
