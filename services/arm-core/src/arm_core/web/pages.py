"""The analysts' pages: consolidations, a consolidation's files (upload, filters, live
statuses, batch retry), one file with its attempts and retry, its documents.

Pages read through the same query and retry functions as the JSON API; the browser talks to
the API only for uploads, which need per-file progress.
"""

from __future__ import annotations

import functools
import html
import json
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from arm_core.api.deps import admin_of, changer_within, principal_of, runtime_of, team_for
from arm_core.api.errors import ApiError, note_refused, storable
from arm_core.audit import trail
from arm_core.auth.identity import CSRF, VIA
from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.db.tables import FILE_STATUSES
from arm_core.files import consolidations, queries
from arm_core.files.access import VISIBLE_FILE, visible_files
from arm_core.files.queries import MAX_OFFSET
from arm_core.files.retry import NotRetried, Retried, retry_file, retry_files
from arm_core.jobs.transitions import attempt_failed
from arm_core.reconcile.service import consolidation_checks
from arm_core.reconcile.views import check_views
from arm_core.review.fields import FIELDS, LABELS, PART_LABELS, TARGETS
from arm_core.review.service import (
    Change,
    ReviewRefused,
    confirm,
    correct,
    corrections_of_file,
    document_of,
    reviewed_documents,
)
from arm_core.web import explain

HERE = Path(__file__).parent
PAGE_SIZE = 200
MAX_BATCH = 500
# Codes the upload page explains itself, from the API's error.
UPLOAD_CODES = (
    "UNSUPPORTED_FORMAT",
    "FILE_TOO_LARGE",
    "EMPTY_FILE",
    "STORAGE_UNAVAILABLE",
    "BAD_REQUEST",
    "MALFORMED_MULTIPART",
    "DATABASE_UNAVAILABLE",
)

router = APIRouter(include_in_schema=False)

COUNTS = f"""
SELECT f.status, count(*) AS n FROM stored_file f
 WHERE (%(consolidation_id)s::uuid IS NULL OR f.consolidation_id = %(consolidation_id)s)
   AND {VISIBLE_FILE}
 GROUP BY f.status
"""


def static_files() -> StaticFiles:
    """The pages' own assets: no page loads anything from elsewhere."""
    return StaticFiles(directory=HERE / "static")


def _timestamp(value: datetime | None) -> str:
    return value.isoformat() if value is not None else ""


def _datetime(value: datetime | None) -> str:
    # UTC here; the page rewrites it in the analyst's own time zone.
    return value.strftime("%d.%m.%Y %H:%M:%S UTC") if value is not None else "—"


def _date(value: Any) -> str:
    return value.strftime("%d.%m.%Y") if value is not None else ""


@functools.cache
def _templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        money=explain.money,
        size=explain.size,
        locator=explain.locator_text,
        timestamp=_timestamp,
        datetime=_datetime,
        date=_date,
        warning_title=explain.warning_title,
    )
    env.globals.update(
        EDITABLE=FIELDS,
        FIELD_LABELS=LABELS,
        PART_LABELS=PART_LABELS,
        explain=explain.explain,
        FILE_STATUSES=explain.FILE_STATUSES,
        JOB_STATUSES=explain.JOB_STATUSES,
        TONES=explain.TONES,
    )
    return Jinja2Templates(env=env)


def _render(
    request: Request, name: str, context: dict[str, Any], status_code: int = 200
) -> HTMLResponse:
    who = principal_of(request)
    development = runtime_of(request).settings.auth_mode == "off"
    # The identity comes last: no page's own context can pass for it.
    page = {
        **context,
        "actor": who.user,
        "who": who,
        "development": development,
        # A signed-in session's token, which the page's forms and scripts send back.
        "csrf": getattr(request.state, CSRF, None),
        "signed_in": getattr(request.state, VIA, None) == "session",
    }
    response: HTMLResponse = _templates().TemplateResponse(
        request, name, page, status_code=status_code
    )
    return response


async def _not_found(request: Request, what: str) -> HTMLResponse:
    await note_refused(request, None)
    return _render(request, "not_found.html", {"what": what}, status_code=404)


async def _counts(pool: Pool, who: Principal, consolidation_id: uuid.UUID | None) -> dict[str, int]:
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(COUNTS, {"consolidation_id": consolidation_id, **who.sql()})
        ).fetchall()
    counts = dict.fromkeys(FILE_STATUSES, 0)
    counts.update({row["status"]: int(row["n"]) for row in rows})
    return counts


def _statuses(values: list[str] | None) -> list[str]:
    return [s for s in FILE_STATUSES if s in (values or [])]


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
    return _render(
        request,
        "consolidations.html",
        {"items": items, "cursor": cursor, "error": None, "name": ""},
    )


@router.post("/ui/consolidations")
async def create_consolidation(request: Request) -> Response:
    runtime = runtime_of(request)
    who = principal_of(request)
    form = await request.form()
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
        return _render(
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
        return await _not_found(request, "Консолидация")
    return _render(request, "_consolidation_row.html", {"item": found, "cursor": cursor})


# Files.


async def _files_page(
    request: Request,
    consolidation: dict[str, Any] | None,
    status: list[str] | None,
    offset: int,
) -> HTMLResponse:
    runtime = runtime_of(request)
    cursor = runtime.file_events.cursor()
    consolidation_id = consolidation["id"] if consolidation else None
    statuses = _statuses(status)
    listing = await queries.list_files(
        runtime.pool,
        principal_of(request),
        consolidation_id=consolidation_id,
        statuses=statuses,
        limit=PAGE_SIZE,
        offset=offset,
    )
    return _render(
        request,
        "files.html",
        {
            "consolidation": consolidation,
            "listing": listing,
            "statuses": statuses,
            "counts": await _counts(runtime.pool, principal_of(request), consolidation_id),
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


@router.get("/ui/consolidations/{consolidation_id}/reconciliation")
async def reconciliation_partial(request: Request, consolidation_id: uuid.UUID) -> HTMLResponse:
    runtime = runtime_of(request)
    who = principal_of(request)
    found = await consolidations.get_consolidation(runtime.pool, who, consolidation_id)
    if found is None:
        return await _not_found(request, "Консолидация")
    checks = check_views(await consolidation_checks(runtime.pool, who, consolidation_id))
    return _render(request, "_reconciliation.html", {"consolidation": found, "checks": checks})


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
        return await _not_found(request, "Консолидация")
    return await _files_page(request, found, status, offset)


@router.get("/ui/files")
async def all_files_page(
    request: Request,
    status: list[str] | None = Query(None),  # noqa: B008
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
) -> HTMLResponse:
    return await _files_page(request, None, status, offset)


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
        return await _not_found(request, "Консолидация")
    return _render(
        request,
        "_counts.html",
        {
            "consolidation": consolidation,
            "counts": await _counts(runtime.pool, principal_of(request), consolidation_id),
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
        return await _not_found(request, "Консолидация")
    listing = await queries.list_files(
        runtime.pool,
        principal_of(request),
        consolidation_id=consolidation_id,
        statuses=statuses,
        limit=PAGE_SIZE,
        offset=offset,
    )
    consolidation = {"id": consolidation_id} if consolidation_id else None
    return _render(
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
    form = await request.form()
    values = [v for v in form.getlist("file_ids") if isinstance(v, str)]
    if not values:
        return _render(request, "_batch_result.html", {"results": [], "empty": True})
    ids, bad = _batch_ids(values[:MAX_BATCH])
    who = changer_within(request, "retry", runtime.settings.retries_per_minute)
    visible = await visible_files(runtime.pool, who, ids)
    bad += [str(file_id) for file_id in ids if file_id not in visible]
    outcomes = await retry_files(runtime.pool, [i for i in ids if i in visible], who.user)
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
    response = _render(request, "_batch_result.html", {"results": results, "empty": False})
    # The list re-reads itself even where no event stream tells it (NATS off, say).
    response.headers["HX-Trigger"] = "files-changed"
    return response


@router.get("/ui/files/{file_id}/row")
async def file_row_partial(request: Request, file_id: uuid.UUID) -> HTMLResponse:
    runtime = runtime_of(request)
    cursor = runtime.file_events.cursor()
    detail = await queries.file_detail(runtime.pool, principal_of(request), file_id)
    if detail is None:
        return await _not_found(request, "Файл")
    return _render(request, "_file_row.html", {"file": detail, "cursor": cursor})


def _current(detail: dict[str, Any]) -> dict[str, Any] | None:
    return next((a for a in detail["attempts"] if a["id"] == detail["current_job_id"]), None)


def _why_not_retryable(detail: dict[str, Any]) -> str | None:
    """Why the retry button is disabled, in the analyst's words."""
    if detail["retryable"]:
        return None
    current = _current(detail)
    if current is None:
        return "У файла нет попытки распознавания."
    if attempt_failed(detail["status"], current["status"]):
        return (
            f"Исчерпан лимит попыток: {current['attempt']} из {current['max_attempts']}. "
            "Загрузите файл заново."
        )
    if current["status"] in ("done", "needs_check"):
        return "Файл уже распознан; повтор нужен только после ошибки."
    return "Файл ещё обрабатывается; повтор возможен после ошибки или истечения времени."


async def _file_context(request: Request, file_id: uuid.UUID) -> dict[str, Any] | None:
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
        "corrected": await corrections_of_file(pool, file_id),
        "file": detail,
        "current": current,
        "consolidation": consolidation,
        "why_not": _why_not_retryable(detail),
        "flash": None,
        "warnings": current["warnings"] if current else [],
        "cursor": cursor,
    }


@router.get("/ui/files/{file_id}")
async def file_page(request: Request, file_id: uuid.UUID) -> HTMLResponse:
    context = await _file_context(request, file_id)
    if context is None:
        return await _not_found(request, "Файл")
    return _render(request, "file.html", context)


@router.get("/ui/files/{file_id}/panel")
async def file_panel(request: Request, file_id: uuid.UUID) -> HTMLResponse:
    context = await _file_context(request, file_id)
    if context is None:
        return await _not_found(request, "Файл")
    return _render(request, "_file_main.html", context)


@router.post("/ui/files/{file_id}/retry")
async def retry_from_page(request: Request, file_id: uuid.UUID) -> HTMLResponse:
    who = changer_within(request, "retry", runtime_of(request).settings.retries_per_minute)
    if await _file_context(request, file_id) is None:
        return await _not_found(request, "Файл")
    outcome = await retry_file(runtime_of(request).pool, file_id, who.user)
    context = await _file_context(request, file_id)
    if context is None:
        return await _not_found(request, "Файл")
    if isinstance(outcome, NotRetried):
        status = 404 if outcome.reason == "FILE_NOT_FOUND" else 409
        flash = {"tone": "bad", "text": f"Повтор не выполнен: {outcome.message}."}
    else:
        status = 201
        flash = {"tone": "ok", "text": f"Создана попытка {outcome.attempt}."}
    return _render(request, "_file_main.html", {**context, "flash": flash}, status_code=status)


# Documents.


def _flags(document: dict[str, Any]) -> dict[tuple[str | None, int], list[dict[str, Any]]]:
    """The document's warnings by the sheet and row they point at."""
    flags: dict[tuple[str | None, int], list[dict[str, Any]]] = {}
    for warning in document["warnings"]:
        locator = warning.get("locator") or {}
        if locator.get("row") is None:
            continue
        flags.setdefault((locator.get("sheet"), int(locator["row"])), []).append(warning)
    return flags


def _row_flags(
    flags: dict[tuple[str | None, int], list[dict[str, Any]]], locator: dict[str, Any] | None
) -> list[dict[str, Any]]:
    if not locator or locator.get("row") is None:
        return []
    row = int(locator["row"])
    found = flags.get((locator.get("sheet"), row), [])
    if locator.get("sheet") is not None:
        # A warning that names only the row applies on whichever sheet it is.
        found = found + flags.get((None, row), [])
    return found


# The statement checks the extraction made, each with the warnings it raises: the page shows
# what was found, it never does the arithmetic again.
STATEMENT_CHECKS = (
    (
        "Остаток на начало + поступления − списания = остаток на конец",
        ("BALANCE_MISMATCH", "BALANCE_MISSING", "OPENING_BALANCE_NOT_PRINTED"),
        ("opening_balance", "closing_balance"),
    ),
    ("Сумма операций = итоги выписки", ("TOTALS_MISMATCH",), ("total_debit", "total_credit")),
    ("Даты операций внутри периода выписки", ("DATE_OUTSIDE_PERIOD",), ("period",)),
)


def _statement_checks(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Each check with what it found: ok, a warning (not ok), or nothing to check (None)
    where the statement does not print what the check needs."""
    header = document.get("header") or {}
    checks: list[dict[str, Any]] = []
    for name, codes, needs in STATEMENT_CHECKS:
        raised = [w for w in document["warnings"] if w["code"] in codes]
        if raised:
            ok: bool | None = all(w.get("severity") == "info" for w in raised)
            detail = "; ".join(w["message"] for w in raised)
        elif all(header.get(key) is None for key in needs):
            ok, detail = None, "в выписке этого нет: проверить нечем"
        else:
            ok, detail = True, "сходится"
        checks.append({"name": name, "detail": detail, "ok": ok})
    return checks


def _osv_view(document: dict[str, Any]) -> dict[str, Any]:
    flags = _flags(document)
    parents = {row["parent"] for row in document["rows"] if row["parent"] is not None}
    rows = [
        {
            **row,
            "has_children": row["id"] in parents,
            "flags": _row_flags(flags, row["locator"]),
        }
        for row in document["rows"]
    ]
    totals = document.get("totals")
    return {
        **document,
        "rows": rows,
        "totals_flags": _row_flags(flags, totals.get("locator") if totals else None),
        "flagged": sum(1 for row in rows if row["flags"]),
    }


def _statement_view(document: dict[str, Any]) -> dict[str, Any]:
    flags = _flags(document)
    return {
        **document,
        "transactions": [
            {**line, "flags": _row_flags(flags, line["locator"])}
            for line in document["transactions"]
        ],
        "checks": _statement_checks(document),
    }


@router.get("/ui/files/{file_id}/documents")
async def documents_page(request: Request, file_id: uuid.UUID) -> HTMLResponse:
    runtime = runtime_of(request)
    context = await _file_context(request, file_id)
    if context is None:
        return await _not_found(request, "Файл")
    await trail.record(
        runtime.pool,
        actor=principal_of(request).user,
        action="document.view",
        file_id=file_id,
        job_id=context["file"]["current_job_id"],
    )
    documents = [
        _osv_view(doc) if doc["kind"] == "osv" else _statement_view(doc)
        for doc in await reviewed_documents(runtime.pool, file_id)
    ]
    return _render(
        request,
        "documents.html",
        {**context, "documents": documents},
    )


# The audit trail (admins).

AUDIT_ACTIONS = {
    "file.upload": "Загрузка файла",
    "file.retry": "Повтор распознавания",
    "file.download": "Скачивание оригинала",
    "document.view": "Просмотр документов",
    "document.correct": "Исправление документа",
    "document.confirm": "Подтверждение документа",
    "file.export": "Выгрузка файла",
    "consolidation.export": "Выгрузка консолидации",
    "consolidation.create": "Создание консолидации",
    "consolidation.assign": "Передача консолидации команде",
    "auth.sign_in": "Вход",
    "auth.sign_out": "Выход",
    "access.refused": "Отказ в доступе",
}


@router.get("/ui/audit")
async def audit_page(
    request: Request,
    actor: str | None = Query(None, max_length=200),
    action: str | None = Query(None, max_length=100),
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
) -> HTMLResponse:
    admin_of(request)
    actor, action = (actor or "").strip() or None, action or None
    if not all(storable(value) for value in (actor, action) if value is not None):
        raise ApiError(400, "BAD_REQUEST", "фильтр содержит недопустимые символы")
    page = await trail.read(
        runtime_of(request).pool,
        actor=actor,
        action=action,
        outcome=None,
        file_id=None,
        since=None,
        until=None,
        limit=PAGE_SIZE,
        offset=offset,
    )
    following = {"actor": actor or "", "action": action or "", "offset": offset + PAGE_SIZE}
    return _render(
        request,
        "audit.html",
        {
            "page": page,
            "filter_actor": actor,
            "filter_action": action,
            "ACTIONS": AUDIT_ACTIONS,
            "next_query": urlencode(following),
        },
    )


# Review of a document.


def _review_answer(outcome: ReviewRefused | None) -> Response:
    """Done: the page reloads to show the document as reviewed. Refused: why, in the form."""
    if outcome is None:
        return Response(status_code=204, headers={"HX-Refresh": "true"})
    text = f'<p class="flash tone-bad" role="alert">{html.escape(outcome.message)}</p>'
    # The pages show a fragment of 404, 409 and 422 (see base.html); a 400 reads as 422 there.
    return HTMLResponse(text, status_code=outcome.status if outcome.status in (404, 409) else 422)


@router.post("/ui/documents/{document_id}/corrections")
async def correct_from_page(request: Request, document_id: uuid.UUID) -> Response:
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    form = await request.form()
    spot, position = str(form.get("spot", "")), str(form.get("position", "")).strip()
    raw_target, _, field = spot.partition(":")
    target = TARGETS.get(raw_target)
    value, reason = str(form.get("value", "")), str(form.get("reason", "")).strip()
    if target is None or not reason or not storable(value + reason):
        return _review_answer(ReviewRefused(400, "BAD_REQUEST", "Выберите поле и укажите причину."))
    if target != "header" and not position.isdigit():
        return _review_answer(ReviewRefused(400, "BAD_REQUEST", "Укажите номер строки."))
    change = Change(
        target,
        int(position) if target != "header" else None,
        field,
        value,
        reason[:1000],
    )
    try:
        await correct(runtime.pool, who, document_id, change)
    except ReviewRefused as exc:
        return _review_answer(exc)
    return _review_answer(None)


@router.post("/ui/documents/{document_id}/confirm")
async def confirm_from_page(request: Request, document_id: uuid.UUID) -> Response:
    """Confirm, accepting every warning left (but notes) with the one reason given."""
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    form = await request.form()
    reason = str(form.get("reason", "")).strip()[:1000]
    try:
        doc = await document_of(runtime.pool, who, document_id)
        acknowledged = [
            {"code": w["code"], "locator": w.get("locator"), "reason": reason}
            for w in doc["warnings"]
            if w["severity"] != "info" and reason and storable(reason)
        ]
        await confirm(runtime.pool, who, document_id, acknowledged)
    except ReviewRefused as exc:
        return _review_answer(exc)
    return _review_answer(None)
