"""``/api/v1/files/{id}/source``: the cells around a row of a workbook's sheet, as the
recognition service kept them beside its result."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Request

from arm_core.api.deps import principal_of, runtime_of
from arm_core.api.errors import ApiError, error_responses, storable
from arm_core.api.models import SourceWindow
from arm_core.source.sheets import MAX_AROUND, sheet_window

router = APIRouter(prefix="/api/v1")


@router.get(
    "/files/{file_id}/source",
    responses=error_responses(
        {
            400: "BAD_REQUEST",
            404: "FILE_NOT_FOUND, SOURCE_NOT_KEPT, SHEET_NOT_FOUND",
            422: "VALIDATION_ERROR",
        }
    ),
)
async def source_of_file(
    request: Request,
    file_id: uuid.UUID,
    sheet: Annotated[str, Query(min_length=1, max_length=300)],
    row: Annotated[int, Query(ge=1, le=10_000_000, description="the row to show")],
    around: Annotated[int, Query(ge=0, le=MAX_AROUND)] = 15,
) -> SourceWindow:
    """Rows ``row - around`` to ``row + around`` of the sheet (workbooks; the current
    attempt's reading)."""
    if not storable(sheet):
        raise ApiError(400, "BAD_REQUEST", "имя листа содержит недопустимые символы")
    runtime = runtime_of(request)
    window = await sheet_window(
        runtime.pool,
        runtime.storage,
        principal_of(request),
        file_id,
        sheet=sheet,
        row=row,
        around=around,
    )
    if window is None:
        raise ApiError(404, "FILE_NOT_FOUND", "файл не найден")
    return SourceWindow.model_validate(window)
