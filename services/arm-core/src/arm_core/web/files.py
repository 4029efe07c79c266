"""The files pages: every file or a consolidation's (upload, filters, live statuses, batch
retry), one file with its attempts and retry."""

from __future__ import annotations

import json
import uuid
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from arm_core.api.deps import changer_within, principal_of, runtime_of
from arm_core.db.tables import FILE_STATUSES
from arm_core.files import consolidations, queries
from arm_core.files.access import change_refusals
from arm_core.files.queries import MAX_OFFSET
from arm_core.files.retry import NotRetried, Retried, retry_file, retry_files
from arm_core.jobs.transitions import attempt_failed, retry_helps
from arm_core.review.service import corrections_of_file
from arm_core.web import explain
from arm_core.web.forms import page_form
from arm_core.web.render import PAGE_SIZE, not_found, render
from recognition_contract import SchemaVersion, warnings_from

# How a job keeps its warnings: the contract's 2.x form (``exchange.inbox``).
STORED = SchemaVersion(2, 0)

router = APIRouter(include_in_schema=False)

MAX_BATCH = 500
# Codes the upload page explains itself, from the API's error.
UPLOAD_CODES = (
    "UNSUPPORTED_FORMAT",
    "PASSWORD_PROTECTED",
    "FILE_TOO_LARGE",
    "EMPTY_FILE",
    "STORAGE_UNAVAILABLE",
    "BAD_REQUEST",
    "MALFORMED_MULTIPART",
    "DATABASE_UNAVAILABLE",
)

router = APIRouter(include_in_schema=False)


def _statuses(values: list[str] | None) -> list[str]:
    return [s for s in FILE_STATUSES if s in (values or [])]


# Files.


async def _listing(
    request: Request, consolidation_id: uuid.UUID | None, statuses: list[str], offset: int
) -> dict[str, Any]:
    """One page of the files in sight, for the whole page and for its rows alone."""
    return await queries.list_files(
        runtime_of(request).pool,
        principal_of(request),
        consolidation_id=consolidation_id,
        statuses=statuses,
        limit=PAGE_SIZE,
        offset=offset,
    )


async def files_page(
    request: Request,
    consolidation: dict[str, Any] | None,
    status: list[str] | None,
    offset: int,
) -> HTMLResponse:
    runtime = runtime_of(request)
    cursor = runtime.file_events.cursor()
    consolidation_id = consolidation["id"] if consolidation else None
    statuses = _statuses(status)
    listing = await _listing(request, consolidation_id, statuses, offset)
    who = principal_of(request)
    return render(
        request,
        "files.html",
        {
            "consolidation": consolidation,
            # Uploads land in this consolidation: its team's work (a supervisor's role shows
            # other teams' consolidations without letting anyone add to them).
            "may_upload": who.may_work_in(consolidation["team"])
            if consolidation
            else who.may_change,
            "listing": listing,
            "statuses": statuses,
            "counts": await queries.counts_by_status(
                runtime.pool, principal_of(request), consolidation_id
            ),
            "cursor": cursor,
            "max_bytes": runtime.settings.upload_max_bytes,
            "upload_explanations": json.dumps(
                {
                    code: {"title": e.title, "text": e.text, "advice": e.advice}
                    for code in UPLOAD_CODES
                    if (e := explain.explain(code)) is not None
                },
                ensure_ascii=False,
            ),
        },
    )


@router.get("/ui/files")
async def allfiles_page(
    request: Request,
    status: list[str] | None = Query(None),  # noqa: B008
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
) -> HTMLResponse:
    return await files_page(request, None, status, offset)


@router.get("/ui/files/counts")
async def counts_partial(
    request: Request, consolidation_id: uuid.UUID | None = None
) -> HTMLResponse:
    runtime = runtime_of(request)
    cursor = runtime.file_events.cursor()
    consolidation = (
        await consolidations.get_consolidation(
            runtime.pool, principal_of(request), consolidation_id
        )
        if consolidation_id
        else None
    )
    if consolidation_id and consolidation is None:
        return await not_found(request, "Консолидация")
    return render(
        request,
        "_counts.html",
        {
            "consolidation": consolidation,
            "counts": await queries.counts_by_status(
                runtime.pool, principal_of(request), consolidation_id
            ),
            "statuses": [],
            "cursor": cursor,
        },
    )


@router.get("/ui/files/rows")
async def rows_partial(
    request: Request,
    consolidation_id: uuid.UUID | None = None,
    status: list[str] | None = Query(None),  # noqa: B008
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
) -> HTMLResponse:
    runtime = runtime_of(request)
    cursor = runtime.file_events.cursor()
    statuses = _statuses(status)
    if consolidation_id and not await consolidations.get_consolidation(
        runtime.pool, principal_of(request), consolidation_id
    ):
        return await not_found(request, "Консолидация")
    listing = await _listing(request, consolidation_id, statuses, offset)
    consolidation = {"id": consolidation_id} if consolidation_id else None
    return render(
        request,
        "_file_rows.html",
        {
            "listing": listing,
            "statuses": statuses,
            "consolidation": consolidation,
            "cursor": cursor,
        },
    )


def _batch_ids(values: list[str]) -> tuple[list[uuid.UUID], list[str]]:
    ids: list[uuid.UUID] = []
    bad: list[str] = []
    for raw in dict.fromkeys(v.strip() for v in values):
        try:
            ids.append(uuid.UUID(raw))
        except ValueError:
            bad.append(raw)
    return ids, bad


@router.post("/ui/files/retry")
async def retry_selected(request: Request) -> HTMLResponse:
    runtime = runtime_of(request)
    form = await page_form(request)
    values = [v for v in form.getlist("file_ids") if isinstance(v, str)]
    if not values:
        return render(request, "_batch_result.html", {"results": [], "empty": True})
    ids, bad = _batch_ids(values[:MAX_BATCH])
    who = changer_within(request, "retry", runtime.settings.retries_per_minute)
    refused = await change_refusals(runtime.pool, who, ids)
    bad += [str(file_id) for file_id, why in refused.items() if why.status == 404]
    outcomes: list[Retried | NotRetried] = [
        NotRetried(file_id, "FORBIDDEN", why.message)
        for file_id, why in refused.items()
        if why.status == 403
    ]
    outcomes += await retry_files(runtime.pool, [i for i in ids if i not in refused], who.user)
    results: list[dict[str, Any]] = []
    for outcome in outcomes:
        detail = await queries.file_detail(runtime.pool, who, outcome.file_id)
        row: dict[str, Any] = {
            "file_id": outcome.file_id,
            "name": detail["original_name"] if detail else str(outcome.file_id),
        }
        if isinstance(outcome, Retried):
            row.update(outcome="retried", attempt=outcome.attempt)
        else:
            # The retry's own message names job statuses; the analyst gets the page's words.
            why = _why_not_retryable(detail) if detail else None
            row.update(
                outcome="skipped",
                reason=explain.explain(outcome.reason),
                message=why or outcome.message,
            )
        results.append(row)
    for raw in bad:
        results.append(
            {
                "file_id": raw,
                "name": raw,
                "outcome": "skipped",
                "reason": explain.explain("FILE_NOT_FOUND"),
                "message": "файл не найден",
            }
        )
    response = render(request, "_batch_result.html", {"results": results, "empty": False})
    # The list re-reads itself even where no event stream tells it (NATS off, say).
    response.headers["HX-Trigger"] = "files-changed"
    return response


@router.get("/ui/files/{file_id}/row")
async def file_row_partial(request: Request, file_id: uuid.UUID) -> HTMLResponse:
    runtime = runtime_of(request)
    cursor = runtime.file_events.cursor()
    detail = await queries.file_detail(runtime.pool, principal_of(request), file_id)
    if detail is None:
        return await not_found(request, "Файл")
    return render(request, "_file_row.html", {"file": detail, "cursor": cursor})


def _current(detail: dict[str, Any]) -> dict[str, Any] | None:
    return next((a for a in detail["attempts"] if a["id"] == detail["current_job_id"]), None)


def _why_not_retryable(detail: dict[str, Any]) -> str | None:
    """Why the retry button is disabled, in the analyst's words."""
    if detail["retryable"]:
        return None
    current = _current(detail)
    if current is None:
        return "У файла нет попытки распознавания."
    if attempt_failed(detail["status"], current["status"]) and not retry_helps(
        current["error_code"]
    ):
        problem = explain.explain(current["error_code"])
        what = f"«{problem.title}»" if problem else current["error_code"]
        return (
            f"Повтор не поможет: {what} — это свойство самого файла, новая попытка прочтёт "
            "те же байты. Исправьте файл и загрузите его заново."
        )
    if attempt_failed(detail["status"], current["status"]):
        return (
            f"Исчерпан лимит попыток: {current['attempt']} из {current['max_attempts']}. "
            "Загрузите файл заново."
        )
    if current["status"] in ("done", "needs_check"):
        return "Файл уже распознан; повтор нужен только после ошибки."
    return "Файл ещё обрабатывается; повтор возможен после ошибки или истечения времени."


async def file_context(request: Request, file_id: uuid.UUID) -> dict[str, Any] | None:
    runtime = runtime_of(request)
    cursor = runtime.file_events.cursor()
    pool = runtime.pool
    detail = await queries.file_detail(pool, principal_of(request), file_id)
    if detail is None:
        return None
    consolidation = (
        await consolidations.get_consolidation(
            pool, principal_of(request), detail["consolidation_id"]
        )
        if detail["consolidation_id"]
        else None
    )
    current = _current(detail)
    return {
        # Whether this user may retry the file and review its documents: not the same as
        # seeing it (a supervisor's role shows other teams' files).
        "may_change": not await change_refusals(pool, principal_of(request), [file_id]),
        "corrected": await corrections_of_file(pool, file_id),
        "file": detail,
        "current": current,
        "consolidation": consolidation,
        "why_not": _why_not_retryable(detail),
        "flash": None,
        # Typed like a document's warnings: the pages show both the one way.
        "warnings": warnings_from(current["warnings"], STORED) if current else (),
        "cursor": cursor,
    }


async def _file_screen(request: Request, file_id: uuid.UUID, template: str) -> HTMLResponse:
    context = await file_context(request, file_id)
    if context is None:
        return await not_found(request, "Файл")
    return render(request, template, context)


@router.get("/ui/files/{file_id}")
async def file_page(request: Request, file_id: uuid.UUID) -> HTMLResponse:
    return await _file_screen(request, file_id, "file.html")


@router.get("/ui/files/{file_id}/panel")
async def file_panel(request: Request, file_id: uuid.UUID) -> HTMLResponse:
    return await _file_screen(request, file_id, "_file_main.html")


@router.post("/ui/files/{file_id}/retry")
async def retry_from_page(request: Request, file_id: uuid.UUID) -> HTMLResponse:
    who = changer_within(request, "retry", runtime_of(request).settings.retries_per_minute)
    refusal = (await change_refusals(runtime_of(request).pool, who, [file_id])).get(file_id)
    if refusal is not None and refusal.status == 404:
        return await not_found(request, "Файл")
    outcome: Retried | NotRetried = (
        NotRetried(file_id, "FORBIDDEN", refusal.message)
        if refusal is not None
        else await retry_file(runtime_of(request).pool, file_id, who.user)
    )
    context = await file_context(request, file_id)
    if context is None:
        return await not_found(request, "Файл")
    if isinstance(outcome, NotRetried):
        status = {"FILE_NOT_FOUND": 404, "FORBIDDEN": 403}.get(outcome.reason, 409)
        flash = {"tone": "bad", "text": f"Повтор не выполнен: {outcome.message}."}
    else:
        status = 201
        flash = {"tone": "ok", "text": f"Создана попытка {outcome.attempt}."}
    return render(request, "_file_main.html", {**context, "flash": flash}, status_code=status)
