"""``/auth``: signing in to the pages through the issuer (authorization code with PKCE), and
signing out. The session lives server-side; the browser holds only its random token in an
HttpOnly, SameSite cookie."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from arm_core.api.deps import runtime_of
from arm_core.api.errors import ApiError
from arm_core.auth.identity import SESSION_COOKIE, token_principal
from arm_core.auth.oidc import Issuer, TokenRefused
from arm_core.auth.sessions import (
    LOGIN_MINUTES,
    OtherBrowser,
    begin_login,
    close_session,
    open_session,
    pkce_challenge,
    take_login,
)
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

router = APIRouter(prefix="/auth", include_in_schema=False)

HOME = "/ui/consolidations"
# The starting browser's value of a login under way; sent back to the callback alone.
LOGIN_COOKIE = "arm_login"
CALLBACK = "/auth/callback"


def base_url(request: Request) -> str:
    public = runtime_of(request).settings.public_url
    if public:
        return public.rstrip("/")
    return f"{request.url.scheme}://{request.url.netloc}"


def safe_next(value: str | None) -> str:
    """Only a path of this site: never ``//elsewhere`` or a full URL (an open redirect)."""
    if not value or not value.startswith("/") or value.startswith(("//", "/\\")):
        return HOME
    return value


def _issuer(request: Request) -> Issuer:
    issuer = runtime_of(request).issuer
    if issuer is None:
        raise ApiError(404, "NOT_FOUND", "вход через OpenID Connect не настроен")
    return issuer


@router.get("/login")
async def login(request: Request, next: str | None = None) -> RedirectResponse:
    issuer = _issuer(request)
    runtime = runtime_of(request)
    start = await begin_login(runtime.pool, safe_next(next))
    target = await issuer.authorization_url(
        redirect_uri=f"{base_url(request)}{CALLBACK}",
        scopes=runtime.settings.oidc_scopes,
        state=start.state,
        nonce=start.nonce,
        challenge=pkce_challenge(start.verifier),
    )
    response = RedirectResponse(target, status_code=303)
    # Lax: sent on the issuer's top-level redirect back to the callback, never on a request
    # another site makes in the background.
    response.set_cookie(
        LOGIN_COOKIE,
        start.browser,
        max_age=LOGIN_MINUTES * 60,
        path=CALLBACK,
        secure=runtime.settings.session_cookie_secure,
        httponly=True,
        samesite="lax",
    )
    return response


@router.get("/callback")
async def callback(
    request: Request, code: str | None = None, state: str | None = None, error: str | None = None
) -> RedirectResponse:
    issuer = _issuer(request)
    runtime = runtime_of(request)
    settings = runtime.settings
    if error is not None or not code or not state:
        log.info("sign_in_refused", reason=(error or "no code")[:100])
        raise ApiError(401, "UNAUTHENTICATED", "сервер входа не подтвердил вход")
    try:
        underway = await take_login(runtime.pool, state, request.cookies.get(LOGIN_COOKIE))
    except OtherBrowser:
        # A 403: the trail records the refusal with its code (``api.errors``).
        raise ApiError(
            403, "LOGIN_OTHER_BROWSER", "вход начат в другом браузере; войдите здесь заново"
        ) from None
    if underway is None:
        raise ApiError(400, "LOGIN_EXPIRED", "вход устарел или уже завершён; войдите снова")
    secret = settings.oidc_client_secret
    try:
        claims = await issuer.redeem(
            code,
            verifier=underway.verifier,
            redirect_uri=f"{base_url(request)}{CALLBACK}",
            nonce=underway.nonce,
            client_secret=secret.get_secret_value() if secret is not None else None,
        )
    except TokenRefused as exc:
        log.info("sign_in_refused", reason=exc.message)
        raise ApiError(401, "UNAUTHENTICATED", exc.message) from None
    who = token_principal(settings, claims)
    seconds = settings.session_hours * 3600
    token = await open_session(runtime.pool, who, seconds)
    log.info("signed_in", user=who.user, roles=sorted(who.roles), teams=sorted(who.teams))
    response = RedirectResponse(underway.next_path, status_code=303)
    response.delete_cookie(LOGIN_COOKIE, path=CALLBACK)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(seconds),
        path="/",
        secure=settings.session_cookie_secure,
        httponly=True,
        samesite="lax",
    )
    return response


@router.post("/logout")
async def logout(request: Request) -> RedirectResponse:
    issuer = _issuer(request)
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await close_session(runtime_of(request).pool, token)
    target = await issuer.end_session_url(return_to=f"{base_url(request)}/") or "/"
    response = RedirectResponse(target, status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
