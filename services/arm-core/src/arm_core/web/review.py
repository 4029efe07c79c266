"""A document's review from its page: a correction, a confirmation."""

from __future__ import annotations

import html
import uuid

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from arm_core.api.deps import changer_within, runtime_of
from arm_core.api.errors import storable
from arm_core.review.fields import TARGETS
from arm_core.review.service import Change, ReviewRefused, confirm, correct, document_of
from arm_core.web.forms import page_form

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
            {"code": w["code"], "locator": w.get("locator"), "reason": reason}
            for w in doc["warnings"]
            if w["severity"] != "info" and reason and storable(reason)
        ]
        await confirm(runtime.pool, who, document_id, acknowledged)
    except ReviewRefused as exc:
        return _review_answer(exc)
    return _review_answer(None)
