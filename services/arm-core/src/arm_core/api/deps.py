"""Request-scoped helpers: the runtime and who is acting."""

from __future__ import annotations

from fastapi import Request

from arm_core.api.errors import ApiError
from arm_core.api.identity import ACTOR
from arm_core.runtime import Runtime


def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


def actor_of(request: Request) -> str:
    """The acting user, as ``RequireIdentity`` resolved them for this request (the proxy's
    login, or the dev identity when authentication is off)."""
    actor: str | None = getattr(request.state, ACTOR, None)
    if actor is None:
        # Only the open paths pass unresolved, and none of them acts for anyone.
        raise ApiError(401, "UNAUTHENTICATED", "пользователь не определён")
    return actor


def actor_within(request: Request, kind: str, per_minute: int) -> str:
    """The acting user, if they have made fewer than ``per_minute`` ``kind`` requests in the
    last minute (429 TOO_MANY_REQUESTS with Retry-After otherwise)."""
    actor = actor_of(request)
    wait = runtime_of(request).rate_limits.take(kind, actor, per_minute)
    if wait is not None:
        raise ApiError(
            429, "TOO_MANY_REQUESTS", "слишком много запросов, повторите позже", retry_after=wait
        )
    return actor
