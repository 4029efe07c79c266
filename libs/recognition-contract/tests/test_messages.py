from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest

from recognition_contract import (
    LEGACY_WARNING,
    MAX_MESSAGE_BYTES,
    ContractError,
    ErrorCode,
    ErrorInfo,
    FileType,
    Locator,
    Pipeline,
    Reason,
    RecognitionRequest,
    ResultEnvelope,
    S3Ref,
    ServiceInfo,
    Severity,
    Status,
    Warning,
    decode_json,
    dump_envelope,
    dump_request,
    envelope_from_payload,
    legacy_warning,
    parse_envelope,
    parse_example_name,
    parse_request,
    parse_result_file,
    result_key,
    warning_text,
    warning_to_wire,
    warnings_to_wire,
)

JOB = uuid.UUID("8c9d0e1f-2a3b-4c5d-8e6f-7a8b9c0d1e2f")
FILE = uuid.UUID("3f2b8c1e-6d4a-4f7b-9a21-5c8e0d7b1a42")
TABULAR = ServiceInfo(name="tabular-parser", version="2.0.1", statements_version="2025.04")


def _request(**changes: object) -> RecognitionRequest:
    fields: dict[str, object] = {
        "job_id": JOB,
        "file_id": FILE,
        "pipeline": Pipeline.TABULAR,
        "file_type": FileType.XLSX,
        "original_name": "ОСВ 1 кв 2025.xlsx",
        "s3": S3Ref(bucket="arm-ka", key=f"uploads/{FILE}/source.xlsx"),
        "reply_deadline": datetime(2025, 4, 2, 12, 20, tzinfo=timezone(timedelta(hours=3))),
        "attempt": 1,
    }
    fields.update(changes)
    return RecognitionRequest.model_validate(fields)


# ---------------------------------------------------------------- bytes that are not a message


def test_not_utf8() -> None:
    with pytest.raises(ContractError) as caught:
        parse_request(b'{"schema_version": "1.0", "original_name": "\xcf\xf1\xe2"}')
    assert caught.value.reason is Reason.NOT_UTF8
    assert caught.value.code is ErrorCode.SCHEMA_MISMATCH


@pytest.mark.parametrize(
    "data",
    [b'{"a": "x\\ud800"}', b'{"\\udc00": 1}', b'{"a": ["\\ud83d"]}'],
    ids=["high-half-in-a-value", "low-half-in-a-key", "in-a-list"],
)
def test_an_unpaired_surrogate_escape_is_not_utf8(data: bytes) -> None:
    with pytest.raises(ContractError) as caught:
        decode_json(data, max_bytes=1024)
    assert caught.value.reason is Reason.NOT_UTF8


def test_a_surrogate_pair_escape_and_an_escaped_backslash_are_text() -> None:
    value = decode_json(b'{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}', max_bytes=1024)
    assert value == {"a": "\U0001f600", "b": "\\ud800"}


def test_utf16_is_not_utf8() -> None:
    with pytest.raises(ContractError) as caught:
        parse_envelope('{"schema_version": "1.0"}'.encode("utf-16"))
    assert caught.value.reason is Reason.NOT_UTF8


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b"not json", b'{"a": 1,}', b'{"a": NaN}', b'{"a": Infinity}', b"[" * 100_000],
)
def test_not_json(data: bytes) -> None:
    with pytest.raises(ContractError) as caught:
        parse_request(data)
    assert caught.value.reason is Reason.NOT_JSON


def test_duplicate_keys_are_not_json() -> None:
    with pytest.raises(ContractError, match="duplicate key 'status'") as caught:
        parse_envelope(b'{"status": "done", "status": "error"}')
    assert caught.value.reason is Reason.NOT_JSON


@pytest.mark.parametrize("data", [b"[]", b'"1.0"', b"42", b"null"])
def test_not_an_object(data: bytes) -> None:
    with pytest.raises(ContractError) as caught:
        parse_envelope(data)
    assert caught.value.reason is Reason.NOT_OBJECT


def test_too_large() -> None:
    data = parse_example_name("request-1.0-tabular.json").read_bytes()
    assert parse_request(data, max_bytes=len(data)).attempt == 1
    with pytest.raises(ContractError) as caught:
        parse_request(data, max_bytes=len(data) - 1)
    assert caught.value.reason is Reason.TOO_LARGE
    with pytest.raises(ContractError) as caught:
        parse_envelope(b" " * (MAX_MESSAGE_BYTES + 1))
    assert caught.value.reason is Reason.TOO_LARGE
    result = parse_example_name("result-1.0-done-osv-general.json").read_bytes()
    with pytest.raises(ContractError, match="exceeds 100"):
        parse_result_file(result, max_bytes=100)


def test_decode_accepts_memoryview_and_bytearray() -> None:
    assert decode_json(memoryview(b'{"a": 1}'), max_bytes=10) == {"a": 1}
    assert decode_json(bytearray(b'{"a": 1}'), max_bytes=10) == {"a": 1}


def test_schema_errors_are_listed_and_bounded() -> None:
    payload = parse_example_name("invalid-request-1.0-no-s3-key.json").read_bytes()
    with pytest.raises(ContractError) as caught:
        parse_request(payload)
    error = caught.value
    assert error.reason is Reason.SCHEMA
    assert error.errors == ('s3: "key" is a required property',)
    assert "recognition-request.schema.json" in error.message
    needs_check = parse_example_name("invalid-result-2.0-needs_check-without-warnings.json")
    with pytest.raises(ContractError) as caught:
        parse_result_file(needs_check.read_bytes())
    assert all(len(line) <= 300 for line in caught.value.errors)
    assert len(caught.value.message) <= 1000


# ---------------------------------------------------------------- requests


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_request_round_trip(version: str) -> None:
    request = _request()
    data = dump_request(request, version)
    payload = json.loads(data)
    assert payload["schema_version"] == version
    assert payload["reply_deadline"] == "2025-04-02T09:20:00Z"
    assert payload["job_id"] == str(JOB)
    parsed = parse_request(data)
    assert parsed.version.major == int(version[0])
    assert parsed.reply_deadline == request.reply_deadline
    assert parsed.model_copy(update={"schema_version": "1.0"}) == request


def test_request_dump_keeps_cyrillic_readable() -> None:
    assert "ОСВ 1 кв 2025.xlsx".encode() in dump_request(_request())


def test_request_dump_checks_the_schema() -> None:
    mismatched = _request(pipeline=Pipeline.IMAGE)
    with pytest.raises(ContractError, match="file_type"):
        dump_request(mismatched)


def test_request_needs_an_aware_deadline() -> None:
    with pytest.raises(ValueError, match="timezone"):
        _request(reply_deadline=datetime(2025, 4, 2, 9, 20))


def test_request_to_unknown_version() -> None:
    with pytest.raises(ValueError, match=r"3\.0"):
        dump_request(_request(), "3.0")


def test_parsed_request_fields() -> None:
    request = parse_request(parse_example_name("request-1.0-image.json").read_bytes())
    assert request.pipeline is Pipeline.IMAGE
    assert request.file_type is FileType.PDF
    assert request.reply_deadline.tzinfo is not None
    assert request.reply_deadline.astimezone(UTC) == datetime(2025, 4, 2, 9, 35, tzinfo=UTC)


# ---------------------------------------------------------------- envelopes and warnings


def test_legacy_warnings_are_wrapped() -> None:
    envelope = parse_envelope(
        parse_example_name("result-message-1.0-needs_check.json").read_bytes()
    )
    assert envelope.status is Status.NEEDS_CHECK
    [warning] = envelope.warnings
    assert warning == Warning(
        code="LEGACY_WARNING", severity=Severity.INFO, message="sheet=ОСВ 60 строки без родителя"
    )
    assert warning_to_wire(warning, 2) == {
        "code": "LEGACY_WARNING",
        "severity": "info",
        "message": "sheet=ОСВ 60 строки без родителя",
        "locator": None,
    }
    assert "warnings" not in envelope.metrics
    assert envelope.metrics["rows"] == 6
    assert envelope.service.statements_version is None


def test_v2_warnings_are_kept_as_they_came() -> None:
    example = parse_example_name("result-message-2.0-needs_check.json")
    envelope = parse_envelope(example.read_bytes())
    [warning] = envelope.warnings
    assert warning.code == "JSON_FAILED"
    assert warning.severity is Severity.ERROR
    assert warning.locator == Locator(page=2)
    assert warnings_to_wire(envelope.warnings, 2) == example.load()["metrics"]["warnings"]
    assert envelope.raw_s3_key is not None
    assert envelope.service.statements_version == "2025.04"


def test_legacy_warning_helper() -> None:
    warning = legacy_warning("sheet=ОСВ строка 12 без кода")
    assert (warning.code, warning.severity, warning.locator) == (
        LEGACY_WARNING,
        Severity.INFO,
        None,
    )
    assert warning_text(warning) == "sheet=ОСВ строка 12 без кода"


def test_structured_warning_as_text() -> None:
    warning = Warning(
        code="TOTALS_MISMATCH",
        severity=Severity.WARNING,
        message="Итого не равно сумме счетов",
        locator=Locator(sheet="ОСВ 60", row=15),
    )
    assert (
        warning_text(warning) == "sheet=ОСВ 60 row=15 TOTALS_MISMATCH: Итого не равно сумме счетов"
    )


def test_warning_objects_are_closed() -> None:
    payload = parse_example_name("result-message-2.0-needs_check.json").load()
    payload["metrics"]["warnings"][0]["details"] = {"page": 2}
    with pytest.raises(ContractError, match="details"):
        envelope_from_payload(payload)


def _done(**changes: object) -> ResultEnvelope:
    fields: dict[str, object] = {
        "job_id": JOB,
        "file_id": FILE,
        "status": Status.NEEDS_CHECK,
        "service": TABULAR,
        "result_s3": S3Ref(bucket="arm-ka", key=result_key(FILE, JOB)),
        "result_schema_version": "2.0",
        "metrics": {"duration_ms": 2315, "rows": 12},
        "warnings": (
            Warning(
                code="ROW_WITHOUT_PARENT",
                severity=Severity.WARNING,
                message="строка без родителя",
                locator=Locator(sheet="ОСВ 60", row=14),
            ),
        ),
    }
    fields.update(changes)
    return ResultEnvelope.model_validate(fields)


def test_envelope_written_as_2_0() -> None:
    envelope = _done()
    payload = json.loads(dump_envelope(envelope, "2.0"))
    assert payload["service"]["statements_version"] == "2025.04"
    assert payload["metrics"]["warnings"] == [
        {
            "code": "ROW_WITHOUT_PARENT",
            "severity": "warning",
            "message": "строка без родителя",
            "locator": {"sheet": "ОСВ 60", "row": 14},
        }
    ]
    assert parse_envelope(dump_envelope(envelope, "2.0")) == envelope.model_copy(
        update={"schema_version": "2.0"}
    )


def test_envelope_written_as_1_0() -> None:
    payload = json.loads(dump_envelope(_done(), "1.0"))
    assert payload["schema_version"] == "1.0"
    assert "statements_version" not in payload["service"]
    assert payload["metrics"]["warnings"] == [
        "sheet=ОСВ 60 row=14 ROW_WITHOUT_PARENT: строка без родителя"
    ]
    assert payload["metrics"]["duration_ms"] == 2315


def test_ack_has_no_result_and_no_metrics() -> None:
    ack = ResultEnvelope(job_id=JOB, file_id=FILE, status=Status.PROCESSING, service=TABULAR)
    assert json.loads(dump_envelope(ack, "1.0")) == {
        "schema_version": "1.0",
        "job_id": str(JOB),
        "file_id": str(FILE),
        "status": "processing",
        "service": {"name": "tabular-parser", "version": "2.0.1"},
    }


def test_error_envelope_for_a_broken_request() -> None:
    with pytest.raises(ContractError) as caught:
        parse_request(b"{")
    error = ErrorInfo(code=caught.value.code, message=caught.value.message)
    envelope = ResultEnvelope(
        job_id=JOB, file_id=FILE, status=Status.ERROR, service=TABULAR, error=error
    )
    parsed = parse_envelope(dump_envelope(envelope, "1.0"))
    assert parsed.error is not None
    assert parsed.error.code is ErrorCode.SCHEMA_MISMATCH


def test_envelope_dump_checks_the_schema() -> None:
    with pytest.raises(ContractError, match="result_s3"):
        dump_envelope(_done(result_s3=None, result_schema_version=None))
    with pytest.raises(ContractError, match="error"):
        dump_envelope(_done(status=Status.ERROR, result_s3=None, result_schema_version=None))


def test_unknown_envelope_fields_are_ignored() -> None:
    envelope = parse_envelope(
        parse_example_name("result-message-2.1-needs_check-unknown-field.json").read_bytes()
    )
    assert str(envelope.version) == "2.1"
    assert not hasattr(envelope, "region")


def test_result_file_warnings_are_structured() -> None:
    legacy = parse_result_file(
        parse_example_name("result-1.0-needs_check-osv-account.json").read_bytes()
    )
    assert [w.message for w in legacy.warnings] == ["sheet=ОСВ 60 строки без родителя"]
    assert {w.code for w in legacy.warnings} == {LEGACY_WARNING}
    current = parse_result_file(
        parse_example_name("result-2.0-needs_check-statement.json").read_bytes()
    )
    assert [w.code for w in current.warnings] == ["JSON_FAILED"]
    assert current.status is Status.NEEDS_CHECK
