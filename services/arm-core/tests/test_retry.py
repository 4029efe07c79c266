"""Spec 000 and 003: «Новая попытка обработки файла», «Изоляция новой попытки»,
«Конкурентные запросы повтора»; single and batch retry through the running app."""

from __future__ import annotations

import asyncio
import uuid

import psycopg
import pytest
import structlog

from arm_core.testing import (
    StubService,
    fetch_one,
    file_row,
    insert_file_with_job,
    job_row,
    minimal_workbook,
    run_core,
    upload,
    wait_until,
)
from recognition_contract import NATS_MSG_ID, parse_request, result_key

OLD_JOB_FIELDS = (
    "published_at", "started_at", "finished_at", "reply_deadline", "request_msg_id",
    "request_subject", "result_msg_id", "service_name", "service_version", "error_code",
    "error_message", "result_schema_version", "result_s3_object_id", "group_schema",
    "statements_version",
)  # fmt: skip


async def _status(dsn, job_id, status):
    job = await job_row(dsn, job_id)
    return job if job["status"] == status else None


async def _count_jobs(dsn, file_id) -> int:
    row = await fetch_one(
        dsn, "SELECT count(*) AS n FROM recognition_job WHERE file_id = %s", file_id
    )
    assert row is not None
    return int(row["n"])


async def test_повтор_после_no_ack(make_core_settings) -> None:
    settings = make_core_settings(ack_timeout_seconds=0.2, outbox_max_republish=1)
    dsn = settings.database_dsn
    async with run_core(settings) as core:
        created = await upload(core.client, "ОСВ РБ 2024.xlsx", minimal_workbook("xlsx"))
        file_id = uuid.UUID(created.json()["file_id"])
        first_job = uuid.UUID(created.json()["job_id"])
        await wait_until(lambda: _status(dsn, first_job, "dlq"))
        before_file = await file_row(dsn, file_id)
        before_job = await job_row(dsn, first_job)
        assert (before_file["status"], before_file["error_code"]) == ("ERROR", "NO_ACK")
        assert (await core.client.get(f"/api/v1/files/{file_id}")).json()["retryable"] is True

        response = await core.client.post(f"/api/v1/files/{file_id}/retry")

        assert response.status_code == 201
        body = response.json()
        new_job = uuid.UUID(body["job_id"])
        assert (body["file_id"], body["attempt"]) == (str(file_id), 2)
        assert new_job != first_job
        job = await job_row(dsn, new_job)
        file = await file_row(dsn, file_id)
        assert (job["attempt"], job["file_id"], job["pipeline"], job["max_attempts"]) == (
            2, file_id, "tabular", 3,
        )  # fmt: skip
        assert job["status"] in ("queued", "published")
        assert job["requested_at"] > before_job["requested_at"]
        assert file["status"] == "UPLOADED"
        assert file["current_recognition_job_id"] == new_job
        assert file["s3_object_id"] == before_file["s3_object_id"]
        assert file["consolidation_id"] == before_file["consolidation_id"]
        assert (file["error_code"], file["error_message"]) == (None, None)
        assert await job_row(dsn, first_job) == before_job
        objects = await fetch_one(dsn, "SELECT count(*) AS n FROM s3_object")
        assert objects["n"] == 1
        audit = await fetch_one(
            dsn, "SELECT * FROM audit_log WHERE action = 'file.retry' AND file_id = %s", file_id
        )
        assert (audit["actor"], audit["job_id"]) == ("dev", new_job)
        assert audit["details"]["previous_job_id"] == str(first_job)
        detail = (await core.client.get(f"/api/v1/files/{file_id}")).json()
        attempts = [(a["attempt"], a["status"]) for a in detail["attempts"]]
        assert attempts[0] == (1, "dlq")
        assert [attempt for attempt, _ in attempts] == [1, 2]


async def test_new_attempt_starts_clean(make_core_settings) -> None:
    settings = make_core_settings()
    dsn = settings.database_dsn
    file_id, old = await insert_file_with_job(dsn, status="error")
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute(
            "UPDATE recognition_job SET published_at = now(), started_at = now(),"
            " finished_at = now(), reply_deadline = now(), request_msg_id = 'x',"
            " request_subject = 's', result_msg_id = 'r', service_name = 'tabular-parser',"
            " service_version = '1', error_code = 'FILE_READ_ERROR', error_message = 'bad',"
            " result_schema_version = '1.0', group_schema = 'BY-50-2011',"
            " statements_version = '3', republish_count = 2 WHERE id = %s",
            (old,),
        )
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        response = await core.client.post(f"/api/v1/files/{file_id}/retry")
    job = await job_row(dsn, uuid.UUID(response.json()["job_id"]))
    assert job["status"] == "queued"
    assert job["metrics"] == {"republish_count": 0}
    assert {field: job[field] for field in OLD_JOB_FIELDS} == dict.fromkeys(OLD_JOB_FIELDS)


async def test_старый_ответ(make_core_settings, stub_service: StubService) -> None:
    await stub_service.listen()
    settings = make_core_settings(reply_timeout_seconds=30, watchdog_period_seconds=0.1)
    dsn = settings.database_dsn
    async with run_core(settings) as core:
        created = (await upload(core.client, "osv.xlsx", minimal_workbook("xlsx"))).json()
        file_id, first = uuid.UUID(created["file_id"]), uuid.UUID(created["job_id"])
        await stub_service.next_request()
        # Attempt 1 runs out of time; attempt 2 keeps the long deadline for the rest.
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(
                "UPDATE recognition_job SET reply_deadline = now() - interval '1 second'"
                " WHERE id = %s",
                (first,),
            )
        await wait_until(lambda: _status(dsn, first, "timeout"))
        retried = (await core.client.post(f"/api/v1/files/{file_id}/retry")).json()
        second = uuid.UUID(retried["job_id"])
        request = parse_request((await stub_service.next_request()).data)
        assert (request.job_id, request.attempt) == (second, 2)
        await stub_service.send(second, file_id, "processing", attempt=2)
        current = await wait_until(lambda: _status(dsn, second, "processing"))
        file_before = await file_row(dsn, file_id)
        first_before = await job_row(dsn, first)

        with structlog.testing.capture_logs() as logs:
            await stub_service.send(first, file_id, "processing", attempt=1)
            await stub_service.send(
                first, file_id, "done", attempt=1,
                result_s3={"bucket": "arm-ka", "key": result_key(file_id, first)},
                result_schema_version="1.0",
            )  # fmt: skip
            await wait_until(
                lambda: _true(core.runtime.metrics.results.labels("late")._value.get() == 1)
            )
        assert await job_row(dsn, second) == current
        assert await job_row(dsn, first) == first_before
        assert await file_row(dsn, file_id) == file_before
        events = {e["event"] for e in logs}
        assert {"ack_late", "result_late"} <= events
        results = await fetch_one(
            dsn, "SELECT count(*) AS n FROM s3_object WHERE bucket_role = 'results'"
        )
        assert results["n"] == 0


async def test_публикация_после_недоступности_nats(make_core_settings, nats_server_factory) -> None:
    server = nats_server_factory()
    settings = make_core_settings(nats_url=server.url, outbox_poll_seconds=0.2)
    dsn = settings.database_dsn
    file_id, _ = await insert_file_with_job(dsn, status="timeout")
    async with run_core(settings) as core:
        assert await core.runtime.nats.wait_connected(5)
        server.stop()
        await wait_until(lambda: _true(core.runtime.nats.status == "down"))
        response = await core.client.post(f"/api/v1/files/{file_id}/retry")
        assert response.status_code == 201
        second = uuid.UUID(response.json()["job_id"])
        # The outbox tries (and fails) a few times while NATS is away: the job stays queued.
        outbox = core.runtime.supervisor["outbox"]
        tried = outbox.passes
        await wait_until(lambda: _true(outbox.passes >= tried + 3))
        assert (await job_row(dsn, second))["status"] == "queued"
        server.start()
        stub = await StubService(server.url, settings.subjects).connect()
        try:
            await stub.listen()
            msg = await stub.next_request(timeout=15)
        finally:
            await stub.close()
        job = await wait_until(lambda: _status(dsn, second, "published"))
    assert msg.headers == {NATS_MSG_ID: f"{second}:2"}
    request = parse_request(msg.data)
    assert (request.job_id, request.attempt) == (second, 2)
    assert job["request_msg_id"] == f"{second}:2"
    assert job["reply_deadline"] == request.reply_deadline
    assert job["reply_deadline"] > job["requested_at"]


@pytest.mark.parametrize("status", ["queued", "published", "processing", "done", "needs_check"])
async def test_file_whose_current_attempt_is_not_failed_is_not_retryable(
    make_core_settings, status
) -> None:
    settings = make_core_settings(nats_enabled=False)
    file_id, _ = await insert_file_with_job(settings.database_dsn, status=status)
    async with run_core(settings) as core:
        response = await core.client.post(f"/api/v1/files/{file_id}/retry")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "FILE_NOT_RETRYABLE"
    assert await _count_jobs(settings.database_dsn, file_id) == 1


@pytest.mark.parametrize(
    ("error_code", "helps"),
    [
        ("UNREADABLE", False),
        ("INVALID_FORMAT", False),
        ("INVALID_DOCUMENT", False),
        ("UNSUPPORTED_FORMAT", False),
        ("TIMEOUT", True),
        ("FILE_READ_ERROR", True),
        ("RECOGNITION_FAILED", True),
        (None, True),
    ],
)
async def test_a_retry_is_offered_only_where_a_new_attempt_can_help(
    make_core_settings, error_code: str | None, helps: bool
) -> None:
    """An error of the file itself (damaged, protected, no document in it) would come back
    the same from a new attempt: no attempt is spent on it, and the page says why."""
    settings = make_core_settings(nats_enabled=False)
    dsn = settings.database_dsn
    file_id, job_id = await insert_file_with_job(dsn, status="error")
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute(
            "UPDATE recognition_job SET error_code = %s WHERE id = %s", (error_code, job_id)
        )
        await conn.execute(
            "UPDATE stored_file SET status = 'ERROR', error_code = %s WHERE id = %s",
            (error_code, file_id),
        )
    async with run_core(settings) as core:
        shown = (await core.client.get(f"/api/v1/files/{file_id}")).json()
        page = await core.client.get(f"/ui/files/{file_id}")
        response = await core.client.post(f"/api/v1/files/{file_id}/retry")
    assert shown["retryable"] is helps
    assert (response.status_code == 201) is helps
    assert await _count_jobs(dsn, file_id) == (2 if helps else 1)
    if not helps:
        assert response.json()["error"]["code"] == "FILE_NOT_RETRYABLE"
        assert "исправьте файл" in response.json()["error"]["message"]
        assert "Повтор не поможет" in page.text


async def test_attempt_limit(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False)
    file_id, _ = await insert_file_with_job(
        settings.database_dsn, status="error", attempt=3, max_attempts=3
    )
    async with run_core(settings) as core:
        response = await core.client.post(f"/api/v1/files/{file_id}/retry")
        missing = await core.client.post(f"/api/v1/files/{uuid.uuid4()}/retry")
    assert response.status_code == 409
    assert "3 из 3" in response.json()["error"]["message"]
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "FILE_NOT_FOUND")


async def test_двойное_нажатие(make_core_settings) -> None:
    """Two parallel retries of attempt 1, against the running app, fifty times over."""
    settings = make_core_settings(nats_enabled=False, database_pool_size=4)
    dsn = settings.database_dsn
    files = [(await insert_file_with_job(dsn, status="dlq"))[0] for _ in range(50)]
    async with run_core(settings) as core:
        for file_id in files:
            first, second = await asyncio.gather(
                core.client.post(f"/api/v1/files/{file_id}/retry"),
                core.client.post(f"/api/v1/files/{file_id}/retry"),
            )
            assert sorted([first.status_code, second.status_code]) == [201, 409]
            loser = first if first.status_code == 409 else second
            assert loser.json()["error"]["code"] == "FILE_NOT_RETRYABLE"
    rows = await fetch_one(
        dsn,
        "SELECT count(*) FILTER (WHERE attempt = 2) AS second,"
        " count(*) FILTER (WHERE attempt = 3) AS third,"
        " count(DISTINCT file_id) FILTER (WHERE attempt = 2) AS files"
        " FROM recognition_job",
    )
    assert (rows["second"], rows["third"], rows["files"]) == (50, 0, 50)
    audits = await fetch_one(dsn, "SELECT count(*) AS n FROM audit_log WHERE action = 'file.retry'")
    assert audits["n"] == 50


async def test_двойное_нажатие_в_пакете(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False)
    dsn = settings.database_dsn
    file_id, _ = await insert_file_with_job(dsn, status="timeout")
    async with run_core(settings) as core:
        single, batch = await asyncio.gather(
            core.client.post(f"/api/v1/files/{file_id}/retry"),
            core.client.post("/api/v1/files/retry", json={"file_ids": [str(file_id)]}),
        )
    [result] = batch.json()["results"]
    outcomes = {single.status_code, result["outcome"]}
    assert outcomes in ({201, "skipped"}, {409, "retried"})
    if result["outcome"] == "skipped":
        assert result["reason"] == "FILE_NOT_RETRYABLE"
    assert await _count_jobs(dsn, file_id) == 2


async def test_batch_retry_mixes_outcomes(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False, auth_user_header="X-Remote-User")
    dsn = settings.database_dsn
    # Files of the analyst's own, uploaded outside any consolidation, and one of another's.
    mine = {"uploaded_by": "ivanova.a"}
    retryable, _ = await insert_file_with_job(dsn, status="timeout", **mine)
    also, _ = await insert_file_with_job(dsn, status="error", **mine)
    busy, _ = await insert_file_with_job(dsn, status="processing", **mine)
    exhausted, _ = await insert_file_with_job(dsn, status="dlq", attempt=3, max_attempts=3, **mine)
    theirs, _ = await insert_file_with_job(dsn, status="error", uploaded_by="petrov.p")
    unknown = uuid.uuid4()
    ids = [retryable, busy, unknown, retryable, exhausted, also, theirs, "not-a-uuid"]
    async with run_core(settings) as core:
        anonymous = await core.client.post(
            "/api/v1/files/retry", json={"file_ids": [str(i) for i in ids]}
        )
        response = await core.client.post(
            "/api/v1/files/retry",
            json={"file_ids": [str(i) for i in ids]},
            headers={"X-Remote-User": "ivanova.a"},
        )
        empty = await core.client.post(
            "/api/v1/files/retry", json={"file_ids": []}, headers={"X-Remote-User": "x"}
        )
    assert anonymous.status_code == 401
    assert empty.status_code == 422
    results = response.json()["results"]
    assert [(r["file_id"], r["outcome"], r.get("reason")) for r in results] == [
        (str(retryable), "retried", None),
        (str(busy), "skipped", "FILE_NOT_RETRYABLE"),
        (str(unknown), "skipped", "FILE_NOT_FOUND"),
        (str(exhausted), "skipped", "FILE_NOT_RETRYABLE"),
        (str(also), "retried", None),
        (str(theirs), "skipped", "FILE_NOT_FOUND"),
        ("not-a-uuid", "skipped", "FILE_NOT_FOUND"),
    ]
    assert {r["attempt"] for r in results if r["outcome"] == "retried"} == {2}
    assert await _count_jobs(dsn, retryable) == 2
    assert await _count_jobs(dsn, busy) == 1
    actors = await fetch_one(
        dsn, "SELECT array_agg(DISTINCT actor) AS who FROM audit_log WHERE action = 'file.retry'"
    )
    assert actors["who"] == ["ivanova.a"]


async def test_failure_rolls_back_job_switch_and_audit_together(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False)
    dsn = settings.database_dsn
    file_id, first = await insert_file_with_job(dsn, status="timeout")
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN RAISE EXCEPTION 'audit store full'; END $$;"
            " CREATE TRIGGER refuse BEFORE INSERT ON audit_log"
            " FOR EACH ROW EXECUTE FUNCTION refuse();"
        )
    before = await file_row(dsn, file_id)
    async with run_core(settings) as core:
        response = await core.client.post(f"/api/v1/files/{file_id}/retry")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "INTERNAL_ERROR"
    assert await file_row(dsn, file_id) == before
    assert await _count_jobs(dsn, file_id) == 1
    assert (await file_row(dsn, file_id))["current_recognition_job_id"] == first


async def _true(value: bool) -> bool:
    return value
