"""``/api/v1/files``, ``/api/v1/jobs`` and ``/api/v1/consolidations``."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field, field_validator

from arm_core.api.deps import actor_of, runtime_of
from arm_core.api.errors import ApiError
from arm_core.files import consolidations, queries
from arm_core.files.intake import IntakeError, assign_consolidation, store_upload
from arm_core.files.multipart import MultipartError, boundary_of, iter_parts
from arm_core.files.retry import NotRetried, Retried, retry_file, retry_files
from arm_core.mapping.queries import file_documents

router = APIRouter(prefix="/api/v1")

# Multipart framing around the file: boundaries, part headers, the consolidation field.
_MULTIPART_OVERHEAD = 64 * 1024
MAX_BATCH = 500


def _parse_uuid(value: str, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ApiError(400, "BAD_REQUEST", f"{what} должен быть UUID") from None


@router.post("/files", status_code=201)
async def upload_file(request: Request, consolidation_id: str | None = None) -> JSONResponse:
    runtime = runtime_of(request)
    settings = runtime.settings
    actor = actor_of(request)
    length = request.headers.get("content-length")
    if (
        length
        and length.isdigit()
        and int(length) > settings.upload_max_bytes + _MULTIPART_OVERHEAD
    ):
        raise ApiError(
            413, "FILE_TOO_LARGE", f"файл больше допустимых {settings.upload_max_bytes} байт"
        )
    try:
        boundary = boundary_of(request.headers.get("content-type"))
    except MultipartError as exc:
        raise ApiError(400, "BAD_REQUEST", str(exc)) from None
    target = _parse_uuid(consolidation_id, "consolidation_id") if consolidation_id else None
    upload = None
    try:
        async for part, data in iter_parts(_body(request), boundary):
            if part.name == "consolidation_id" and part.filename is None:
                value = (await _small(data)).strip()
                if value:
                    target = _parse_uuid(value, "consolidation_id")
            elif part.name == "file" and part.filename is not None:
                if upload is not None:
                    raise ApiError(400, "BAD_REQUEST", "можно загрузить один файл за запрос")
                upload = await store_upload(
                    pool=runtime.pool,
                    storage=runtime.storage,
                    filename=part.filename,
                    data=data,
                    consolidation_id=target,
                    actor=actor,
                    max_bytes=settings.upload_max_bytes,
                    max_attempts=settings.recognition_max_attempts,
                )
    except MultipartError as exc:
        raise ApiError(400, "BAD_REQUEST", str(exc)) from None
    except IntakeError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None
    if upload is None:
        raise ApiError(400, "BAD_REQUEST", "нет файла: ожидается поле file")
    if target != upload.consolidation_id:
        # consolidation_id came after the file in the form; both orders are fine for us.
        try:
            await assign_consolidation(runtime.pool, runtime.storage, upload, target)
        except IntakeError as exc:
            raise ApiError(exc.status, exc.code, exc.message) from None
    return JSONResponse(
        {
            "file_id": str(upload.file_id),
            "job_id": str(upload.job_id),
            "status": "UPLOADED",
            "pipeline": upload.pipeline,
            "file_type": upload.file_type,
            "original_name": upload.original_name,
            "size": upload.size,
            "consolidation_id": str(target) if target else None,
        },
        status_code=201,
    )


async def _body(request: Request) -> AsyncIterator[bytes]:
    async for chunk in request.stream():
        if chunk:
            yield chunk


async def _small(data: AsyncIterator[bytes], limit: int = 1024) -> str:
    value = b""
    async for chunk in data:
        value += chunk
        if len(value) > limit:
            raise ApiError(400, "BAD_REQUEST", "слишком длинное значение поля формы")
    return value.decode("utf-8", "replace")


@router.get("/files")
async def list_files(
    request: Request,
    consolidation_id: uuid.UUID | None = None,
    status: Annotated[list[str] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> dict[str, Any]:
    try:
        return await queries.list_files(
            runtime_of(request).pool,
            consolidation_id=consolidation_id,
            statuses=status or [],
            limit=limit,
            offset=offset,
        )
    except ValueError as exc:
        raise ApiError(400, "BAD_REQUEST", str(exc)) from None


@router.get("/files/{file_id}")
async def get_file(request: Request, file_id: uuid.UUID) -> dict[str, Any]:
    detail = await queries.file_detail(runtime_of(request).pool, file_id)
    if detail is None:
        raise ApiError(404, "FILE_NOT_FOUND", "файл не найден")
    return detail


@router.get("/files/{file_id}/documents")
async def get_documents(request: Request, file_id: uuid.UUID) -> dict[str, Any]:
    pool = runtime_of(request).pool
    detail = await queries.file_detail(pool, file_id)
    if detail is None:
        raise ApiError(404, "FILE_NOT_FOUND", "файл не найден")
    return {
        "file_id": file_id,
        "status": detail["status"],
        "job_id": detail["current_job_id"],
        "documents": await file_documents(pool, file_id),
    }


@router.get("/files/{file_id}/content")
async def download_original(request: Request, file_id: uuid.UUID) -> StreamingResponse:
    runtime = runtime_of(request)
    source = await queries.source_object(runtime.pool, file_id)
    if source is None:
        raise ApiError(404, "FILE_NOT_FOUND", "файл не найден")
    from urllib.parse import quote

    return StreamingResponse(
        runtime.storage.stream(source["key"]),
        media_type=source["content_type"] or "application/octet-stream",
        headers={
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(source['original_name'])}",
            "Content-Length": str(source["size"]),
        },
    )


@router.post("/files/{file_id}/retry", status_code=201)
async def retry_one(request: Request, file_id: uuid.UUID) -> dict[str, Any]:
    outcome = await retry_file(runtime_of(request).pool, file_id, actor_of(request))
    if isinstance(outcome, NotRetried):
        status = 404 if outcome.reason == "FILE_NOT_FOUND" else 409
        raise ApiError(status, outcome.reason, outcome.message)
    return {"file_id": outcome.file_id, "job_id": outcome.job_id, "attempt": outcome.attempt}


class BatchRetry(BaseModel):
    file_ids: list[str] = Field(min_length=1, max_length=MAX_BATCH)

    @field_validator("file_ids")
    @classmethod
    def _strings(cls, value: list[str]) -> list[str]:
        return [item.strip() for item in value]


@router.post("/files/retry")
async def retry_batch(request: Request, body: BatchRetry) -> dict[str, Any]:
    ids: list[uuid.UUID] = []
    results: list[dict[str, Any]] = []
    for raw in dict.fromkeys(body.file_ids):
        try:
            ids.append(uuid.UUID(raw))
        except ValueError:
            results.append({"file_id": raw, "outcome": "skipped", "reason": "FILE_NOT_FOUND"})
    outcomes = await retry_files(runtime_of(request).pool, ids, actor_of(request))
    for outcome in outcomes:
        if isinstance(outcome, Retried):
            results.append(
                {
                    "file_id": str(outcome.file_id),
                    "outcome": "retried",
                    "job_id": str(outcome.job_id),
                    "attempt": outcome.attempt,
                }
            )
        else:
            results.append(
                {
                    "file_id": str(outcome.file_id),
                    "outcome": "skipped",
                    "reason": outcome.reason,
                    "message": outcome.message,
                }
            )
    order = {raw: index for index, raw in enumerate(dict.fromkeys(body.file_ids))}
    results.sort(key=lambda item: order.get(item["file_id"], len(order)))
    return {"results": results}


@router.get("/jobs/{job_id}")
async def get_job(request: Request, job_id: uuid.UUID) -> dict[str, Any]:
    job = await queries.job_detail(runtime_of(request).pool, job_id)
    if job is None:
        raise ApiError(404, "JOB_NOT_FOUND", "задание не найдено")
    return job


class NewConsolidation(BaseModel):
    name: str = Field(min_length=1, max_length=300)

    @field_validator("name")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("название не может быть пустым")
        return value


@router.post("/consolidations", status_code=201)
async def create_consolidation(request: Request, body: NewConsolidation) -> dict[str, Any]:
    return await consolidations.create_consolidation(
        runtime_of(request).pool, body.name, actor_of(request)
    )


@router.get("/consolidations")
async def list_consolidations(request: Request) -> dict[str, Any]:
    return {"items": await consolidations.list_consolidations(runtime_of(request).pool)}


@router.get("/consolidations/{consolidation_id}")
async def get_consolidation(request: Request, consolidation_id: uuid.UUID) -> dict[str, Any]:
    found = await consolidations.get_consolidation(runtime_of(request).pool, consolidation_id)
    if found is None:
        raise ApiError(404, "CONSOLIDATION_NOT_FOUND", "консолидация не найдена")
    return found
