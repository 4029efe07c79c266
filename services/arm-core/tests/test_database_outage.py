"""PostgreSQL going away under a running core: results received meanwhile are applied when
it returns, and an upload answers an error only when it registered nothing.

Each test has a PostgreSQL of its own, so that stopping it disturbs no other test.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from arm_core.db.migrate import upgrade
from arm_core.db.pool import open_pool
from arm_core.exchange.commands import AckJob
from arm_core.exchange.inbox import Inbox
from arm_core.jobs.transitions import Transitions
from arm_core.metrics import Metrics
from arm_core.testing import (
    StubService,
    fetch_one,
    file_row,
    insert_file_with_job,
    job_row,
    minimal_workbook,
    run_core,
    stored_objects,
    upload,
    wait_until,
)
from arm_ka_devstack.postgres import EmbeddedPostgres
from recognition_contract import S3Ref, result_key


@pytest.fixture
def private_postgres() -> Iterator[EmbeddedPostgres]:
    # Outside pytest's basetemp, as the session's server: PostgreSQL runs as its own user,
    # which must be able to reach the data directory.
    root = Path(tempfile.mkdtemp(prefix="arm-ka-postgres-"))
    # Durable (not ``fast``): an immediate stop must not lose what was committed.
    server = EmbeddedPostgres(root / "data")
    server.start()
    try:
        yield server
    finally:
        server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def database_dsn(private_postgres: EmbeddedPostgres) -> str:
    dsn = private_postgres.ensure_database("arm_ka")
    upgrade(dsn)
    return dsn


async def _true(value: object) -> object:
    return value


async def _status(dsn: str, job_id, status: str):
    job = await job_row(dsn, job_id)
    return job if job["status"] == status else None


async def test_a_result_received_while_the_database_is_away_is_applied_when_it_returns(
    make_core_settings, private_postgres: EmbeddedPostgres, database_dsn: str
) -> None:
    settings = make_core_settings(database_url=database_dsn, mapping_enabled=False)
    stub = await StubService(settings.nats_url, settings.subjects).connect()
    try:
        async with run_core(settings) as core:
            assert await core.runtime.nats.wait_connected(5)
            file_id, job_id = await insert_file_with_job(database_dsn)
            await wait_until(lambda: _status(database_dsn, job_id, "published"))
            await stub.send(job_id, file_id, "processing")
            await wait_until(lambda: _status(database_dsn, job_id, "processing"))

            private_postgres.stop("immediate")
            inbox = core.runtime.inbox
            await stub.send(
                job_id, file_id, "done",
                result_s3=S3Ref(bucket="arm-ka", key=result_key(file_id, job_id)),
                result_schema_version="2.0",
            )  # fmt: skip
            # Received, tried against the absent database, and held.
            await wait_until(lambda: _true(core.runtime.metrics.inbox_retries._value.get() > 0))
            assert inbox.held == 1
            private_postgres.start()

            job = await wait_until(
                lambda: _status(database_dsn, job_id, "done"),
                timeout=settings.reply_timeout_seconds,
            )
            await wait_until(lambda: _true(inbox.held == 0))
        assert job["result_msg_id"] == f"result:{job_id}:1"
        assert (await file_row(database_dsn, file_id))["status"] == "PROCESSING"
        assert core.runtime.metrics.results.labels("applied")._value.get() == 1
    finally:
        await stub.close()


async def test_an_upload_during_a_restart_waits_for_the_database_and_is_registered_once(
    make_core_settings, private_postgres: EmbeddedPostgres, database_dsn: str
) -> None:
    settings = make_core_settings(database_url=database_dsn, nats_enabled=False)
    async with run_core(settings) as core:
        private_postgres.stop("immediate")
        with structlog.testing.capture_logs() as logs:
            answer = asyncio.create_task(upload(core.client, "osv.xlsx", minimal_workbook()))
            await wait_until(
                lambda: _true(any(e["event"] == "upload_register_retry" for e in logs)),
                timeout=settings.upload_register_wait_seconds,
            )
            private_postgres.start()
            response = await answer
    assert response.status_code == 201, response.text
    file_id = response.json()["file_id"]
    count = await fetch_one(database_dsn, "SELECT count(*) AS n FROM stored_file")
    assert count is not None and count["n"] == 1
    assert (await file_row(database_dsn, file_id))["status"] == "UPLOADED"


async def test_an_upload_that_answers_an_error_has_registered_nothing(
    make_core_settings, private_postgres: EmbeddedPostgres, database_dsn: str
) -> None:
    settings = make_core_settings(
        database_url=database_dsn, nats_enabled=False, upload_register_wait_seconds=0.5
    )
    async with run_core(settings) as core:
        private_postgres.stop("immediate")
        response = await upload(core.client, "osv.xlsx", minimal_workbook())
        private_postgres.start()
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "DATABASE_UNAVAILABLE"
    count = await fetch_one(database_dsn, "SELECT count(*) AS n FROM stored_file")
    assert count is not None and count["n"] == 0
    assert stored_objects(settings) == []


async def test_a_held_envelope_is_given_up_after_the_hold(
    private_postgres: EmbeddedPostgres, database_dsn: str
) -> None:
    metrics = Metrics()
    pool = await open_pool(database_dsn, max_size=2)
    private_postgres.stop("immediate")
    inbox = Inbox(pool, metrics, Transitions(metrics), hold_seconds=0.5)
    ack = AckJob(uuid.uuid4(), uuid.uuid4(), "tabular-parser", "1.0", None)
    try:
        with structlog.testing.capture_logs() as logs:
            # Returns once the hold is over, however long the database stays away.
            await inbox.apply(ack)
    finally:
        await pool.close(timeout=1)
    assert [e["event"] for e in logs if e["event"].startswith("inbox_")] == [
        "inbox_message_expired"
    ]
