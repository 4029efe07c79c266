"""``/api/v1/files``, ``/api/v1/jobs`` and ``/api/v1/consolidations``."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import Field, field_validator
from starlette.requests import ClientDisconnect

from arm_core.api.bodies import RequestBody
from arm_core.api.deps import admin_of, changer_within, principal_of, runtime_of, team_for
from arm_core.api.document_json import document_json
from arm_core.api.errors import ApiError, error_responses
from arm_core.api.models import (
    BatchRetryResults,
    ConsolidationList,
    ConsolidationView,
    FileDetail,
    FileDocuments,
    FileList,
    JobView,
    RetryStarted,
    Uploaded,
)
from arm_core.audit import trail
from arm_core.auth.principal import Principal
from arm_core.files import consolidations, queries
from arm_core.files.access import change_refusals
from arm_core.files.intake import (
    CONTENT_TYPES,
    IntakeError,
    Upload,
    assign_consolidation,
    discard_upload,
    store_upload,
)
from arm_core.files.multipart import MultipartError, boundary_of, iter_parts
from arm_core.files.queries import MAX_OFFSET
from arm_core.files.retry import NotRetried, Retried, retry_file, retry_files
from arm_core.review.service import reviewed_documents

router = APIRouter(prefix="/api/v1")

# Multipart framing around the file: boundaries, part headers, the consolidation field.
_MULTIPART_OVERHEAD = 64 * 1024
MAX_BATCH = 500
MAX_PAGE = 500

_UPLOAD_BODY = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {
                    "file": {
                        "type": "string",
                        "format": "binary",
                        "description": "XLS, XLSX, XLSB, PDF, PNG or JPG, or a bank's export "
                        "(1CClientBankExchange or MT940 as .txt, .sta or .mt940; camt.053 as "
                        ".xml), with its file name",
                    },
                    "consolidation_id": {
                        "type": "string",
                        "format": "uuid",
                        "description": "the consolidation the file belongs to",
                    },
                },
            }
        }
    },
}


def _parse_uuid(value: str, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ApiError(400, "BAD_REQUEST", f"{what} должен быть UUID") from None


@router.post(
    "/files",
    status_code=201,
    openapi_extra={"requestBody": _UPLOAD_BODY},
    responses=error_responses(
        {
            400: "BAD_REQUEST, MALFORMED_MULTIPART, EMPTY_FILE",
            401: "UNAUTHENTICATED",
            404: "CONSOLIDATION_NOT_FOUND",
            413: "FILE_TOO_LARGE",
            415: "UNSUPPORTED_FORMAT",
            422: "VALIDATION_ERROR, PASSWORD_PROTECTED",
            429: "TOO_MANY_REQUESTS",
            503: "STORAGE_UNAVAILABLE",
        }
    ),
)
async def upload_file(
    request: Request,
    consolidation_id: Annotated[
        str | None, Query(description="the consolidation, UUID (or the form field)")
    ] = None,
) -> Uploaded:
    """Store one file, register it and queue its recognition."""
    settings = runtime_of(request).settings
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
    who = changer_within(request, "upload", settings.uploads_per_minute)
    target = await _consolidation_for(request, who, consolidation_id) if consolidation_id else None
    broken: list[MultipartError] = []
    try:
        upload = await _receive(request, boundary, target, who, broken)
    except MultipartError as exc:
        raise _malformed(exc) from None
    except IntakeError:
        if broken:
            # The body broke off inside the file: the store saw its own write fail and has
            # removed the object again, but the fault is the request's, not the storage's.
            raise _malformed(broken[0]) from None
        raise
    return Uploaded.model_validate(
        {
            "file_id": upload.file_id,
            "job_id": upload.job_id,
            "status": "UPLOADED",
            "pipeline": upload.pipeline,
            "file_type": upload.file_type,
            "original_name": upload.original_name,
            "size": upload.size,
            "consolidation_id": upload.consolidation_id,
            "sha256": upload.sha256,
            "same_bytes": upload.same_bytes,
        }
    )


async def _receive(
    request: Request,
    boundary: bytes,
    target: uuid.UUID | None,
    who: Principal,
    broken: list[MultipartError],
) -> Upload:
    """Read the form and store its file; whatever goes wrong after the file was registered
    undoes the registration, so that an error answer leaves nothing behind."""
    runtime = runtime_of(request)
    settings = runtime.settings
    upload: Upload | None = None
    try:
        async for part, data in iter_parts(_body(request), boundary):
            if part.name == "consolidation_id" and part.filename is None:
                value = (await _small(data)).strip()
                if value:
                    target = await _consolidation_for(request, who, value)
            elif part.name == "file" and part.filename is not None:
                if upload is not None:
                    raise ApiError(400, "BAD_REQUEST", "можно загрузить один файл за запрос")
                upload = await store_upload(
                    pool=runtime.pool,
                    storage=runtime.storage,
                    filename=part.filename,
                    data=_watched(data, broken),
                    consolidation_id=target,
                    who=who,
                    max_bytes=settings.upload_max_bytes,
                    max_attempts=settings.recognition_max_attempts,
                    register_wait=settings.upload_register_wait_seconds,
                )
        if upload is None:
            raise ApiError(400, "BAD_REQUEST", "нет файла: ожидается поле file")
        if target != upload.consolidation_id:
            # consolidation_id came after the file in the form; both orders are fine for us.
            await assign_consolidation(runtime.pool, runtime.storage, upload, target)
            upload = dataclasses.replace(upload, consolidation_id=target)
    except IntakeError:
        raise  # already undone by the intake
    except BaseException:
        if upload is not None:
            await discard_upload(runtime.pool, runtime.storage, upload)
        raise
    return upload


async def _consolidation_for(request: Request, who: Principal, value: str) -> uuid.UUID:
    """The consolidation ``value`` names, if ``who`` may add files to it."""
    consolidation_id = _parse_uuid(value, "consolidation_id")
    found = await consolidations.get_consolidation(runtime_of(request).pool, who, consolidation_id)
    if found is None:
        raise ApiError(404, "CONSOLIDATION_NOT_FOUND", "консолидация не найдена")
    if not who.may_work_in(found["team"]):
        raise ApiError(403, "FORBIDDEN", "в этой консолидации работает другая команда")
    return consolidation_id


def _malformed(exc: MultipartError) -> ApiError:
    return ApiError(400, "MALFORMED_MULTIPART", f"тело запроса повреждено: {exc}")


async def _watched(
    data: AsyncIterator[bytes], broken: list[MultipartError]
) -> AsyncIterator[bytes]:
    """The file's bytes, remembering a framing error that the store may hand back as its own."""
    try:
        async for chunk in data:
            yield chunk
    except MultipartError as exc:
        broken.append(exc)
        raise


async def _body(request: Request) -> AsyncIterator[bytes]:
    try:
        async for chunk in request.stream():
            if chunk:
                yield chunk
    except ClientDisconnect:
        raise MultipartError("the connection closed before the body ended") from None


async def _small(data: AsyncIterator[bytes], limit: int = 1024) -> str:
    value = b""
    async for chunk in data:
        value += chunk
        if len(value) > limit:
            raise ApiError(400, "BAD_REQUEST", "слишком длинное значение поля формы")
    return value.decode("utf-8", "replace")


@router.get(
    "/files",
    responses=error_responses({400: "BAD_REQUEST (unknown status)", 422: "VALIDATION_ERROR"}),
)
async def list_files(
    request: Request,
    consolidation_id: uuid.UUID | None = None,
    status: Annotated[
        list[str] | None, Query(description="file statuses to show (any of them)")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> FileList:
    """Files, newest first, a page at a time."""
    try:
        listing = await queries.list_files(
            runtime_of(request).pool,
            principal_of(request),
            consolidation_id=consolidation_id,
            statuses=status or [],
            limit=limit,
            offset=offset,
        )
    except ValueError as exc:
        raise ApiError(400, "BAD_REQUEST", str(exc)) from None
    return FileList.model_validate(listing)


@router.get(
    "/files/{file_id}",
    responses=error_responses({404: "FILE_NOT_FOUND", 422: "VALIDATION_ERROR"}),
)
async def get_file(request: Request, file_id: uuid.UUID) -> FileDetail:
    """One file with every attempt to recognise it."""
    detail = await queries.file_detail(runtime_of(request).pool, principal_of(request), file_id)
    if detail is None:
        raise ApiError(404, "FILE_NOT_FOUND", "файл не найден")
    return FileDetail.model_validate(detail)


@router.get(
    "/files/{file_id}/documents",
    responses=error_responses({404: "FILE_NOT_FOUND", 422: "VALIDATION_ERROR"}),
)
async def get_documents(request: Request, file_id: uuid.UUID) -> FileDocuments:
    """The documents recognised by the file's current attempt."""
    pool = runtime_of(request).pool
    who = principal_of(request)
    detail = await queries.file_detail(pool, who, file_id)
    if detail is None:
        raise ApiError(404, "FILE_NOT_FOUND", "файл не найден")
    await trail.record(
        pool,
        actor=who.user,
        action="document.view",
        file_id=file_id,
        job_id=detail["current_job_id"],
    )
    return FileDocuments.model_validate(
        {
            "file_id": file_id,
            "status": detail["status"],
            "job_id": detail["current_job_id"],
            "documents": [document_json(d) for d in await reviewed_documents(pool, file_id)],
        }
    )


_BINARY = {"schema": {"type": "string", "format": "binary"}}


@router.get(
    "/files/{file_id}/content",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "the original file as uploaded",
            "content": {
                media_type: _BINARY
                for media_type in (*CONTENT_TYPES.values(), "application/octet-stream")
            },
        },
        **error_responses({404: "FILE_NOT_FOUND", 422: "VALIDATION_ERROR"}),
    },
)
async def download_original(request: Request, file_id: uuid.UUID) -> StreamingResponse:
    """The original file, under its original name."""
    runtime = runtime_of(request)
    who = principal_of(request)
    source = await queries.source_object(runtime.pool, who, file_id)
    if source is None:
        raise ApiError(404, "FILE_NOT_FOUND", "файл не найден")
    await trail.record(runtime.pool, actor=who.user, action="file.download", file_id=file_id)
    return StreamingResponse(
        runtime.storage.stream(source["key"]),
        media_type=source["content_type"] or "application/octet-stream",
        headers={
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(source['original_name'])}",
            "Content-Length": str(source["size"]),
        },
    )


@router.post(
    "/files/{file_id}/retry",
    status_code=201,
    responses=error_responses(
        {
            401: "UNAUTHENTICATED",
            404: "FILE_NOT_FOUND",
            409: "FILE_NOT_RETRYABLE",
            422: "VALIDATION_ERROR",
            429: "TOO_MANY_REQUESTS",
        }
    ),
)
async def retry_one(request: Request, file_id: uuid.UUID) -> RetryStarted:
    """A new attempt for a file whose current attempt failed."""
    who = changer_within(request, "retry", runtime_of(request).settings.retries_per_minute)
    pool = runtime_of(request).pool
    refusal = (await change_refusals(pool, who, [file_id])).get(file_id)
    if refusal is not None:
        raise refusal
    outcome = await retry_file(pool, file_id, who.user)
    if isinstance(outcome, NotRetried):
        status = 404 if outcome.reason == "FILE_NOT_FOUND" else 409
        raise ApiError(status, outcome.reason, outcome.message)
    return RetryStarted(file_id=outcome.file_id, job_id=outcome.job_id, attempt=outcome.attempt)


class BatchRetry(RequestBody):
    # An id that is no file's is echoed back in the answer, so its length is bounded.
    file_ids: list[Annotated[str, Field(max_length=100)]] = Field(
        min_length=1, max_length=MAX_BATCH
    )

    @field_validator("file_ids")
    @classmethod
    def _strings(cls, value: list[str]) -> list[str]:
        return [item.strip() for item in value]


@router.post(
    "/files/retry",
    response_model_exclude_unset=True,
    responses=error_responses(
        {
            400: "BAD_REQUEST (undecodable body)",
            401: "UNAUTHENTICATED",
            413: "BODY_TOO_LARGE",
            422: "VALIDATION_ERROR",
            429: "TOO_MANY_REQUESTS",
        }
    ),
)
async def retry_batch(request: Request, body: BatchRetry) -> BatchRetryResults:
    """Retry several files; each is retried or skipped on its own, with the reason."""
    ids: list[uuid.UUID] = []
    results: list[dict[str, Any]] = []
    for raw in dict.fromkeys(body.file_ids):
        try:
            ids.append(uuid.UUID(raw))
        except ValueError:
            results.append({"file_id": raw, "outcome": "skipped", "reason": "FILE_NOT_FOUND"})
    who = changer_within(request, "retry", runtime_of(request).settings.retries_per_minute)
    pool = runtime_of(request).pool
    # A file out of sight is skipped as not found, like an id that is no file's; one seen but
    # not the user's to change, as forbidden.
    refused = await change_refusals(pool, who, ids)
    outcomes: list[Retried | NotRetried] = [
        NotRetried(
            file_id, "FORBIDDEN" if refusal.status == 403 else "FILE_NOT_FOUND", refusal.message
        )
        for file_id, refusal in refused.items()
    ]
    outcomes += await retry_files(pool, [i for i in ids if i not in refused], who.user)
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
    return BatchRetryResults.model_validate({"results": results})


@router.get(
    "/jobs/{job_id}",
    responses=error_responses({404: "JOB_NOT_FOUND", 422: "VALIDATION_ERROR"}),
)
async def get_job(request: Request, job_id: uuid.UUID) -> JobView:
    """One recognition attempt."""
    job = await queries.job_detail(runtime_of(request).pool, principal_of(request), job_id)
    if job is None:
        raise ApiError(404, "JOB_NOT_FOUND", "задание не найдено")
    return JobView.model_validate(job)


class NewConsolidation(RequestBody):
    name: str = Field(min_length=1, max_length=300)
    team: str | None = Field(
        default=None,
        max_length=200,
        description="the team it belongs to; may be left out by an analyst of one team",
    )

    @field_validator("name")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("название не может быть пустым")
        return value


@router.post(
    "/consolidations",
    status_code=201,
    responses=error_responses(
        {
            400: "BAD_REQUEST (undecodable body), TEAM_REQUIRED",
            401: "UNAUTHENTICATED",
            403: "FORBIDDEN",
            422: "VALIDATION_ERROR",
        }
    ),
)
async def create_consolidation(request: Request, body: NewConsolidation) -> ConsolidationView:
    """A new consolidation, empty, of one of the caller's teams."""
    who = principal_of(request)
    created = await consolidations.create_consolidation(
        runtime_of(request).pool, body.name, team_for(who, body.team), who.user
    )
    return ConsolidationView.model_validate(created)


@router.get("/consolidations", responses=error_responses({}))
async def list_consolidations(request: Request) -> ConsolidationList:
    """Every consolidation with its files counted by status, newest first."""
    items = await consolidations.list_consolidations(
        runtime_of(request).pool, principal_of(request)
    )
    return ConsolidationList.model_validate({"items": items})


@router.get(
    "/consolidations/{consolidation_id}",
    responses=error_responses({404: "CONSOLIDATION_NOT_FOUND", 422: "VALIDATION_ERROR"}),
)
async def get_consolidation(request: Request, consolidation_id: uuid.UUID) -> ConsolidationView:
    """One consolidation with its files counted by status."""
    found = await consolidations.get_consolidation(
        runtime_of(request).pool, principal_of(request), consolidation_id
    )
    if found is None:
        raise ApiError(404, "CONSOLIDATION_NOT_FOUND", "консолидация не найдена")
    return ConsolidationView.model_validate(found)


class TeamAssignment(RequestBody):
    team: str | None = Field(max_length=200, description="the team; null: none")


@router.patch(
    "/consolidations/{consolidation_id}",
    responses=error_responses(
        {
            400: "BAD_REQUEST (undecodable body)",
            401: "UNAUTHENTICATED",
            403: "FORBIDDEN (not an admin)",
            404: "CONSOLIDATION_NOT_FOUND",
            422: "VALIDATION_ERROR",
        }
    ),
)
async def assign_consolidation_team(
    request: Request, consolidation_id: uuid.UUID, body: TeamAssignment
) -> ConsolidationView:
    """Hand a consolidation to a team (admins)."""
    admin = admin_of(request)
    pool = runtime_of(request).pool
    team = body.team.strip() if body.team and body.team.strip() else None
    if not await consolidations.assign_team(pool, consolidation_id, team, admin.user):
        raise ApiError(404, "CONSOLIDATION_NOT_FOUND", "консолидация не найдена")
    found = await consolidations.get_consolidation(pool, admin, consolidation_id)
    assert found is not None  # an admin sees every consolidation
    return ConsolidationView.model_validate(found)
