"""Exchange throughput and outbox latency, on real PostgreSQL and nats-server.

* jobs/s through publish -> ack -> result, with an in-process stub service that answers at once;
* queued -> published latency (p50, p99) with LISTEN/NOTIFY and with polling only.

Run: ``make bench`` or ``.venv/bin/python -m bench exchange``.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import nats
import psycopg
import structlog

from arm_core.db.migrate import upgrade
from arm_core.settings import CoreSettings
from arm_core.testing import QUEUED_FILES, run_core
from arm_ka_devstack.processes import free_port
from bench._stack import local_stack
from recognition_contract import (
    NATS_MSG_ID,
    ResultEnvelope,
    S3Ref,
    ServiceInfo,
    Status,
    ack_msg_id,
    dump_envelope,
    parse_request,
    result_key,
    result_msg_id,
)

JOBS = 5000
LATENCY_SAMPLES = 200


async def _insert_jobs(dsn: str, count: int) -> None:
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        await conn.execute(QUEUED_FILES, {"n": count})
        await conn.commit()


async def _stub_service(url: str, settings: CoreSettings) -> nats.NATS:
    nc = await nats.connect(url)
    service = ServiceInfo(name="tabular-parser", version="bench")

    async def answer(msg: nats.aio.msg.Msg) -> None:
        request = parse_request(msg.data)
        job, file, attempt = request.job_id, request.file_id, request.attempt
        ack = ResultEnvelope(job_id=job, file_id=file, status=Status.PROCESSING, service=service)
        done = ResultEnvelope(
            job_id=job,
            file_id=file,
            status=Status.DONE,
            service=service,
            result_s3=S3Ref(bucket="arm-ka", key=result_key(file, job)),
            result_schema_version="1.0",
        )
        subject = settings.subjects.result
        await nc.publish(
            subject, dump_envelope(ack), headers={NATS_MSG_ID: ack_msg_id(job, attempt)}
        )
        await nc.publish(
            subject, dump_envelope(done), headers={NATS_MSG_ID: result_msg_id(job, attempt)}
        )

    await nc.subscribe(settings.subjects.tabular_request, queue="tabular-parser", cb=answer)
    await nc.flush()
    return nc


async def _count(dsn: str, status: str) -> int:
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        row = await (
            await conn.execute("SELECT count(*) FROM recognition_job WHERE status = %s", (status,))
        ).fetchone()
    return int(row[0]) if row else 0


async def throughput(settings: CoreSettings, nats_url: str) -> float:
    nc = await _stub_service(nats_url, settings)
    try:
        async with run_core(settings):
            started = time.perf_counter()
            await _insert_jobs(settings.database_dsn, JOBS)
            while await _count(settings.database_dsn, "done") < JOBS:
                await asyncio.sleep(0.05)
            elapsed = time.perf_counter() - started
    finally:
        await nc.close()
    return JOBS / elapsed


async def latency(settings: CoreSettings, *, notify: bool) -> tuple[float, float]:
    dsn = settings.database_dsn
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        state = "ENABLE" if notify else "DISABLE"
        await conn.execute(f"ALTER TABLE recognition_job {state} TRIGGER recognition_job_queued")
    async with run_core(settings):
        await asyncio.sleep(0.5)
        for _ in range(LATENCY_SAMPLES):
            await _insert_jobs(dsn, 1)
            await asyncio.sleep(0.01 if notify else 0.05)
        while await _count(dsn, "queued"):
            await asyncio.sleep(0.05)
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        rows = await (
            await conn.execute(
                "SELECT extract(epoch FROM published_at - requested_at) * 1000"
                " FROM recognition_job WHERE published_at IS NOT NULL"
                " ORDER BY requested_at DESC LIMIT %s",
                (LATENCY_SAMPLES,),
            )
        ).fetchall()
    values = sorted(float(r[0]) for r in rows)
    return statistics.median(values), values[int(len(values) * 0.99) - 1]


async def run(workdir: Path) -> None:
    with local_stack(workdir) as (pg, server):

        def settings(db: str, **overrides: object) -> CoreSettings:
            url = pg.ensure_database(db)
            upgrade(url)
            values: dict[str, object] = {
                "database_url": url,
                "nats_url": server.url,
                "storage_url": f"file://{workdir / 'storage'}",
                "http_port": free_port(),
                "reply_timeout_seconds": 600,
                "ack_timeout_seconds": 60,
                "log_json": True,
                # The development identity: the bench is about the exchange, not sign-in.
                "debug": True,
                # The exchange alone: the stub writes no result files for mapping to read.
                "mapping_enabled": False,
            }
            values.update(overrides)
            return CoreSettings(**values)  # type: ignore[arg-type]

        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
        rate = await throughput(settings(f"b_{uuid.uuid4().hex[:8]}"), server.url)
        print(f"publish -> ack -> result: {rate:,.0f} jobs/s ({JOBS} jobs, one core, one stub)")
        p50, p99 = await latency(
            settings(f"b_{uuid.uuid4().hex[:8]}", outbox_poll_seconds=5.0), notify=True
        )
        print(f"queued -> published with NOTIFY (poll 5 s): p50 {p50:.1f} ms, p99 {p99:.1f} ms")
        p50, p99 = await latency(
            settings(f"b_{uuid.uuid4().hex[:8]}", outbox_poll_seconds=0.5), notify=False
        )
        print(f"queued -> published polling only (poll 0.5 s): p50 {p50:.1f} ms, p99 {p99:.1f} ms")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-exchange-") as workdir:
        asyncio.run(run(Path(workdir)))


if __name__ == "__main__":
    main()
