"""A document's review from its page: a correction, a confirmation."""

from __future__ import annotations

import html
import uuid
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, Response

from arm_core.api.deps import changer_within, runtime_of
from arm_core.api.errors import storable
from arm_core.review.fields import FIELDS, LABELS, TARGETS, Kind, read
from arm_core.review.service import (
    Change,
    ReviewRefused,
    confirm,
    correct,
    document_of,
    stored_locator,
    undo,
)
from arm_core.web import explain
from arm_core.web.forms import page_form
from arm_core.web.render import render
from recognition_contract import Severity, TrialBalance

router = APIRouter(include_in_schema=False)

# Review of a document.


def _review_answer(outcome: ReviewRefused | None) -> Response:
    """Done: the page reloads to show the document as reviewed. Refused: why, in the form."""
    if outcome is None:
        return Response(status_code=204, headers={"HX-Refresh": "true"})
    text = f'<p class="flash tone-bad" role="alert">{html.escape(outcome.message)}</p>'
    # The pages show a fragment of 404, 409 and 422 (see base.html); a 400 reads as 422 there.
    # A 403 is not shown in place: the form is offered only to those who may change.
    status = outcome.status if outcome.status in (403, 404, 409) else 422
    return HTMLResponse(text, status_code=status)


@router.post("/ui/documents/{document_id}/corrections")
async def correct_from_page(request: Request, document_id: uuid.UUID) -> Response:
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    form = await page_form(request)
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


@router.post("/ui/documents/{document_id}/corrections/{correction_id}/undo")
async def undo_from_page(
    request: Request, document_id: uuid.UUID, correction_id: Annotated[int, Path(ge=1, le=2**62)]
) -> Response:
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    try:
        await undo(runtime.pool, who, document_id, correction_id)
    except ReviewRefused as exc:
        return _review_answer(exc)
    return _review_answer(None)


@router.get("/ui/documents/{document_id}/rows/{position}")
async def row_editor(
    request: Request,
    document_id: uuid.UUID,
    position: Annotated[int, Path(ge=1, le=10_000_000)],
    target: Literal["row", "transaction"],
) -> Response:
    """The correction form of one row as the table shows it (its «№»): each field it may
    correct with the value recognised and the value now, if a correction changed it."""
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    try:
        doc = await document_of(runtime.pool, who, document_id, confirmed_ok=True)
    except ReviewRefused as exc:
        return _review_answer(exc)
    document = doc.document
    items = document.rows if isinstance(document, TrialBalance) else document.transactions
    if position > len(items):
        return _review_answer(ReviewRefused(404, "POSITION_OUT_OF_RANGE", "нет строки с таким №"))
    item = items[position - 1]
    earlier = {
        c.field: c.recognised
        for c in reversed(doc.corrections)
        if c.target == target and c.position == position
    }
    fields = [
        {
            "spot": f"{target}:{field}",
            "label": LABELS.get(field, field),
            "now": _shown(editable.kind, read(item, editable.path)),
            "recognised": _shown(editable.kind, earlier[field]) if field in earlier else None,
        }
        for field, editable in FIELDS.get((doc.kind, target), {}).items()
    ]
    context = {"doc": doc, "target": target, "position": position, "item": item}
    return render(request, "_row_editor.html", {**context, "fields": fields})


def _shown(kind: Kind, value: object) -> str:
    """A value as the tables show it."""
    if value is None or value == "":
        return "пусто"
    if kind is Kind.AMOUNT:
        return explain.money(value)
    if kind is Kind.DATE:
        return value.strftime("%d.%m.%Y") if hasattr(value, "strftime") else str(value)
    return str(value)


@router.post("/ui/documents/{document_id}/confirm")
async def confirm_from_page(request: Request, document_id: uuid.UUID) -> Response:
    """Confirm, accepting every warning left (but notes) with the one reason given."""
    runtime = runtime_of(request)
    who = changer_within(request, "review", runtime.settings.retries_per_minute)
    form = await page_form(request)
    reason = str(form.get("reason", "")).strip()[:1000]
    try:
        doc = await document_of(runtime.pool, who, document_id)
        acknowledged = [
            {"code": w.code, "locator": stored_locator(w.locator), "reason": reason}
            for w in doc.warnings
            if w.severity is not Severity.INFO and reason and storable(reason)
        ]
        await confirm(runtime.pool, who, document_id, acknowledged)
    except ReviewRefused as exc:
        return _review_answer(exc)
    return _review_answer(None)
