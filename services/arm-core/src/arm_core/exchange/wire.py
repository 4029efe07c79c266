"""Envelopes from the result subject, validated by their MAJOR, turned into commands."""

from __future__ import annotations

from typing import Any

from arm_core.exchange.commands import AckJob, ApplyResult, ObjectRef
from recognition_contract import (
    NATS_MSG_ID,
    ContractError,
    Reason,
    ResultEnvelope,
    Status,
    decode_json,
    envelope_from_payload,
)
from recognition_contract.codec import MAX_MESSAGE_BYTES


class UnusableMessage(Exception):
    """A message the inbox drops, with the reason and whatever ids could be read."""

    def __init__(self, reason: str, ids: dict[str, str], status: str | None, major: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.ids = ids
        self.status = status
        self.unknown_major = major


def _readable_ids(payload: dict[str, Any]) -> dict[str, str]:
    return {
        key: str(payload[key])[:64]
        for key in ("job_id", "file_id", "schema_version")
        if isinstance(payload.get(key), str)
    }


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(key) or _has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


def _unstorable_header(text: str | None) -> bool:
    """A header PostgreSQL cannot hold: NUL, or no UTF-8 form (an unpaired surrogate)."""
    if text is None:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return "\x00" in text


def command_from_message(data: bytes, headers: dict[str, str]) -> AckJob | ApplyResult:
    try:
        payload = decode_json(data, max_bytes=MAX_MESSAGE_BYTES)
    except ContractError as exc:
        raise UnusableMessage(f"{exc.reason}: {exc.message}", {}, None, False) from None
    status = payload.get("status") if isinstance(payload.get("status"), str) else None
    # Text PostgreSQL cannot hold. decode_json has refused unpaired surrogates already, and
    # JSON carries NUL only as the escape \u0000 (a raw control character is not JSON), so
    # the payload is walked only when its bytes hold that escape.
    if (b"\\u0000" in data and _has_nul(payload)) or _unstorable_header(headers.get(NATS_MSG_ID)):
        raise UnusableMessage("text with NUL", _readable_ids(payload), status, False)
    try:
        envelope = envelope_from_payload(payload)
    except ContractError as exc:
        raise UnusableMessage(
            f"{exc.reason}: {exc.message}",
            _readable_ids(payload),
            status,
            exc.reason == Reason.UNKNOWN_MAJOR,
        ) from None
    return command_from_envelope(envelope, headers.get(NATS_MSG_ID))


def command_from_envelope(envelope: ResultEnvelope, msg_id: str | None) -> AckJob | ApplyResult:
    service = envelope.service
    if envelope.status == Status.PROCESSING:
        return AckJob(
            job_id=envelope.job_id,
            file_id=envelope.file_id,
            service_name=service.name,
            service_version=service.version,
            msg_id=msg_id,
        )
    result = envelope.result_s3
    error = envelope.error
    return ApplyResult(
        job_id=envelope.job_id,
        file_id=envelope.file_id,
        status=envelope.status.value,  # type: ignore[arg-type]
        schema_version=envelope.schema_version,
        service_name=service.name,
        service_version=service.version,
        statements_version=service.statements_version,
        msg_id=msg_id,
        result=ObjectRef(result.bucket, result.key) if result is not None else None,
        result_schema_version=envelope.result_schema_version,
        raw_key=envelope.raw_s3_key,
        error_code=error.code.value if error is not None else None,
        error_message=error.message if error is not None else None,
        metrics=dict(envelope.metrics),
        warnings=envelope.warnings,
    )
