"""Spec 003, «Outbox публикует задания из queued» and «Запрос без ack публикуется повторно,
затем — dlq»; spec 002, «Публикация запроса ядром»."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
import structlog

from arm_core.testing import (
    StubService,
    file_row,
    insert_file_with_job,
    job_row,
    run_core,
    wait_until,
)
from recognition_contract import NATS_MSG_ID, parse_request, validate_request


async def test_публикация_запроса_парсеру(make_core_settings, stub_service: StubService) -> None:
    await stub_service.listen()
    settings = make_core_settings(outbox_poll_seconds=30)  # NOTIFY, not the poll, must wake it
    async with run_core(settings):
        file_id, job_id = await insert_file_with_job(settings.database_dsn)
        msg = await stub_service.next_request(timeout=10)
        assert msg.subject == "files.tabular_uploaded"
        assert msg.headers == {NATS_MSG_ID: f"{job_id}:1"}
        payload = json.loads(msg.data)
        validate_request(payload)
        request = parse_request(msg.data)
        assert request.schema_version == "1.0"
        assert (request.job_id, request.file_id, request.attempt) == (job_id, file_id, 1)
        assert request.s3.key == f"uploads/{file_id}/source"
        assert request.pipeline.value == "tabular"
        job = await wait_until(lambda: _job_if(settings, job_id, "published"))
    assert job["request_msg_id"] == f"{job_id}:1"
    assert job["request_subject"] == "files.tabular_uploaded"
    assert job["published_at"] is not None
    assert job["reply_deadline"] == request.reply_deadline
    assert job["reply_deadline"] - job["published_at"] > timedelta(seconds=9)
    assert (await file_row(settings.database_dsn, file_id))["status"] == "UPLOADED"


@pytest.mark.parametrize("file_type", ["TXT", "XML"])
async def test_a_bank_export_is_requested_at_the_version_that_has_its_type(
    make_core_settings, stub_service: StubService, file_type: str
) -> None:
    """MAJOR 1 has no TXT or XML: such a request goes out as 2.3, others stay 1.0."""
    await stub_service.listen()
    settings = make_core_settings()
    async with run_core(settings):
        await insert_file_with_job(
            settings.database_dsn, file_type=file_type, original_name="kl_to_1c.txt"
        )
        msg = await stub_service.next_request(timeout=10)
    payload = json.loads(msg.data)
    validate_request(payload)
    request = parse_request(msg.data)
    assert (request.schema_version, request.file_type.value) == ("2.3", file_type)
    assert msg.subject == "files.tabular_uploaded"


async def test_image_jobs_go_to_the_image_subject(make_core_settings, stub_service) -> None:
    await stub_service.listen(stub_service.subjects.image_request, queue="scan-gateway")
    settings = make_core_settings()
    async with run_core(settings):
        _, job_id = await insert_file_with_job(
            settings.database_dsn, file_type="PDF", pipeline="image"
        )
        msg = await stub_service.next_request()
    assert msg.subject == "files.img_uploaded"
    assert parse_request(msg.data).job_id == job_id


async def test_nats_недоступен(make_core_settings, nats_server_factory) -> None:
    server = nats_server_factory()
    settings = make_core_settings(nats_url=server.url, outbox_poll_seconds=0.1)
    async with run_core(settings) as core:
        assert await core.runtime.nats.wait_connected(5)
        server.stop()
        await wait_until(lambda: _is(core.runtime.nats.status == "down"))
        with structlog.testing.capture_logs() as logs:
            _, job_id = await insert_file_with_job(settings.database_dsn)
            await wait_until(lambda: _is(core.runtime.metrics.publish_failures._value.get() >= 2))
        assert (await job_row(settings.database_dsn, job_id))["status"] == "queued"
        assert any(entry["event"] == "publish_failed" for entry in logs)
        server.start()
        stub = await StubService(server.url, settings.subjects).connect()
        try:
            await stub.listen()
            job = await wait_until(lambda: _job_if(settings, job_id, "published"), timeout=15)
            msg = await stub.next_request()
        finally:
            await stub.close()
    assert msg.headers == {NATS_MSG_ID: f"{job_id}:1"}
    assert job["request_msg_id"] == f"{job_id}:1"


async def test_сервис_недоступен(make_core_settings) -> None:
    settings = make_core_settings(ack_timeout_seconds=0.3, outbox_max_republish=3)
    async with run_core(settings):
        file_id, job_id = await insert_file_with_job(settings.database_dsn)
        published = await wait_until(lambda: _job_if(settings, job_id, "published"))
        job = await wait_until(lambda: _job_if(settings, job_id, "dlq"), timeout=15)
    assert job["error_code"] == "NO_ACK"
    assert job["finished_at"] is not None
    # The spec's name for the counter, on the row as on the column the guards compare.
    assert job["republish_count"] == job["metrics"]["republish_count"] == 3
    assert job["request_msg_id"] == published["request_msg_id"] == f"{job_id}:1"
    assert job["reply_deadline"] == published["reply_deadline"]
    file = await file_row(settings.database_dsn, file_id)
    assert (file["status"], file["error_code"]) == ("ERROR", "NO_ACK")


async def test_republish_repeats_body_and_msg_id(make_core_settings, stub_service) -> None:
    await stub_service.listen()
    settings = make_core_settings(ack_timeout_seconds=0.3, outbox_max_republish=2)
    async with run_core(settings):
        _, job_id = await insert_file_with_job(settings.database_dsn)
        first = await stub_service.next_request()
        second = await stub_service.next_request()
        third = await stub_service.next_request()
        await wait_until(lambda: _job_if(settings, job_id, "dlq"))
    assert first.data == second.data == third.data
    assert first.headers == second.headers == third.headers == {NATS_MSG_ID: f"{job_id}:1"}
    assert stub_service.requests.empty()


async def test_сервис_появился_после_первого_повтора(make_core_settings, stub_service) -> None:
    # Enough republishes allowed that a slow machine never reaches dlq before the service.
    settings = make_core_settings(ack_timeout_seconds=0.5, outbox_max_republish=20)
    async with run_core(settings) as core:
        file_id, job_id = await insert_file_with_job(settings.database_dsn)
        await wait_until(lambda: _republished(settings, job_id, 1), timeout=10)
        await stub_service.listen()
        msg = await stub_service.next_request()
        await stub_service.send(job_id, file_id, "processing")
        job = await wait_until(lambda: _job_if(settings, job_id, "processing"))
        count = job["republish_count"]
        # No further republish may happen: let the republisher look several times, the last
        # of them when a republish of the acked request would long have been due.
        await _republisher_passes(core, 3, after=settings.ack_timeout_seconds)
        job = await job_row(settings.database_dsn, job_id)
    assert msg.headers == {NATS_MSG_ID: f"{job_id}:1"}
    assert count >= 1
    assert job["status"] == "processing"
    assert job["republish_count"] == count
    assert (await file_row(settings.database_dsn, file_id))["status"] == "PROCESSING"


async def test_batch_larger_than_claim_is_fully_published(make_core_settings, stub_service) -> None:
    await stub_service.listen()
    # Republishing is not what this is about: under the test's one-second ack timeout a
    # loaded machine republishes a request before all 30 are read, and one is heard twice.
    settings = make_core_settings(outbox_batch_size=7, ack_timeout_seconds=60.0)
    jobs = []
    async with run_core(settings):
        for _ in range(30):
            jobs.append((await insert_file_with_job(settings.database_dsn))[1])
        seen = {parse_request((await stub_service.next_request()).data).job_id for _ in jobs}
        assert seen == set(jobs)
        await wait_until(lambda: _count(settings, "published", 30))


async def _job_if(settings, job_id, status):
    job = await job_row(settings.database_dsn, job_id)
    return job if job["status"] == status else None


async def _republished(settings, job_id, times):
    job = await job_row(settings.database_dsn, job_id)
    return job["republish_count"] >= times


async def _count(settings, status, expected):
    from arm_core.testing import fetch_one

    row = await fetch_one(
        settings.database_dsn, "SELECT count(*) AS n FROM recognition_job WHERE status = %s", status
    )
    return row is not None and row["n"] == expected


async def _is(value: bool) -> bool:
    return value


async def _republisher_passes(core, passes: int, *, after: float) -> None:
    loop = core.runtime.supervisor["republisher"]
    clock = asyncio.get_running_loop()
    start, since = loop.passes, clock.time()

    async def done() -> bool:
        return loop.passes >= start + passes and clock.time() - since > after

    await wait_until(done, timeout=10 * after + 10)
