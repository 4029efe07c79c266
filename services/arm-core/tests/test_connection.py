"""Spec 003, «Соединение с NATS по шаблону, без JetStream» and «Subject'ы и учётные данные NATS
из настроек окружения»: the exchange itself, on the subjects and credentials configured."""

from __future__ import annotations

import asyncio

import structlog

from arm_core.testing import (
    StubService,
    fetch_one,
    insert_file_with_job,
    job_row,
    run_core,
    wait_until,
)
from arm_ka_devstack.nats_auth import operator_config
from arm_ka_platform.settings import Subjects
from recognition_contract import parse_request, result_key


async def _status(dsn, job_id, status):
    job = await job_row(dsn, job_id)
    return job if job["status"] == status else None


async def test_dev_окружение_compose(make_core_settings, stub_service: StubService) -> None:
    with structlog.testing.capture_logs() as logs:
        async with run_core(make_core_settings(debug=True, nats_enabled=True)) as core:
            assert await core.runtime.nats.wait_connected(5)
            body = (await core.client.get("/healthcheck")).json()
            await stub_service.listen()
            file_id, job_id = await insert_file_with_job(core.settings.database_dsn)
            await stub_service.next_request()
            await stub_service.send(job_id, file_id, "processing")
            await wait_until(lambda: _status(core.settings.database_dsn, job_id, "processing"))
    assert body["nats"] == "ok"
    assert not [e for e in logs if e["log_level"] in ("error", "critical")]
    assert not [e for e in logs if e["event"] in ("nats_connect_failed", "nats_error")]


async def test_subjectы_окружения(make_core_settings, nats_server, monkeypatch) -> None:
    subjects = Subjects(
        tabular_request="test.files.tabular_uploaded",
        image_request="test.files.img_uploaded",
        result="test.files.tabular_parsed",
    )
    monkeypatch.setenv("OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT", subjects.tabular_request)
    monkeypatch.setenv("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", subjects.image_request)
    monkeypatch.setenv("OPENBAO__NATS__NATS_RESULT_SUBJECT", subjects.result)
    stub = await StubService(nats_server.url, subjects).connect()
    default_listener = await StubService(nats_server.url, subjects).connect()
    try:
        await stub.listen(subjects.tabular_request)
        await default_listener.listen("files.>", queue="spy")
        settings = make_core_settings()
        async with run_core(settings):
            file_id, job_id = await insert_file_with_job(settings.database_dsn)
            msg = await stub.next_request()
            assert msg.subject == "test.files.tabular_uploaded"
            await stub.send(job_id, file_id, "processing")
            await wait_until(lambda: _status(settings.database_dsn, job_id, "processing"))
            # A result on the default subject is not ours to read any more.
            default_subjects = Subjects(
                tabular_request="x.a", image_request="x.b", result="files.tabular_parsed"
            )
            default_stub = StubService(nats_server.url, default_subjects)
            await default_stub.connect()
            await default_stub.send(job_id, file_id, "error",
                                    error={"code": "UNREADABLE", "message": "x"})  # fmt: skip
            await default_stub.close()
            await asyncio.sleep(0.5)
            assert (await job_row(settings.database_dsn, job_id))["status"] == "processing"
        # The core published nothing on the default request subjects.
        seen = []
        while not default_listener.requests.empty():
            seen.append(default_listener.requests.get_nowait().subject)
        assert "files.tabular_uploaded" not in seen
        assert "files.img_uploaded" not in seen
    finally:
        await stub.close()
        await default_listener.close()


async def test_jwt_authenticated_exchange(make_core_settings, nats_server_factory) -> None:
    credentials = operator_config()
    server = nats_server_factory(config=credentials.server_config)
    settings = make_core_settings(
        nats_url=server.url,
        openbao={"nats": {"nats_seed": credentials.seed, "nats_jwt": credentials.jwt}},
    )
    async with run_core(settings) as core:
        assert await core.runtime.nats.wait_connected(5)
        assert (await core.client.get("/healthcheck")).json()["nats"] == "ok"
        assert credentials.jwt not in repr(core.runtime.settings)
        assert credentials.seed not in repr(core.runtime.settings)


async def test_два_инстанса_ядра(make_core_settings, stub_service: StubService) -> None:
    # The stub does not ack: an ack timeout longer than the test keeps the republisher (its own
    # scenario) from sending a request again while a loaded machine inserts the 20 jobs.
    first = make_core_settings(ack_timeout_seconds=60.0)
    second = make_core_settings(ack_timeout_seconds=60.0)
    await stub_service.listen()
    async with run_core(first) as a, run_core(second) as b:
        dsn = first.database_dsn
        jobs = [await insert_file_with_job(dsn) for _ in range(20)]
        requests = [parse_request((await stub_service.next_request()).data) for _ in jobs]
        assert sorted(r.job_id for r in requests) == sorted(job for _, job in jobs)
        await asyncio.sleep(0.5)
        assert stub_service.requests.empty(), "a job was published twice"
        file_id, job_id = jobs[0]
        await stub_service.send(
            job_id, file_id, "done",
            result_s3={"bucket": "arm-ka", "key": result_key(file_id, job_id)},
            result_schema_version="1.0",
        )  # fmt: skip
        await wait_until(lambda: _status(dsn, job_id, "done"))
        await asyncio.sleep(0.3)
        applied = sum(
            core.runtime.metrics.results.labels(outcome)._value.get()
            for core in (a, b)
            for outcome in ("applied", "duplicate", "late")
        )
        assert applied == 1
    row = await fetch_one(dsn, "SELECT count(*) AS n FROM s3_object WHERE bucket_role = 'results'")
    assert row is not None and row["n"] == 1


async def test_two_watchdogs_and_republishers_are_harmless(make_core_settings) -> None:
    a_settings = make_core_settings(ack_timeout_seconds=0.2, outbox_max_republish=2)
    b_settings = make_core_settings(ack_timeout_seconds=0.2, outbox_max_republish=2)
    dsn = a_settings.database_dsn
    async with run_core(a_settings) as a, run_core(b_settings) as b:
        jobs = [await insert_file_with_job(dsn) for _ in range(10)]
        for _, job_id in jobs:
            job = await wait_until(lambda j=job_id: _status(dsn, j, "dlq"), timeout=15)
            assert job["republish_count"] == 2
        republished = sum(c.runtime.metrics.republishes._value.get() for c in (a, b))
        dead = sum(c.runtime.metrics.dlq._value.get() for c in (a, b))
    assert republished == 20
    assert dead == 10


async def test_metrics_endpoint(make_core_settings, stub_service: StubService) -> None:
    async with run_core(make_core_settings()) as core:
        await insert_file_with_job(core.settings.database_dsn, status="timeout")
        await stub_service.send_raw(b"garbage")
        await wait_until(
            lambda: _true(core.runtime.metrics.results.labels("bad")._value.get() == 1)
        )
        text = (await core.client.get("/metrics")).text
    assert 'arm_ka_recognition_jobs{status="timeout"} 1.0' in text
    assert 'arm_ka_inbox_results_total{outcome="bad"} 1.0' in text
    assert "arm_ka_loop_pass_seconds_bucket" in text


async def _true(value: bool) -> bool:
    return value


async def test_subscription_is_restored_after_reconnect(
    make_core_settings, nats_server_factory
) -> None:
    server = nats_server_factory()
    settings = make_core_settings(nats_url=server.url)
    dsn = settings.database_dsn
    async with run_core(settings) as core:
        assert await core.runtime.nats.wait_connected(5)
        file_id, job_id = await insert_file_with_job(dsn)
        await wait_until(lambda: _status(dsn, job_id, "published"))
        server.stop()
        await wait_until(lambda: _true(core.runtime.nats.status == "down"))
        server.start()
        await wait_until(lambda: _true(core.runtime.nats.status == "ok"), timeout=15)
        stub = await StubService(server.url, settings.subjects).connect()
        try:
            await stub.send(job_id, file_id, "processing")
            await wait_until(lambda: _status(dsn, job_id, "processing"))
        finally:
            await stub.close()
