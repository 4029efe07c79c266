"""``/api/v1/consolidations/{id}/reconciliation``: checks across the consolidation's
documents."""

from __future__ import annotations

import dataclasses
import uuid

from fastapi import APIRouter, Request
from pydantic import Field

from arm_core.api.bodies import RequestBody
from arm_core.api.deps import changer_within, principal_of, runtime_of
from arm_core.api.errors import ApiError, error_responses
from arm_core.api.models import Reconciliation, ReconciliationExclusion
from arm_core.files import consolidations
from arm_core.files.access import change_refusals
from arm_core.reconcile.exclusions import set_excluded
from arm_core.reconcile.service import consolidation_checks
from arm_core.reconcile.views import check_views

router = APIRouter(prefix="/api/v1")


@router.get(
    "/consolidations/{consolidation_id}/reconciliation",
    responses=error_responses({404: "CONSOLIDATION_NOT_FOUND", 422: "VALIDATION_ERROR"}),
)
async def reconcile_consolidation(request: Request, consolidation_id: uuid.UUID) -> Reconciliation:
    """Statements and trial balances of consecutive periods chain, account 51 agrees with the
    statements, no file is there twice: each check with what it compared and what disagreed."""
    pool = runtime_of(request).pool
    who = principal_of(request)
    if await consolidations.get_consolidation(pool, who, consolidation_id) is None:
        raise ApiError(404, "CONSOLIDATION_NOT_FOUND", "консолидация не найдена")
    checked = await consolidation_checks(pool, who, consolidation_id)
    return Reconciliation.model_validate(
        {
            "consolidation_id": consolidation_id,
            "checks": check_views(checked.checks),
            "excluded": [dataclasses.asdict(item) for item in checked.excluded],
        }
    )


class Exclusion(RequestBody):
    reason: str = Field(min_length=1, max_length=1000, description="why it is left out")


_EXCLUSION_REFUSALS = {
    400: "BAD_REQUEST (undecodable body)",
    401: "UNAUTHENTICATED",
    403: "FORBIDDEN",
    404: "FILE_NOT_FOUND",
    413: "BODY_TOO_LARGE",
    422: "VALIDATION_ERROR",
    429: "TOO_MANY_REQUESTS",
}


@router.put(
    "/files/{file_id}/reconciliation-exclusion",
    responses=error_responses(_EXCLUSION_REFUSALS),
)
async def exclude_file(
    request: Request, file_id: uuid.UUID, body: Exclusion
) -> ReconciliationExclusion:
    """Leave the file out of its consolidation's «Сверки» (a false finding cleared), with why;
    audited. Leaving out a file already left out changes nothing."""
    return await _exclusion(request, file_id, excluded=True, reason=body.reason.strip())


@router.delete(
    "/files/{file_id}/reconciliation-exclusion",
    responses=error_responses(_EXCLUSION_REFUSALS),
)
async def include_file(request: Request, file_id: uuid.UUID) -> ReconciliationExclusion:
    """Take the file back into its consolidation's «Сверки»; audited."""
    return await _exclusion(request, file_id, excluded=False, reason=None)


async def _exclusion(
    request: Request, file_id: uuid.UUID, *, excluded: bool, reason: str | None
) -> ReconciliationExclusion:
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    refusal = (await change_refusals(runtime.pool, who, [file_id])).get(file_id)
    if refusal is not None:
        raise refusal
    await set_excluded(runtime.pool, file_id, who.user, excluded=excluded, reason=reason)
    return ReconciliationExclusion(file_id=file_id, excluded=excluded)
