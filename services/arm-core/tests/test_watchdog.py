"""Spec 003 (and 000), «Таймаут ожидания результата»."""

from __future__ import annotations

from arm_core.testing import (
    StubService,
    file_row,
    insert_file_with_job,
    job_row,
    run_core,
    wait_until,
)


async def _started(dsn, job_id):
    return (await job_row(dsn, job_id))["started_at"] is not None


async def _status(dsn, job_id, status):
    job = await job_row(dsn, job_id)
    return job if job["status"] == status else None


async def test_сервис_взял_но_не_ответил(make_core_settings, stub_service: StubService) -> None:
    await stub_service.listen()
    settings = make_core_settings(reply_timeout_seconds=1.5, watchdog_period_seconds=0.2)
    dsn = settings.database_dsn
    async with run_core(settings):
        file_id, job_id = await insert_file_with_job(dsn)
        await stub_service.next_request()
        await stub_service.send(job_id, file_id, "processing")
        # started_at stays once set: the job may already have timed out when we look.
        await wait_until(lambda: _started(dsn, job_id))
        job = await wait_until(lambda: _status(dsn, job_id, "timeout"), timeout=10)
    assert job["error_code"] == "TIMEOUT"
    assert job["finished_at"] >= job["reply_deadline"]
    file = await file_row(dsn, file_id)
    assert (file["status"], file["error_code"]) == ("ERROR", "TIMEOUT")


async def test_published_job_past_deadline_times_out(make_core_settings) -> None:
    settings = make_core_settings(
        reply_timeout_seconds=0.5, ack_timeout_seconds=30, watchdog_period_seconds=0.2
    )
    async with run_core(settings):
        file_id, job_id = await insert_file_with_job(settings.database_dsn)
        job = await wait_until(lambda: _status(settings.database_dsn, job_id, "timeout"))
    assert job["error_code"] == "TIMEOUT"
    assert (await file_row(settings.database_dsn, file_id))["status"] == "ERROR"


async def test_timeout_of_a_replaced_attempt_leaves_the_file_alone(make_core_settings) -> None:
    settings = make_core_settings(reply_timeout_seconds=0.3, watchdog_period_seconds=0.1)
    dsn = settings.database_dsn
    file_id, old_job = await insert_file_with_job(dsn, status="processing")
    from arm_core.testing import fetch_one

    async def point_file_elsewhere() -> None:
        import psycopg

        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(
                "UPDATE recognition_job SET reply_deadline = now() - interval '1 second'"
                " WHERE id = %s",
                (old_job,),
            )
            new_job = (
                await (
                    await conn.execute(
                        "INSERT INTO recognition_job (file_id, pipeline, attempt, max_attempts,"
                        " status) VALUES (%s, 'tabular', 2, 3, 'processing') RETURNING id",
                        (file_id,),
                    )
                ).fetchone()
            )[0]
            await conn.execute(
                "UPDATE stored_file SET current_recognition_job_id = %s, status = 'PROCESSING'"
                " WHERE id = %s",
                (new_job, file_id),
            )

    await point_file_elsewhere()
    async with run_core(settings):
        await wait_until(lambda: _status(dsn, old_job, "timeout"))
    assert (await file_row(dsn, file_id))["status"] == "PROCESSING"
    assert await fetch_one(dsn, "SELECT 1 FROM stored_file WHERE error_code IS NOT NULL") is None
