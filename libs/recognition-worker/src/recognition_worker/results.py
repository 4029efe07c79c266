"""The result file and the envelopes of one job, in the contract version the service speaks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal
from uuid import UUID

from recognition_contract import (
    MAX_RESULT_FILE_BYTES,
    ContractError,
    Document,
    ErrorCode,
    ErrorInfo,
    FileType,
    ResultEnvelope,
    ResultFile,
    S3Ref,
    SchemaVersion,
    ServiceInfo,
    Statement,
    Status,
    Warning,
    ack_msg_id,
    dump_envelope,
    encode_json,
    parse_version,
    result_msg_id,
)
from recognition_contract import result_file_payload as contract_payload
from recognition_worker.dedupe import Outgoing
from recognition_worker.recognition import Recognition, RecognitionError, RecognizeFn

# The envelope repeats the file-level warnings for the core's job view; a file with thousands
# of them must still fit a NATS message, and the result file has them all anyway.
MAX_ENVELOPE_WARNINGS: Final = 50
MAX_ERROR_MESSAGE_CHARS: Final = 1000


def result_file_payload(
    *,
    job_id: UUID,
    file_id: UUID,
    service: ServiceInfo,
    recognition: Recognition,
    version: str | SchemaVersion,
) -> dict[str, Any]:
    """The result file of a recognised job in ``version``, checked against its schema.

    Raises ``ContractError`` when the documents do not match the schema (a recognizer bug).
    """
    target = version if isinstance(version, SchemaVersion) else parse_version(version)
    result = ResultFile(
        version=target,
        job_id=job_id,
        file_id=file_id,
        status=Status(recognition.status),
        service=service,
        group_schema=recognition.group_schema,
        documents=tuple(recognition.documents),
        warnings=tuple(recognition.warnings),
    )
    return contract_payload(result)


def encode_result_file(payload: Mapping[str, Any]) -> bytes:
    return encode_json(payload)


def count_rows(documents: Sequence[Document]) -> int:
    """Rows of trial balances plus transactions of statements."""
    return sum(len(d.transactions) if isinstance(d, Statement) else len(d.rows) for d in documents)


@dataclass(frozen=True)
class EncodedResult:
    """A result file ready for storage, with what its envelope repeats."""

    body: bytes
    status: Literal["done", "needs_check"]
    warnings: tuple[Warning, ...] = ()
    """File-level warnings, at most ``MAX_ENVELOPE_WARNINGS``."""
    metrics: dict[str, int] = field(default_factory=dict)
    raw: tuple[tuple[str, bytes], ...] = ()
    """Raw output files (name, body) to store under the job's raw prefix."""


def raw_names_valid(names: Sequence[str]) -> bool:
    """Names become the last part of an object key: one plain segment each."""
    return all(
        name and "/" not in name and "\\" not in name and name not in (".", "..") for name in names
    )


def recognize_to_result(
    recognize: RecognizeFn,
    file_type: FileType,
    source: bytes,
    original_name: str,
    *,
    job_id: UUID,
    file_id: UUID,
    service: ServiceInfo,
    version: str,
) -> EncodedResult:
    """Recognise, build, validate and encode the result file: all the CPU work of a job, so
    that the service process only moves bytes. Raises ``RecognitionError``."""
    recognition = recognize(file_type, source, original_name)
    del source
    if not recognition.documents:
        raise RecognitionError(ErrorCode.RECOGNITION_FAILED, "no document was recognised")
    try:
        payload = result_file_payload(
            job_id=job_id,
            file_id=file_id,
            service=service,
            recognition=recognition,
            version=version,
        )
    except ContractError as exc:
        # The recognizer produced something the contract refuses: a defect of the service.
        raise RecognitionError(
            ErrorCode.UNKNOWN_ERROR, f"recognised documents do not match the contract: {exc}"
        ) from None
    body = encode_result_file(payload)
    if len(body) > MAX_RESULT_FILE_BYTES:
        raise RecognitionError(
            ErrorCode.RECOGNITION_FAILED,
            f"the result file would be {len(body) // 1024**2} MiB, over the contract limit of "
            f"{MAX_RESULT_FILE_BYTES // 1024**2} MiB",
        )
    metrics = {k: v for k, v in recognition.metrics.items() if isinstance(v, int) and v >= 0}
    metrics["documents"] = len(recognition.documents)
    metrics["rows"] = count_rows(recognition.documents)
    raw = tuple((name, bytes(data)) for name, data in recognition.raw.items())
    if not raw_names_valid([name for name, _ in raw]):
        raise RecognitionError(
            ErrorCode.UNKNOWN_ERROR, "raw output names must be single key segments"
        )
    return EncodedResult(
        body=body,
        status=recognition.status,
        warnings=tuple(recognition.warnings[:MAX_ENVELOPE_WARNINGS]),
        metrics=metrics,
        raw=raw,
    )


class Envelopes:
    """Builds the wire messages of one service: ack, outcome, error, with their msg ids."""

    def __init__(self, service: ServiceInfo, version: str) -> None:
        self.service = service
        self.version = version

    def ack(self, job_id: UUID, file_id: UUID, attempt: int) -> Outgoing:
        envelope = ResultEnvelope(
            schema_version=self.version,
            job_id=job_id,
            file_id=file_id,
            status=Status.PROCESSING,
            service=self.service,
        )
        return Outgoing(dump_envelope(envelope, self.version), ack_msg_id(job_id, attempt))

    def outcome(
        self,
        *,
        job_id: UUID,
        file_id: UUID,
        attempt: int,
        result: EncodedResult,
        location: S3Ref,
        metrics: Mapping[str, int],
        raw_key: str | None = None,
    ) -> Outgoing:
        envelope = ResultEnvelope(
            schema_version=self.version,
            job_id=job_id,
            file_id=file_id,
            status=Status(result.status),
            service=self.service,
            result_s3=location,
            result_schema_version=self.version,
            raw_s3_key=raw_key,
            metrics={**result.metrics, **metrics},
            warnings=result.warnings,
        )
        return Outgoing(dump_envelope(envelope, self.version), result_msg_id(job_id, attempt))

    def error(
        self,
        *,
        job_id: UUID,
        file_id: UUID,
        attempt: int,
        code: ErrorCode,
        message: str,
        metrics: Mapping[str, int] | None = None,
    ) -> Outgoing:
        message = message.strip() or code.value
        if len(message) > MAX_ERROR_MESSAGE_CHARS:
            message = message[: MAX_ERROR_MESSAGE_CHARS - 1] + "…"
        envelope = ResultEnvelope(
            schema_version=self.version,
            job_id=job_id,
            file_id=file_id,
            status=Status.ERROR,
            service=self.service,
            error=ErrorInfo(code=code, message=message),
            metrics=dict(metrics or {}),
        )
        return Outgoing(dump_envelope(envelope, self.version), result_msg_id(job_id, attempt))
