"""``/api/v1/documents/{id}/corrections`` and ``/confirm``: an analyst's corrections to a
recognised document (a layer over it, audited) and its confirmation."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from pydantic import Field

from arm_core.api.bodies import RequestBody
from arm_core.api.deps import changer_within, runtime_of
from arm_core.api.document_json import document_json
from arm_core.api.errors import error_responses
from arm_core.api.models import ReviewedDocument
from arm_core.review.service import Change, confirm, correct, undo

router = APIRouter(prefix="/api/v1")

_REFUSALS = {
    400: "BAD_REQUEST, FIELD_NOT_EDITABLE, INVALID_VALUE, POSITION_OUT_OF_RANGE",
    401: "UNAUTHENTICATED",
    403: "FORBIDDEN",
    404: "DOCUMENT_NOT_FOUND",
    413: "BODY_TOO_LARGE",
    409: "DOCUMENT_SUPERSEDED, DOCUMENT_CONFIRMED",
    422: "VALIDATION_ERROR",
    429: "TOO_MANY_REQUESTS",
}

Reason = Annotated[str, Field(min_length=1, max_length=1000, description="why")]


class NewCorrection(RequestBody):
    target: Literal["header", "row", "transaction"]
    position: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000,
        description="the row's or operation's number in the document, as the page's «№» "
        "column shows it (not its sheet row)",
    )
    field: str = Field(max_length=100, description="e.g. period_from, closing_debit, date")
    value: str | None = Field(
        max_length=2000,
        description="amounts 1234.56, dates DD.MM.YYYY or YYYY-MM-DD; null clears it",
    )
    reason: Reason


class Acknowledged(RequestBody):
    code: str = Field(max_length=100)
    locator: dict[str, Any] | None = None
    reason: Reason


class Confirmation(RequestBody):
    acknowledged: list[Acknowledged] = Field(
        default_factory=list, max_length=1000, description="the warnings left, each with why"
    )


@router.post(
    "/documents/{document_id}/corrections",
    status_code=201,
    responses=error_responses(_REFUSALS),
)
async def correct_document(
    request: Request, document_id: uuid.UUID, body: NewCorrection
) -> ReviewedDocument:
    """Correct one field of the document's header, a row or a transaction. What was
    recognised stays; the document comes back with the correction applied and its checks
    made again on the corrected values."""
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    change = Change(body.target, body.position, body.field, body.value, body.reason.strip())
    view = await correct(runtime.pool, who, document_id, change)
    return ReviewedDocument.model_validate({"document": document_json(view)})


@router.delete(
    "/documents/{document_id}/corrections/{correction_id}",
    responses=error_responses(
        {**_REFUSALS, 404: "DOCUMENT_NOT_FOUND, CORRECTION_NOT_FOUND", 409: "DOCUMENT_SUPERSEDED"}
    ),
)
async def undo_correction(
    request: Request,
    document_id: uuid.UUID,
    correction_id: Annotated[int, Path(ge=1, le=2**62)],
) -> ReviewedDocument:
    """Undo a correction: the recognised value (or an earlier correction of the field) applies
    again and the checks are made again; the correction stays in the audit trail, and a
    confirmed document is reopened."""
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    view = await undo(runtime.pool, who, document_id, correction_id)
    return ReviewedDocument.model_validate({"document": document_json(view)})


@router.post(
    "/documents/{document_id}/confirm",
    responses=error_responses(
        {**_REFUSALS, 409: "DOCUMENT_SUPERSEDED, DOCUMENT_CONFIRMED, WARNINGS_NOT_ACKNOWLEDGED"}
    ),
)
async def confirm_document(
    request: Request, document_id: uuid.UUID, body: Confirmation
) -> ReviewedDocument:
    """Confirm the document, once its checks pass on the corrected values or every warning
    left is acknowledged with a reason."""
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    acknowledged = [item.model_dump() for item in body.acknowledged]
    view = await confirm(runtime.pool, who, document_id, acknowledged)
    return ReviewedDocument.model_validate({"document": document_json(view)})
