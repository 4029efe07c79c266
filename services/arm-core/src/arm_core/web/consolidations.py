"""The consolidations pages: the list, a new one, one consolidation's files and its «Сверки»."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from arm_core.api.deps import changer_within, principal_of, runtime_of, team_for
from arm_core.api.errors import ApiError, storable
from arm_core.files import consolidations
from arm_core.files.access import change_refusals
from arm_core.files.queries import MAX_OFFSET, consolidation_files
from arm_core.reconcile.exclusions import set_excluded
from arm_core.reconcile.service import consolidation_checks
from arm_core.reconcile.views import check_views
from arm_core.web.files import files_page
from arm_core.web.forms import page_form
from arm_core.web.render import not_found, render

router = APIRouter(include_in_schema=False)

# Consolidations.


@router.get("/")
async def home() -> RedirectResponse:
    return RedirectResponse("/ui/consolidations", status_code=303)


@router.get("/ui")
async def ui_home() -> RedirectResponse:
    return RedirectResponse("/ui/consolidations", status_code=303)


@router.get("/ui/consolidations")
async def consolidations_page(request: Request) -> HTMLResponse:
    runtime = runtime_of(request)
    cursor = runtime.file_events.cursor()
    items = await consolidations.list_consolidations(runtime.pool, principal_of(request))
    return render(
        request,
        "consolidations.html",
        {"items": items, "cursor": cursor, "error": None, "name": ""},
    )


@router.post("/ui/consolidations")
async def create_consolidation(request: Request) -> Response:
    runtime = runtime_of(request)
    who = principal_of(request)
    form = await page_form(request)
    raw, raw_team = form.get("name"), form.get("team")
    name = " ".join(raw.split()) if isinstance(raw, str) else ""
    status, error, team = 422, None, None
    if not name or len(name) > 300 or not storable(name):
        error = "Введите название консолидации (до 300 символов, без служебных символов)."
    else:
        try:
            team = team_for(who, raw_team if isinstance(raw_team, str) else None)
        except ApiError as exc:
            status, error = exc.status, exc.message
    if error is not None:
        cursor = runtime.file_events.cursor()
        items = await consolidations.list_consolidations(runtime.pool, who)
        return render(
            request,
            "consolidations.html",
            {"items": items, "cursor": cursor, "error": error, "name": name},
            status_code=status,
        )
    created = await consolidations.create_consolidation(runtime.pool, name, team, who.user)
    return RedirectResponse(f"/ui/consolidations/{created['id']}", status_code=303)


@router.get("/ui/consolidations/{consolidation_id}/row")
async def consolidation_row(request: Request, consolidation_id: uuid.UUID) -> HTMLResponse:
    runtime = runtime_of(request)
    cursor = runtime.file_events.cursor()
    found = await consolidations.get_consolidation(
        runtime.pool, principal_of(request), consolidation_id
    )
    if found is None:
        return await not_found(request, "Консолидация")
    return render(request, "_consolidation_row.html", {"item": found, "cursor": cursor})


@router.get("/ui/consolidations/{consolidation_id}/reconciliation")
async def reconciliation_partial(request: Request, consolidation_id: uuid.UUID) -> HTMLResponse:
    runtime = runtime_of(request)
    who = principal_of(request)
    found = await consolidations.get_consolidation(runtime.pool, who, consolidation_id)
    if found is None:
        return await not_found(request, "Консолидация")
    return await _panel(request, found)


async def _panel(
    request: Request, found: dict[str, Any], flash: str | None = None, status: int = 200
) -> HTMLResponse:
    runtime = runtime_of(request)
    who = principal_of(request)
    checked = await consolidation_checks(runtime.pool, who, found["id"])
    context = {
        "consolidation": found,
        "checks": check_views(checked.checks),
        "excluded": checked.excluded,
        "files": [f for f in checked.files if f["reconciliation_excluded_at"] is None],
        "may_exclude": who.may_work_in(found["team"]),
        "flash": flash,
    }
    return render(request, "_reconciliation.html", context, status_code=status)


@router.post("/ui/consolidations/{consolidation_id}/reconciliation/exclusion")
async def exclusion_from_page(request: Request, consolidation_id: uuid.UUID) -> HTMLResponse:
    """Leave a file out of the «Сверки» with a reason, or take it back in; the panel again."""
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    found = await consolidations.get_consolidation(runtime.pool, who, consolidation_id)
    if found is None:
        return await not_found(request, "Консолидация")
    form = await page_form(request)
    reason = str(form.get("reason", "")).strip()[:1000]
    excluded = form.get("action") != "include"
    try:
        file_id = uuid.UUID(str(form.get("file_id", "")))
    except ValueError:
        return await _panel(request, found, "Выберите файл.", 422)
    if excluded and (not reason or not storable(reason)):
        return await _panel(request, found, "Укажите, почему файл не сверяется.", 422)
    refusal = (await change_refusals(runtime.pool, who, [file_id])).get(file_id)
    files = {f["id"] for f in await consolidation_files(runtime.pool, who, consolidation_id)}
    if refusal is not None or file_id not in files:
        return await _panel(request, found, "Этот файл здесь изменять нельзя.", 403)
    await set_excluded(
        runtime.pool, file_id, who.user, excluded=excluded, reason=reason if excluded else None
    )
    return await _panel(request, found)


@router.get("/ui/consolidations/{consolidation_id}")
async def consolidation_page(
    request: Request,
    consolidation_id: uuid.UUID,
    status: list[str] | None = Query(None),  # noqa: B008 (FastAPI declares query lists so)
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
) -> HTMLResponse:
    found = await consolidations.get_consolidation(
        runtime_of(request).pool, principal_of(request), consolidation_id
    )
    if found is None:
        return await not_found(request, "Консолидация")
    return await files_page(request, found, status, offset)
