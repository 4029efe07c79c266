"""A file's documents: trial balances with their tree and flagged rows, statements with their
checks as the extraction made them, and each document's review."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from arm_core.api.deps import principal_of, runtime_of
from arm_core.api.source import page_url
from arm_core.audit import trail
from arm_core.review.model import ReviewedDocument
from arm_core.review.service import reviewed_documents
from arm_core.source.kept import SourceMissing
from arm_core.source.pages import kept_pages
from arm_core.source.sheets import sheet_window
from arm_core.web import explain
from arm_core.web.files import file_context
from arm_core.web.render import not_found, render
from recognition_contract import (
    Document,
    Locator,
    Severity,
    Statement,
    Transaction,
    TrialBalance,
    TrialBalanceRow,
    Warning,
)

router = APIRouter(include_in_schema=False)

# Documents.


# A row's place: its sheet or page, and its row (a page's rows are its lines).
Place = tuple[str | None, int | None, int]


@dataclass(frozen=True, slots=True)
class ShownRow:
    """A row or an operation as the table shows it: its «№» in the document (the number
    corrections name it by) and the warnings that point at it."""

    item: TrialBalanceRow | Transaction
    position: int
    flags: list[Warning]
    has_children: bool = False


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    detail: str
    ok: bool | None  # None: nothing to check


@dataclass(frozen=True, slots=True)
class DocumentPage:
    """One document on the file's page: as reviewed, with one page of its rows."""

    review: ReviewedDocument
    rows: list[ShownRow]
    paging: dict[str, int]
    totals_flags: list[Warning] = field(default_factory=list)
    flagged: int = 0
    checks: list[Check] = field(default_factory=list)


def _flags(document: Document) -> dict[Place, list[Warning]]:
    """The document's warnings by the sheet or page and row they point at."""
    flags: dict[Place, list[Warning]] = {}
    for warning in document.warnings:
        locator = warning.locator
        if locator is None or locator.row is None:
            continue
        flags.setdefault((locator.sheet, locator.page, locator.row), []).append(warning)
    return flags


def _row_flags(flags: dict[Place, list[Warning]], locator: Locator | None) -> list[Warning]:
    if locator is None or locator.row is None:
        return []
    row = locator.row
    found = flags.get((locator.sheet, locator.page, row), [])
    if locator.sheet is not None:
        # A warning that names only the row applies on whichever sheet it is.
        found = found + flags.get((None, None, row), [])
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


def _statement_checks(document: Statement) -> list[Check]:
    """Each check with what it found: ok, a warning (not ok), or nothing to check (None)
    where the statement does not print what the check needs."""
    checks: list[Check] = []
    for name, codes, needs in STATEMENT_CHECKS:
        raised = [w for w in document.warnings if w.code in codes]
        if raised:
            ok: bool | None = all(w.severity is Severity.INFO for w in raised)
            detail = "; ".join(w.message for w in raised)
        elif all(getattr(document.header, key) is None for key in needs):
            ok, detail = None, "в выписке этого нет: проверить нечем"
        else:
            ok, detail = True, "сходится"
        checks.append(Check(name, detail, ok))
    return checks


# Rows shown above and below the one a source link points at.
AROUND = 15
# The most rows a window holds around a span of lines (a camt.053 entry may run to hundreds).
MAX_SPAN = 500
# A page shows this many rows (or operations) of a document: a 100,000-row trial balance opens
# at once, a page at a time.
ROWS_PER_PAGE = 1000

Item = TypeVar("Item", TrialBalanceRow, Transaction)


def _page(items: Sequence[Item], page: int) -> tuple[Sequence[Item], dict[str, int]]:
    pages = max(1, -(-len(items) // ROWS_PER_PAGE))
    page = min(page, pages)
    start = (page - 1) * ROWS_PER_PAGE
    shown = items[start : start + ROWS_PER_PAGE]
    paging = {
        "page": page,
        "pages": pages,
        "first": start + 1 if shown else 0,
        "last": start + len(shown),
        "total": len(items),
    }
    return shown, paging


def _osv_view(review: ReviewedDocument, document: TrialBalance, page: int) -> DocumentPage:
    flags = _flags(document)
    parents = {row.parent for row in document.rows if row.parent is not None}
    shown, paging = _page(document.rows, page)
    rows = [
        ShownRow(row, paging["first"] + k, _row_flags(flags, row.locator), row.id in parents)
        for k, row in enumerate(shown)
    ]
    totals = document.totals
    return DocumentPage(
        review,
        rows,
        paging,
        totals_flags=_row_flags(flags, totals.locator if totals else None),
        flagged=sum(1 for row in document.rows if _row_flags(flags, row.locator)),
    )


def _statement_view(review: ReviewedDocument, document: Statement, page: int) -> DocumentPage:
    flags = _flags(document)
    shown, paging = _page(document.transactions, page)
    lines = [
        ShownRow(line, paging["first"] + k, _row_flags(flags, line.locator))
        for k, line in enumerate(shown)
    ]
    return DocumentPage(review, lines, paging, checks=_statement_checks(document))


def _view(review: ReviewedDocument, page: int) -> DocumentPage:
    document = review.document
    if isinstance(document, TrialBalance):
        return _osv_view(review, document, page)
    return _statement_view(review, document, page)


@router.get("/ui/files/{file_id}/documents")
async def documents_page(
    request: Request,
    file_id: uuid.UUID,
    doc: int = Query(1, ge=1, le=10_000, description="the document whose page is asked for"),
    page: int = Query(1, ge=1, le=1_000_000),
) -> HTMLResponse:
    runtime = runtime_of(request)
    context = await file_context(request, file_id)
    if context is None:
        return await not_found(request, "Файл")
    await trail.record(
        runtime.pool,
        actor=principal_of(request).user,
        action="document.view",
        file_id=file_id,
        job_id=context["file"]["current_job_id"],
    )
    documents = [
        _view(item, page if index == doc else 1)
        for index, item in enumerate(await reviewed_documents(runtime.pool, file_id), start=1)
    ]
    return render(
        request,
        "documents.html",
        {**context, "documents": documents},
    )


@router.get("/ui/files/{file_id}/source")
async def source_page(
    request: Request,
    file_id: uuid.UUID,
    sheet: str | None = Query(None, min_length=1, max_length=300),
    row: int | None = Query(None, ge=1, le=10_000_000),
    row_end: int | None = Query(None, ge=1, le=10_000_000),
    page: int | None = Query(None, ge=1, le=100_000),
    box: str | None = Query(None, max_length=100),
) -> HTMLResponse:
    """Where a document's row or a warning came from: the cells around a sheet's row, the row
    (or the rows to ``row_end``: a text file's operation spans lines) highlighted, or the page
    image with the box drawn."""
    runtime = runtime_of(request)
    context = await file_context(request, file_id)
    if context is None:
        return await not_found(request, "Файл")
    if page is not None:
        return await _page_source(request, context, file_id, page, box)
    if sheet is None or row is None:
        return render(
            request,
            "source.html",
            {**context, "sheet": sheet, "row": row, "problem": "не указано, что показать"},
            status_code=422,
        )
    # An operation of a text file spans its lines: the window holds them all, within reason.
    last = max(row, row_end or row)
    around = min(AROUND + last - row, MAX_SPAN)
    window, problem = None, None
    try:
        window = await sheet_window(
            runtime.pool,
            runtime.storage,
            principal_of(request),
            file_id,
            sheet=sheet,
            row=row,
            around=around,
        )
    except SourceMissing as exc:
        problem = exc.message
    return render(
        request,
        "source.html",
        {
            **context,
            "sheet": sheet,
            "row": row,
            "row_end": last,
            "around": around,
            "window": window,
            "lines": laid_out(window) if window else [],
            "problem": problem,
        },
        status_code=404 if problem else 200,
    )


def laid_out(window: dict[str, Any]) -> list[dict[str, Any]]:
    """The window's rows as the sheet shows them: a merged range is one cell spanning its
    rows and columns (clipped to the window), the cells it covers are not drawn."""
    numbers = [line["number"] for line in window["rows"]]
    if not numbers:
        return []
    first, last = numbers[0], numbers[-1]
    spans: dict[tuple[int, int], tuple[int, int]] = {}
    covered: set[tuple[int, int]] = set()
    for r0, c0, r1, c1 in window.get("merged", []):
        top, bottom = max(r0, first), min(r1, last)
        rows = [n for n in numbers if top <= n <= bottom]
        if not rows:
            continue
        spans[(rows[0], c0)] = (len(rows), c1 - c0 + 1)
        covered |= {(n, c) for n in rows for c in range(c0, c1 + 1)} - {(rows[0], c0)}
    lines = []
    for line in window["rows"]:
        number = line["number"]
        cells = []
        for column in range(max(window["columns"], len(line["cells"]))):
            if (number, column) in covered:
                continue
            text = line["cells"][column] if column < len(line["cells"]) else ""
            # Numbers as the tables write them, so the source reads like the document.
            text = explain.number_text(text) if isinstance(text, str) else text
            rowspan, colspan = spans.get((number, column), (1, 1))
            cells.append({"text": text, "rowspan": rowspan, "colspan": colspan})
        lines.append({"number": number, "cells": cells})
    return lines


async def _page_source(
    request: Request, context: dict[str, Any], file_id: uuid.UUID, page: int, box: str | None
) -> HTMLResponse:
    runtime = runtime_of(request)
    pages: list[dict[str, Any]] = []
    problem = None
    try:
        pages = await kept_pages(runtime.pool, runtime.storage, principal_of(request), file_id)
    except SourceMissing as exc:
        problem = exc.message
    kept = next((p for p in pages if p["page"] == page), None)
    if problem is None and (kept is None or kept["image"] is None):
        problem = f"изображение страницы {page} не сохранено"
    numbers = [p["page"] for p in pages]
    return render(
        request,
        "source_page.html",
        {
            **context,
            "page": page,
            "box": marked_box(box),
            "image_url": page_url(file_id, page),
            "previous": max((n for n in numbers if n < page), default=None),
            "next": min((n for n in numbers if n > page), default=None),
            "pages": len(numbers),
            "problem": problem,
        },
        status_code=404 if problem else 200,
    )


def marked_box(box: str | None) -> dict[str, float] | None:
    """``x0,y0,x1,y1`` (fractions of the page, as locators carry them) in thousandths of the
    page for the drawing; None for anything else."""
    try:
        x0, y0, x1, y1 = (float(v) for v in (box or "").split(","))
    except ValueError:
        return None
    if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
        return None
    # A little air around the words, so the frame does not cross their letters.
    pad = 4.0
    return {
        "x": round(max(0.0, x0 * 1000 - pad), 1),
        "y": round(max(0.0, y0 * 1000 - pad), 1),
        "width": round((x1 - x0) * 1000 + 2 * pad, 1),
        "height": round((y1 - y0) * 1000 + 2 * pad, 1),
    }
