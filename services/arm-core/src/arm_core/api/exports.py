"""``/api/v1/files/{id}/export`` and ``/api/v1/consolidations/{id}/export``: documents as XLSX
(one sheet per document and one of warnings) or as a ZIP of CSV files."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from arm_core.api.deps import principal_of, runtime_of
from arm_core.api.errors import ApiError, error_responses
from arm_core.audit import trail
from arm_core.export.service import (
    FORMATS,
    chunks,
    consolidation_sources,
    file_sources,
    render,
)
from arm_core.export.tables import Source
from arm_core.files import consolidations, queries

router = APIRouter(prefix="/api/v1")

_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "the export, as an attachment",
        "content": {
            written.media_type: {"schema": {"type": "string", "format": "binary"}}
            for written in FORMATS.values()
        },
    },
}
FormatQuery = Annotated[
    Literal["xlsx", "csv"], Query(description="xlsx: a workbook; csv: a ZIP of CSV files")
]


async def _answer(sources: list[Source], fmt: str, name: str) -> StreamingResponse:
    if not sources:
        raise ApiError(409, "NO_DOCUMENTS", "распознанных документов нет: выгружать нечего")
    written = FORMATS[fmt]
    spool = await render(sources, written)
    filename = f"{name}.{written.extension}"
    return StreamingResponse(
        chunks(spool),
        media_type=written.media_type,
        headers={"Content-Disposition": f"attachment; filename*=UTF-8''{quote(filename)}"},
    )


@router.get(
    "/files/{file_id}/export",
    response_class=StreamingResponse,
    responses={
        **_RESPONSES,
        **error_responses({404: "FILE_NOT_FOUND", 409: "NO_DOCUMENTS", 422: "VALIDATION_ERROR"}),
    },
)
async def export_file(
    request: Request, file_id: uuid.UUID, format: FormatQuery = "xlsx"
) -> StreamingResponse:
    """The documents of the file's current attempt."""
    pool = runtime_of(request).pool
    who = principal_of(request)
    detail = await queries.file_detail(pool, who, file_id)
    if detail is None:
        raise ApiError(404, "FILE_NOT_FOUND", "файл не найден")
    name = detail["original_name"].rsplit(".", 1)[0] or "документы"
    sources = await file_sources(pool, file_id, detail["original_name"])
    response = await _answer(sources, format, name)
    await trail.record(
        pool,
        actor=who.user,
        action="file.export",
        file_id=file_id,
        job_id=detail["current_job_id"],
        details={"format": format},
    )
    return response


@router.get(
    "/consolidations/{consolidation_id}/export",
    response_class=StreamingResponse,
    responses={
        **_RESPONSES,
        **error_responses(
            {404: "CONSOLIDATION_NOT_FOUND", 409: "NO_DOCUMENTS", 422: "VALIDATION_ERROR"}
        ),
    },
)
async def export_consolidation(
    request: Request, consolidation_id: uuid.UUID, format: FormatQuery = "xlsx"
) -> StreamingResponse:
    """The documents of every recognised file of the consolidation, oldest file first."""
    pool = runtime_of(request).pool
    who = principal_of(request)
    found = await consolidations.get_consolidation(pool, who, consolidation_id)
    if found is None:
        raise ApiError(404, "CONSOLIDATION_NOT_FOUND", "консолидация не найдена")
    sources = await consolidation_sources(pool, who, consolidation_id)
    response = await _answer(sources, format, found["name"])
    await trail.record(
        pool,
        actor=who.user,
        action="consolidation.export",
        details={"id": str(consolidation_id), "format": format, "files": len(sources)},
    )
    return response
