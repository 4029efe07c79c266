"""Typed wire messages: the request and the result envelope, parsed after schema validation
and serialised for a chosen contract version."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import UTC
from typing import Any, TypeVar
from uuid import UUID

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from recognition_contract.codec import MAX_MESSAGE_BYTES, decode_json, encode_json
from recognition_contract.documents import Warning, warnings_from, warnings_to_wire
from recognition_contract.enums import ErrorCode, FileType, Pipeline, Status, error_code_in
from recognition_contract.errors import ContractError, Reason
from recognition_contract.schemas import Kind, validate
from recognition_contract.versions import SUPPORTED_MAJORS, SchemaVersion, parse_version

_Model = TypeVar("_Model", bound=BaseModel)


class _Open(BaseModel):
    # Wire frames: a newer MINOR may add fields this reader does not know.
    model_config = ConfigDict(frozen=True, extra="ignore")


class S3Ref(_Open):
    bucket: str
    key: str


class ServiceInfo(_Open):
    name: str
    version: str
    statements_version: str | None = None
    """MAJOR 2 only; ``None`` in 1.x."""


class ErrorInfo(_Open):
    code: ErrorCode
    message: str


class RecognitionRequest(_Open):
    """What arm-core asks a recognition service to do."""

    schema_version: str = "1.0"
    job_id: UUID
    file_id: UUID
    pipeline: Pipeline
    file_type: FileType
    original_name: str
    s3: S3Ref
    reply_deadline: AwareDatetime
    attempt: int = Field(ge=1)

    @property
    def version(self) -> SchemaVersion:
        return parse_version(self.schema_version)


class ResultEnvelope(_Open):
    """An ack (``processing``) or an outcome published by a recognition service.

    ``metrics`` holds the counters as they came, without ``warnings``; ``warnings`` holds the
    file-level warnings as structured values whatever the MAJOR on the wire.
    """

    schema_version: str = "1.0"
    job_id: UUID
    file_id: UUID
    status: Status
    service: ServiceInfo
    result_s3: S3Ref | None = None
    result_schema_version: str | None = None
    error: ErrorInfo | None = None
    raw_s3_key: str | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)
    warnings: tuple[Warning, ...] = ()

    @property
    def version(self) -> SchemaVersion:
        return parse_version(self.schema_version)


def _typed(model: type[_Model], data: Mapping[str, Any]) -> _Model:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        # The schema is the stricter check; reaching this means the two drifted apart.
        raise ContractError(
            Reason.SCHEMA, f"{model.__name__}: {exc.errors()[0]['msg']}", errors=[str(exc)]
        ) from None


def request_from_payload(
    payload: object, *, majors: Collection[int] = SUPPORTED_MAJORS
) -> RecognitionRequest:
    """A decoded request, validated by its MAJOR's schema, as a typed value."""
    validate(Kind.REQUEST, payload, majors=majors)
    assert isinstance(payload, dict)  # validate() refuses anything else
    return _typed(RecognitionRequest, payload)


def envelope_from_payload(
    payload: object, *, majors: Collection[int] = SUPPORTED_MAJORS
) -> ResultEnvelope:
    """A decoded envelope, validated by its MAJOR's schema, as a typed value."""
    version = validate(Kind.RESULT_MESSAGE, payload, majors=majors)
    assert isinstance(payload, dict)  # validate() refuses anything else
    metrics = dict(payload.get("metrics") or {})
    raw_warnings = metrics.pop("warnings", [])
    data = {k: v for k, v in payload.items() if k not in ("metrics", "warnings")}
    envelope = _typed(ResultEnvelope, {**data, "metrics": metrics})
    return envelope.model_copy(update={"warnings": warnings_from(raw_warnings, version)})


def parse_request(
    data: bytes | bytearray | memoryview,
    *,
    max_bytes: int = MAX_MESSAGE_BYTES,
    majors: Collection[int] = SUPPORTED_MAJORS,
) -> RecognitionRequest:
    """Message body -> ``RecognitionRequest``, or ``ContractError`` (code SCHEMA_MISMATCH)."""
    return request_from_payload(decode_json(data, max_bytes=max_bytes), majors=majors)


def parse_envelope(
    data: bytes | bytearray | memoryview,
    *,
    max_bytes: int = MAX_MESSAGE_BYTES,
    majors: Collection[int] = SUPPORTED_MAJORS,
) -> ResultEnvelope:
    """Message body -> ``ResultEnvelope``, or ``ContractError``; ``UnknownMajor`` for e.g. 3.0."""
    return envelope_from_payload(decode_json(data, max_bytes=max_bytes), majors=majors)


def _target(version: str | SchemaVersion) -> SchemaVersion:
    target = version if isinstance(version, SchemaVersion) else parse_version(version)
    if target.major not in SUPPORTED_MAJORS:
        raise ValueError(f"cannot write contract version {target}")
    return target


def request_payload(
    request: RecognitionRequest, version: str | SchemaVersion | None = None
) -> dict[str, Any]:
    """The wire form of ``request`` in ``version`` (default: its own), checked by the schema."""
    target = _target(version if version is not None else request.schema_version)
    deadline = request.reply_deadline.astimezone(UTC).isoformat().replace("+00:00", "Z")
    payload: dict[str, Any] = {
        "schema_version": str(target),
        "job_id": str(request.job_id),
        "file_id": str(request.file_id),
        "pipeline": request.pipeline.value,
        "file_type": request.file_type.value,
        "original_name": request.original_name,
        "s3": {"bucket": request.s3.bucket, "key": request.s3.key},
        "reply_deadline": deadline,
        "attempt": request.attempt,
    }
    validate(Kind.REQUEST, payload, majors=(target.major,))
    return payload


def envelope_payload(
    envelope: ResultEnvelope, version: str | SchemaVersion | None = None
) -> dict[str, Any]:
    """The wire form of ``envelope`` in ``version`` (default: its own), checked by the schema.

    Writing 1.x turns warnings into text (see ``warning_text``), drops
    ``service.statements_version`` and says an error code 1.x lacks in its words
    (``error_code_in``).
    """
    target = _target(version if version is not None else envelope.schema_version)
    service: dict[str, Any] = {"name": envelope.service.name, "version": envelope.service.version}
    if target.major >= 2 and envelope.service.statements_version is not None:
        service["statements_version"] = envelope.service.statements_version
    payload: dict[str, Any] = {
        "schema_version": str(target),
        "job_id": str(envelope.job_id),
        "file_id": str(envelope.file_id),
        "status": envelope.status.value,
        "service": service,
    }
    if envelope.result_s3 is not None:
        payload["result_s3"] = {"bucket": envelope.result_s3.bucket, "key": envelope.result_s3.key}
    if envelope.result_schema_version is not None:
        payload["result_schema_version"] = envelope.result_schema_version
    if envelope.error is not None:
        code = error_code_in(envelope.error.code, target.major)
        payload["error"] = {"code": code.value, "message": envelope.error.message}
    if envelope.raw_s3_key is not None:
        payload["raw_s3_key"] = envelope.raw_s3_key
    metrics = dict(envelope.metrics)
    if envelope.warnings:
        metrics["warnings"] = warnings_to_wire(envelope.warnings, target.major)
    if metrics:
        payload["metrics"] = metrics
    validate(Kind.RESULT_MESSAGE, payload, majors=(target.major,))
    return payload


def dump_request(request: RecognitionRequest, version: str | SchemaVersion | None = None) -> bytes:
    """Message body of ``request`` in ``version``; ``ContractError`` if off-schema."""
    return encode_json(request_payload(request, version))


def dump_envelope(envelope: ResultEnvelope, version: str | SchemaVersion | None = None) -> bytes:
    """Message body of ``envelope`` in ``version``; ``ContractError`` if off-schema."""
    return encode_json(envelope_payload(envelope, version))
