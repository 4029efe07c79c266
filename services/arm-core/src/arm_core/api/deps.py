"""Request-scoped helpers: the runtime, who is acting and whether they may."""

from __future__ import annotations

from fastapi import Request

from arm_core.api.errors import ApiError
from arm_core.auth.identity import PRINCIPAL
from arm_core.auth.principal import Principal
from arm_core.runtime import Runtime


def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


def principal_of(request: Request) -> Principal:
    """The acting user, as ``RequireIdentity`` resolved them for this request."""
    principal: Principal | None = getattr(request.state, PRINCIPAL, None)
    if principal is None:
        # Only the open paths pass unresolved, and none of them acts for anyone.
        raise ApiError(401, "UNAUTHENTICATED", "пользователь не определён")
    return principal


def actor_of(request: Request) -> str:
    return principal_of(request).user


def admin_of(request: Request) -> Principal:
    principal = principal_of(request)
    if not principal.is_admin:
        raise ApiError(403, "FORBIDDEN", "нужна роль admin")
    return principal


def changer_within(request: Request, kind: str, per_minute: int) -> Principal:
    """The acting user, if their role lets them change things (403 FORBIDDEN otherwise) and
    they have made fewer than ``per_minute`` ``kind`` requests in the last minute (429
    TOO_MANY_REQUESTS with Retry-After otherwise)."""
    principal = principal_of(request)
    if not principal.may_change:
        raise ApiError(403, "FORBIDDEN", "роль не позволяет изменять данные")
    wait = runtime_of(request).rate_limits.take(kind, principal.user, per_minute)
    if wait is not None:
        raise ApiError(
            429, "TOO_MANY_REQUESTS", "слишком много запросов, повторите позже", retry_after=wait
        )
    return principal


def team_for(who: Principal, team: str | None) -> str | None:
    """The team a consolidation ``who`` creates belongs to: the one named, if ``who`` works in
    it (an admin: any, or none); an analyst of a single team may leave it out."""
    if not who.may_change:
        raise ApiError(403, "FORBIDDEN", "роль не позволяет изменять данные")
    team = team.strip() if team and team.strip() else None
    if who.is_admin:
        return team
    if team is None:
        if len(who.teams) != 1:
            raise ApiError(400, "TEAM_REQUIRED", "укажите команду консолидации")
        (team,) = who.teams
    if not who.may_work_in(team):
        raise ApiError(403, "FORBIDDEN", "вы не входите в эту команду")
    return team
