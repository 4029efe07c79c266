"""Spec 003, «Ack сервиса переводит задание в processing», «Inbox принимает результат
идемпотентно», «Приём конвертов и результатов обоих MAJOR контракта»; spec 002,
«Идемпотентность результатов без брокера»."""

from __future__ import annotations

import json
import time
import uuid

import pytest
import structlog

from arm_core.exchange.commands import AckJob, ApplyResult
from arm_core.testing import (
    StubService,
    fetch_one,
    file_row,
    insert_file_with_job,
    job_row,
    run_core,
    wait_until,
)
from recognition_contract import ErrorInfo, S3Ref, Severity, Warning, result_key


@pytest.fixture
async def core(make_core_settings):
    # Mapping would read result files these tests never write; the inbox is under test.
    async with run_core(make_core_settings(mapping_enabled=False)) as running:
        assert await running.runtime.nats.wait_connected(5)
        yield running


async def _published_job(core, **kwargs):
    file_id, job_id = await insert_file_with_job(core.settings.database_dsn, **kwargs)
    await wait_until(lambda: _status(core, job_id, "published"))
    return file_id, job_id


async def _status(core, job_id, status):
    job = await job_row(core.settings.database_dsn, job_id)
    return job if job["status"] == status else None


def _result_ref(file_id, job_id) -> S3Ref:
    return S3Ref(bucket="arm-ka", key=result_key(file_id, job_id))


async def _processed(core, outcome: str, count: int = 1) -> bool:
    counter = core.runtime.metrics.results.labels(outcome)._value.get()
    return counter >= count


async def _acked(core, outcome: str, count: int = 1) -> bool:
    return core.runtime.metrics.acks.labels(outcome)._value.get() >= count


async def test_сервис_подтвердил(core, stub_service: StubService) -> None:
    file_id, job_id = await _published_job(core)
    await stub_service.send(job_id, file_id, "processing")
    job = await wait_until(lambda: _status(core, job_id, "processing"))
    assert job["started_at"] is not None
    assert job["service_name"] == "tabular-parser"
    assert job["service_version"] == "1.4.2"
    assert (await file_row(core.settings.database_dsn, file_id))["status"] == "PROCESSING"


async def test_ack_нового_сервиса(core, stub_service: StubService) -> None:
    file_id, job_id = await _published_job(core)
    await stub_service.send(job_id, file_id, "processing", version="2.0")
    job = await wait_until(lambda: _status(core, job_id, "processing"))
    assert job["service_name"] == "tabular-parser"
    assert (await file_row(core.settings.database_dsn, file_id))["status"] == "PROCESSING"


async def test_repeated_ack_is_ignored(core, stub_service: StubService) -> None:
    file_id, job_id = await _published_job(core)
    await stub_service.send(job_id, file_id, "processing")
    first = await wait_until(lambda: _status(core, job_id, "processing"))
    await stub_service.send(job_id, file_id, "processing")
    await wait_until(lambda: _acked(core, "duplicate"))
    assert await job_row(core.settings.database_dsn, job_id) == first


async def test_ack_for_a_final_job_changes_nothing(core, stub_service: StubService) -> None:
    file_id, job_id = await insert_file_with_job(core.settings.database_dsn, status="timeout")
    before = await job_row(core.settings.database_dsn, job_id)
    with structlog.testing.capture_logs() as logs:
        await stub_service.send(job_id, file_id, "processing")
        await wait_until(lambda: _acked(core, "late"))
    assert await job_row(core.settings.database_dsn, job_id) == before
    assert any(e["event"] == "ack_late" and e["job_status"] == "timeout" for e in logs)


async def test_успешный_результат(core, stub_service: StubService) -> None:
    file_id, job_id = await _published_job(core)
    await stub_service.send(job_id, file_id, "processing")
    await wait_until(lambda: _status(core, job_id, "processing"))
    await stub_service.send(
        job_id,
        file_id,
        "done",
        result_s3=_result_ref(file_id, job_id),
        result_schema_version="1.0",
        # A service's own count never stands in for the core's.
        metrics={"rows": 120, "duration_ms": 830, "republish_count": 7},
    )
    job = await wait_until(lambda: _status(core, job_id, "done"))
    assert job["result_msg_id"] == f"result:{job_id}:1"
    assert job["finished_at"] is not None
    assert job["result_schema_version"] == "1.0"
    assert job["metrics"]["rows"] == 120
    assert job["metrics"]["republish_count"] == job["republish_count"] == 0
    assert job["error_code"] is None
    s3 = await fetch_one(
        core.settings.database_dsn,
        "SELECT * FROM s3_object WHERE id = %s",
        job["result_s3_object_id"],
    )
    assert s3 is not None
    assert (s3["bucket"], s3["key"]) == ("arm-ka", f"results/{file_id}/{job_id}/result.json")
    assert (s3["bucket_role"], s3["created_by"]) == ("results", "tabular-parser")
    assert (await file_row(core.settings.database_dsn, file_id))["status"] == "PROCESSING"


async def test_повторная_доставка(core, stub_service: StubService) -> None:
    """Also spec 002 «Результат доставлен дважды»."""
    file_id, job_id = await _published_job(core)
    for _ in range(2):
        await stub_service.send(
            job_id,
            file_id,
            "done",
            result_s3=_result_ref(file_id, job_id),
            result_schema_version="1.0",
        )
    await wait_until(lambda: _processed(core, "duplicate"))
    job = await job_row(core.settings.database_dsn, job_id)
    assert job["status"] == "done"
    objects = await fetch_one(
        core.settings.database_dsn,
        "SELECT count(*) AS n, max(created_at) AS at FROM s3_object WHERE bucket_role = 'results'",
    )
    assert objects is not None and objects["n"] == 1
    assert core.runtime.metrics.results.labels("applied")._value.get() == 1


async def test_result_of_a_published_job_whose_ack_was_lost_is_applied(core, stub_service) -> None:
    file_id, job_id = await _published_job(core)
    await stub_service.send(
        job_id, file_id, "needs_check", result_s3=_result_ref(file_id, job_id),
        result_schema_version="1.0",
    )  # fmt: skip
    job = await wait_until(lambda: _status(core, job_id, "needs_check"))
    assert job["started_at"] is None
    assert job["service_name"] == "tabular-parser"


async def test_ошибка_сервиса(core, stub_service: StubService) -> None:
    file_id, job_id = await _published_job(core)
    await stub_service.send(job_id, file_id, "processing")
    await stub_service.send(
        job_id,
        file_id,
        "error",
        error=ErrorInfo(code="UNSUPPORTED_FORMAT", message="файл не является книгой Excel"),
    )
    job = await wait_until(lambda: _status(core, job_id, "error"))
    assert job["error_code"] == "UNSUPPORTED_FORMAT"
    assert job["error_message"] == "файл не является книгой Excel"
    assert job["result_s3_object_id"] is None
    assert job["finished_at"] is not None
    file = await file_row(core.settings.database_dsn, file_id)
    assert (file["status"], file["error_code"]) == ("ERROR", "UNSUPPORTED_FORMAT")


async def test_результат_пришёл_после_таймаута(core, stub_service: StubService) -> None:
    file_id, job_id = await insert_file_with_job(core.settings.database_dsn, status="timeout")
    before = await job_row(core.settings.database_dsn, job_id)
    with structlog.testing.capture_logs() as logs:
        await stub_service.send(
            job_id, file_id, "done", result_s3=_result_ref(file_id, job_id),
            result_schema_version="1.0",
        )  # fmt: skip
        await wait_until(lambda: _processed(core, "late"))
    assert await job_row(core.settings.database_dsn, job_id) == before
    assert any(e["event"] == "result_late" for e in logs)
    registered = await fetch_one(core.settings.database_dsn, "SELECT count(*) AS n FROM s3_object")
    assert registered is not None and registered["n"] == 1  # only the upload


async def test_unknown_job_is_logged(core, stub_service: StubService) -> None:
    import uuid

    with structlog.testing.capture_logs() as logs:
        await stub_service.send(uuid.uuid4(), uuid.uuid4(), "error",
                                error=ErrorInfo(code="UNREADABLE", message="x"))  # fmt: skip
        await wait_until(lambda: _processed(core, "unknown"))
    assert any(e["event"] == "result_unknown" for e in logs)


async def test_предупреждения_1x_оборачиваются(core, stub_service: StubService) -> None:
    file_id, job_id = await _published_job(core)
    await stub_service.send(
        job_id,
        file_id,
        "needs_check",
        result_s3=_result_ref(file_id, job_id),
        result_schema_version="1.0",
        warnings=(Warning(code="LEGACY_WARNING", severity=Severity.INFO,
                          message="sheet=ОСВ 60 строки без родителя"),),
    )  # fmt: skip
    job = await wait_until(lambda: _status(core, job_id, "needs_check"))
    assert job["metrics"]["warnings"] == [
        {
            "code": "LEGACY_WARNING",
            "severity": "info",
            "message": "sheet=ОСВ 60 строки без родителя",
            "locator": None,
        }
    ]
    assert job["statements_version"] is None


async def test_legacy_warnings_on_the_wire_are_strings(core, stub_service: StubService) -> None:
    file_id, job_id = await _published_job(core)
    envelope = {
        "schema_version": "1.0",
        "job_id": str(job_id),
        "file_id": str(file_id),
        "status": "needs_check",
        "service": {"name": "tabular-parser", "version": "0.9"},
        "result_s3": {"bucket": "arm-ka", "key": result_key(file_id, job_id)},
        "result_schema_version": "1.0",
        "metrics": {"warnings": ["sheet=ОСВ 60 строки без родителя"], "rows": 3},
    }
    await stub_service.send_raw(
        json.dumps(envelope).encode(), {"Nats-Msg-Id": f"result:{job_id}:1"}
    )
    job = await wait_until(lambda: _status(core, job_id, "needs_check"))
    assert job["metrics"]["warnings"] == [
        {"code": "LEGACY_WARNING", "severity": "info",
         "message": "sheet=ОСВ 60 строки без родителя", "locator": None}
    ]  # fmt: skip
    assert job["metrics"]["rows"] == 3


async def test_предупреждения_20_сохраняются_как_пришли(core, stub_service: StubService) -> None:
    file_id, job_id = await _published_job(core)
    warning = {
        "code": "JSON_FAILED",
        "severity": "error",
        "message": "строка 14: итог не сходится",
        "locator": {"sheet": "ОСВ", "row": 14},
    }
    envelope = {
        "schema_version": "2.0",
        "job_id": str(job_id),
        "file_id": str(file_id),
        "status": "needs_check",
        "service": {"name": "tabular-parser", "version": "2.1.0", "statements_version": "2024.3"},
        "result_s3": {"bucket": "arm-ka", "key": result_key(file_id, job_id)},
        "result_schema_version": "2.0",
        "metrics": {"warnings": [warning]},
    }
    await stub_service.send_raw(
        json.dumps(envelope).encode(), {"Nats-Msg-Id": f"result:{job_id}:1"}
    )
    job = await wait_until(lambda: _status(core, job_id, "needs_check"))
    assert job["metrics"]["warnings"] == [warning]
    assert job["statements_version"] == "2024.3"
    assert job["result_schema_version"] == "2.0"


async def test_неизвестный_major(core, stub_service: StubService) -> None:
    file_id, job_id = await _published_job(core)
    before = await job_row(core.settings.database_dsn, job_id)
    envelope = {
        "schema_version": "3.0",
        "job_id": str(job_id),
        "file_id": str(file_id),
        "status": "processing",
        "service": {"name": "tabular-parser", "version": "3.0.0"},
    }
    with structlog.testing.capture_logs() as logs:
        await stub_service.send_raw(json.dumps(envelope).encode())
        await wait_until(lambda: _acked(core, "unknown_major"))
    assert await job_row(core.settings.database_dsn, job_id) == before
    dropped = [e for e in logs if e["event"] == "inbox_message_dropped"]
    assert dropped and dropped[0]["log_level"] == "warning"
    assert dropped[0]["job_id"] == str(job_id)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"not json at all", "not_json"),
        (b"\xff\xfe\x00garbage", "not_utf8"),
        (b"[1, 2, 3]", "not_object"),
        (b'{"schema_version": "1.0", "status": "done"}', "schema"),
        (b'{"schema_version": "one"}', "malformed_version"),
        (b'{"a": "' + b"x" * (2 << 20) + b'"}', "too_large"),
    ],
    ids=["not-json", "not-utf8", "not-object", "wrong-schema", "bad-version", "megabytes"],
)
async def test_bad_input_is_dropped_and_the_consumer_survives(
    core, stub_service: StubService, data: bytes, reason: str
) -> None:
    with structlog.testing.capture_logs() as logs:
        await stub_service.send_raw(data)
        await wait_until(lambda: _processed(core, "bad"))
    assert any(reason in e.get("reason", "") for e in logs if e["event"] == "inbox_message_dropped")
    # and the next good message is still applied
    file_id, job_id = await _published_job(core)
    await stub_service.send(job_id, file_id, "processing")
    await wait_until(lambda: _status(core, job_id, "processing"))


async def test_a_request_never_overtakes_the_commit_of_its_publish(
    core, stub_service: StubService
) -> None:
    """The outbox commits ``published`` before it sends, so an ack as fast as the request
    itself always finds the job published."""
    await stub_service.listen()
    file_id, job_id = await insert_file_with_job(core.settings.database_dsn)
    await stub_service.next_request()
    # Read at once, before anything else happens: the publish is already committed.
    assert (await job_row(core.settings.database_dsn, job_id))["status"] == "published"
    await stub_service.send(job_id, file_id, "processing")
    job = await wait_until(lambda: _status(core, job_id, "processing"))
    assert job["service_name"] == "tabular-parser"
    assert (await file_row(core.settings.database_dsn, file_id))["status"] == "PROCESSING"


async def test_a_batch_applies_its_messages_together_and_loses_only_one_the_database_refuses(
    core,
) -> None:
    """Acks and results of several jobs in one batch; one result that PostgreSQL cannot store
    (text with NUL) fails alone, the others apply."""
    jobs = [await _published_job(core) for _ in range(3)]

    def ack(file_id: uuid.UUID, job_id: uuid.UUID) -> AckJob:
        return AckJob(job_id, file_id, "tabular-parser", "1.0", f"ack:{job_id}:1")

    def failed(file_id: uuid.UUID, job_id: uuid.UUID, message: str) -> ApplyResult:
        return ApplyResult(
            job_id=job_id,
            file_id=file_id,
            status="error",
            schema_version="2.0",
            service_name="tabular-parser",
            service_version="1.0",
            statements_version=None,
            msg_id=f"result:{job_id}:1",
            result=None,
            result_schema_version=None,
            raw_key=None,
            error_code="UNREADABLE",
            error_message=message,
        )

    (f1, j1), (f2, j2), (f3, j3) = jobs
    hold = time.monotonic() + 5
    batch = [
        ack(f1, j1),
        ack(f2, j2),
        failed(f2, j2, "файл повреждён"),
        ack(f3, j3),
        failed(f3, j3, "строка \x00 с NUL"),
        # A repeated ack goes to a later round, after the first: a duplicate.
        ack(f1, j1),
    ]
    with structlog.testing.capture_logs() as logs:
        await core.runtime.inbox.apply_batch([(command, hold) for command in batch])
    statuses = [(await job_row(core.settings.database_dsn, j))["status"] for _, j in jobs]
    assert statuses == ["processing", "error", "processing"]
    assert (await file_row(core.settings.database_dsn, f2))["status"] == "ERROR"
    failures = [e for e in logs if e["event"] == "inbox_message_failed"]
    assert [e["job_id"] for e in failures] == [str(j3)]
    assert core.runtime.metrics.acks.labels("duplicate")._value.get() == 1
