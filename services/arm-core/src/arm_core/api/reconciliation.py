"""``/api/v1/consolidations/{id}/reconciliation``: checks across the consolidation's
documents."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Request

from arm_core.api.deps import principal_of, runtime_of
from arm_core.api.errors import ApiError, error_responses
from arm_core.api.models import Reconciliation
from arm_core.files import consolidations
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
    checks = await consolidation_checks(pool, who, consolidation_id)
    return Reconciliation.model_validate(
        {"consolidation_id": consolidation_id, "checks": check_views(checks)}
    )
