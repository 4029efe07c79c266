"""``/api/v1/audit``: the audit trail, for admins."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Request

from arm_core.api.deps import admin_of, runtime_of
from arm_core.api.errors import ApiError, error_responses, storable
from arm_core.api.models import AuditList
from arm_core.audit import trail
from arm_core.files.queries import MAX_OFFSET

router = APIRouter(prefix="/api/v1")

MAX_PAGE = 500
_FILTERS = ("actor", "action", "outcome", "file_id", "since", "until", "limit", "offset")
_MOMENT = {"format": "date-time"}


def _moment(value: str | None, name: str) -> dt.datetime | None:
    """An RFC 3339 moment with its offset; a bare number (which pydantic would take for a
    Unix time) or a moment without a zone is refused."""
    if value is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ApiError(400, "BAD_REQUEST", f"{name}: нужна дата и время с часовым поясом")
    return moment


@router.get(
    "/audit",
    responses=error_responses(
        {
            400: "BAD_REQUEST (a filter PostgreSQL cannot hold)",
            401: "UNAUTHENTICATED",
            403: "FORBIDDEN (not an admin)",
            422: "VALIDATION_ERROR",
        }
    ),
)
async def read_audit(
    request: Request,
    actor: Annotated[str | None, Query(max_length=200)] = None,
    action: Annotated[str | None, Query(max_length=100)] = None,
    outcome: Annotated[str | None, Query(max_length=100)] = None,
    file_id: uuid.UUID | None = None,
    since: Annotated[
        str | None, Query(description="from this moment on", json_schema_extra=_MOMENT)
    ] = None,
    until: Annotated[
        str | None, Query(description="before this moment", json_schema_extra=_MOMENT)
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> AuditList:
    """Who did what and how it ended, newest first, a page at a time."""
    admin_of(request)
    repeated = [name for name in _FILTERS if len(request.query_params.getlist(name)) > 1]
    if repeated:
        raise ApiError(400, "BAD_REQUEST", f"фильтр {repeated[0]} задан несколько раз")
    if not all(storable(value) for value in (actor, action, outcome) if value is not None):
        raise ApiError(400, "BAD_REQUEST", "фильтр содержит недопустимые символы")
    page = await trail.read(
        runtime_of(request).pool,
        actor=actor,
        action=action,
        outcome=outcome,
        file_id=file_id,
        since=_moment(since, "since"),
        until=_moment(until, "until"),
        limit=limit,
        offset=offset,
    )
    return AuditList.model_validate(page)
