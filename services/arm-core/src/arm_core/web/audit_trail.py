"""The audit trail, for admins."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from arm_core.api.deps import admin_of, runtime_of
from arm_core.api.errors import ApiError, storable
from arm_core.audit import trail
from arm_core.files.queries import MAX_OFFSET
from arm_core.web.render import PAGE_SIZE, render

router = APIRouter(include_in_schema=False)

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
    return render(
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
