"""The result file as a typed value: read by the MAJOR it declares, written in the MAJOR the
service speaks, checked against that MAJOR's schema both ways."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from recognition_contract.codec import MAX_RESULT_FILE_BYTES, decode_json
from recognition_contract.document_wire import document_of, to_wire
from recognition_contract.documents import Document, Warning, warnings_from, warnings_to_wire
from recognition_contract.enums import ErrorCode, Status
from recognition_contract.messages import ErrorInfo, ServiceInfo
from recognition_contract.schemas import Kind, validate
from recognition_contract.versions import SUPPORTED_MAJORS, SchemaVersion, parse_version


@dataclass(frozen=True)
class ResultFile:
    """Every document recognised in one source file; ``warnings`` are the file-level ones,
    document-level ones sit in each document."""

    version: SchemaVersion
    job_id: UUID
    file_id: UUID
    status: Status
    """``done``, ``needs_check`` or ``error``: a result file never says ``processing``."""
    service: ServiceInfo
    group_schema: str
    documents: tuple[Document, ...]
    warnings: tuple[Warning, ...] = ()
    error: ErrorInfo | None = None


def result_file_from_payload(
    payload: object, *, majors: Collection[int] = SUPPORTED_MAJORS
) -> ResultFile:
    version = validate(Kind.RESULT_FILE, payload, majors=majors)
    assert isinstance(payload, dict)  # validate() refuses anything else
    service = payload["service"]
    error = payload.get("error")
    return ResultFile(
        version=version,
        job_id=UUID(payload["job_id"]),
        file_id=UUID(payload["file_id"]),
        status=Status(payload["status"]),
        service=ServiceInfo(
            name=service["name"],
            version=service["version"],
            statements_version=service.get("statements_version") if version.major >= 2 else None,
        ),
        group_schema=payload["group_schema"],
        documents=tuple(document_of(doc, version.major) for doc in payload["documents"]),
        warnings=warnings_from(payload.get("warnings", []), version),
        error=ErrorInfo(code=ErrorCode(error["code"]), message=error["message"]) if error else None,
    )


def parse_result_file(
    data: bytes | bytearray | memoryview,
    *,
    max_bytes: int = MAX_RESULT_FILE_BYTES,
    majors: Collection[int] = SUPPORTED_MAJORS,
) -> ResultFile:
    """Result file bytes -> ``ResultFile``, or ``ContractError`` (``UnknownMajor`` for e.g. 3.0)."""
    return result_file_from_payload(decode_json(data, max_bytes=max_bytes), majors=majors)


def result_file_payload(
    result: ResultFile, version: str | SchemaVersion | None = None
) -> dict[str, Any]:
    """The wire form of ``result`` in ``version`` (default: its own), checked by that MAJOR's
    schema (``ContractError`` when it does not fit). Writing 1.x turns warnings into text and
    drops ``service.statements_version``."""
    target = parse_version(version) if isinstance(version, str) else version or result.version
    if target.major not in SUPPORTED_MAJORS:
        raise ValueError(f"cannot write contract version {target}")
    major = target.major
    service = {"name": result.service.name, "version": result.service.version}
    if major >= 2 and result.service.statements_version is not None:
        service["statements_version"] = result.service.statements_version
    payload: dict[str, Any] = {
        "schema_version": str(target),
        "job_id": str(result.job_id),
        "file_id": str(result.file_id),
        "status": result.status.value,
        "service": service,
        "group_schema": result.group_schema,
        "documents": [to_wire(document, major) for document in result.documents],
        "warnings": warnings_to_wire(result.warnings, major),
    }
    if result.error is not None:
        payload["error"] = {"code": result.error.code.value, "message": result.error.message}
    validate(Kind.RESULT_FILE, payload, majors=(major,))
    return payload
