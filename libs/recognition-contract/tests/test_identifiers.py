from __future__ import annotations

import uuid

import pytest

from recognition_contract import (
    NATS_MSG_ID,
    ErrorCode,
    FileType,
    Kind,
    Pipeline,
    Severity,
    Status,
    ack_msg_id,
    error_code_in,
    file_types_of,
    load_schema,
    pipeline_for,
    raw_prefix,
    request_msg_id,
    result_key,
    result_msg_id,
)

JOB = "8c9d0e1f-2a3b-4c5d-8e6f-7a8b9c0d1e2f"
FILE = "3f2b8c1e-6d4a-4f7b-9a21-5c8e0d7b1a42"


def test_msg_ids() -> None:
    assert NATS_MSG_ID == "Nats-Msg-Id"
    assert request_msg_id(JOB, 1) == f"{JOB}:1"
    assert ack_msg_id(JOB, 2) == f"ack:{JOB}:2"
    assert result_msg_id(uuid.UUID(JOB), 3) == f"result:{JOB}:3"


def test_msg_ids_use_the_canonical_job_id() -> None:
    assert request_msg_id(JOB.upper(), 1) == request_msg_id(JOB, 1)


@pytest.mark.parametrize("attempt", [0, -1, True])
def test_msg_id_attempt_starts_at_one(attempt: int) -> None:
    with pytest.raises(ValueError, match="attempt"):
        request_msg_id(JOB, attempt)


def test_msg_id_needs_a_uuid() -> None:
    with pytest.raises(ValueError, match="UUID"):
        result_msg_id("job-42", 1)


def test_storage_keys() -> None:
    assert result_key(FILE, JOB) == f"results/{FILE}/{JOB}/result.json"
    assert raw_prefix(uuid.UUID(FILE), uuid.UUID(JOB)) == f"raw/{FILE}/{JOB}/"


@pytest.mark.parametrize(
    ("file_type", "pipeline"),
    [
        (FileType.XLS, Pipeline.TABULAR),
        ("XLSX", Pipeline.TABULAR),
        ("XLSB", Pipeline.TABULAR),
        ("PDF", Pipeline.IMAGE),
        (FileType.PNG, Pipeline.IMAGE),
        ("JPG", Pipeline.IMAGE),
        ("TXT", Pipeline.TABULAR),
        (FileType.XML, Pipeline.TABULAR),
    ],
)
def test_pipeline_for(file_type: FileType | str, pipeline: Pipeline) -> None:
    assert pipeline_for(file_type) is pipeline


def test_pipeline_for_unknown_type() -> None:
    with pytest.raises(ValueError, match="DOCX"):
        pipeline_for("DOCX")


@pytest.mark.parametrize("major", [1, 2])
def test_enums_match_the_schemas(major: int) -> None:
    request = load_schema(Kind.REQUEST, major)
    envelope = load_schema(Kind.RESULT_MESSAGE, major)
    result = load_schema(Kind.RESULT_FILE, major)
    assert request["properties"]["file_type"]["enum"] == [t.value for t in file_types_of(major)]
    assert request["properties"]["pipeline"]["enum"] == [p.value for p in Pipeline]
    assert envelope["properties"]["status"]["enum"] == [s.value for s in Status]
    # A code MAJOR 1 lacks is said in its words by error_code_in.
    codes = [c.value for c in ErrorCode if error_code_in(c, major) is c]
    assert envelope["$defs"]["errorCode"]["enum"] == codes
    assert result["$defs"]["errorCode"]["enum"] == codes
    if major == 2:
        severity = result["$defs"]["warning"]["properties"]["severity"]["enum"]
        assert severity == [s.value for s in Severity]
