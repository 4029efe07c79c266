"""What every page shares: the templates with their filters, rendering with the signed-in
user, the not-found page, the static assets."""

from __future__ import annotations

import functools
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.background import BackgroundTask

from arm_core.api.deps import principal_of, runtime_of
from arm_core.api.errors import note_refused
from arm_core.auth.identity import CSRF, VIA
from arm_core.denomination import denomination
from arm_core.review.fields import FIELDS, LABELS, PART_LABELS, Kind, shown
from arm_core.review.model import Correction
from arm_core.titles import document_title
from arm_core.web import explain
from document_extraction.text import column_letters

HERE = Path(__file__).parent
PAGE_SIZE = 200


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


def _corrected(correction: Correction, which: str, kind: str) -> str:
    """A correction's value (``which``: recognised or corrected) as the document shows such
    values: amounts and dates written the one way the tables write them."""
    value = getattr(correction, which)
    if value is None:
        return "пусто"
    editable = FIELDS.get((kind, correction.target), {}).get(correction.field)
    if editable is not None and editable.kind is Kind.AMOUNT:
        return explain.money(value)
    if editable is not None and editable.kind is Kind.DATE:
        return _date(shown(Kind.DATE, value))
    return str(value)


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
        amounts=explain.amounts_in,
        corrected=_corrected,
        denomination=denomination,
        doc_title=document_title,
        column_letters=column_letters,
    )
    env.globals.update(
        EDITABLE=FIELDS,
        FIELD_LABELS=LABELS,
        PART_LABELS=PART_LABELS,
        explain=explain.explain,
        FILE_STATUSES=explain.FILE_STATUSES,
        JOB_STATUSES=explain.JOB_STATUSES,
        TONES=explain.TONES,
        REVIEW_STATES=explain.REVIEW_STATES,
        REVIEW_TONES=explain.REVIEW_TONES,
    )
    return Jinja2Templates(env=env)


def render(
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


async def not_found(request: Request, what: str) -> HTMLResponse:
    response = render(request, "not_found.html", {"what": what}, status_code=404)
    # Noted after the answer, as the API does (``api.errors``): no timing tells a hidden
    # file from one that does not exist.
    response.background = BackgroundTask(note_refused, request, None)
    return response
