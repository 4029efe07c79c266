"""The inbox: acks and results from the recognition services, applied idempotently.

Every envelope is validated by the schema of its MAJOR at the boundary and becomes a typed
command. An ack moves a ``published`` job to ``processing``. A result is applied once: a
message whose ``Nats-Msg-Id`` equals the job's ``result_msg_id`` is a duplicate; a result for a
job already final (a late answer of a timed-out or replaced attempt) is logged and ignored.
Results are never read here: ``done`` / ``needs_check`` leave the file to the mapping loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import psycopg
from nats.aio.msg import Msg
from psycopg.types.json import Jsonb

from arm_core.db.pool import Connection, Pool
from arm_core.db.tables import FINAL_JOB_STATUSES
from arm_core.exchange.commands import AckJob, ApplyResult
from arm_core.exchange.wire import UnusableMessage, command_from_message
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from recognition_contract import warnings_to_wire

log = get_logger(__name__)

ACK = """
WITH acked AS (
    UPDATE recognition_job
       SET status = 'processing',
           started_at = now(),
           service_name = %(service_name)s,
           service_version = %(service_version)s
     WHERE id = %(job_id)s
       AND file_id = %(file_id)s
       AND status = 'published'
    RETURNING id, file_id, attempt
), file AS (
    UPDATE stored_file f
       SET status = 'PROCESSING',
           updated_at = now()
      FROM acked a
     WHERE f.id = a.file_id
       AND f.current_recognition_job_id = a.id
       AND f.status = 'UPLOADED'
    RETURNING f.id
)
SELECT a.attempt, EXISTS (SELECT 1 FROM file) AS file_processing
  FROM acked a
"""

JOB_FOR_UPDATE = """
SELECT id, file_id, attempt, status, result_msg_id
  FROM recognition_job
 WHERE id = %(job_id)s
   FOR UPDATE
"""

REGISTER_OBJECT = """
INSERT INTO s3_object (bucket, key, bucket_role, content_type, created_by)
VALUES (%(bucket)s, %(key)s, %(role)s, %(content_type)s, %(created_by)s)
ON CONFLICT (bucket, key) DO UPDATE SET bucket = EXCLUDED.bucket
RETURNING id
"""

FINISH_JOB = """
UPDATE recognition_job
   SET status = %(status)s,
       service_name = %(service_name)s,
       service_version = %(service_version)s,
       statements_version = %(statements_version)s,
       finished_at = now(),
       metrics = metrics || %(metrics)s,
       error_code = %(error_code)s,
       error_message = %(error_message)s,
       result_schema_version = %(result_schema_version)s,
       result_s3_object_id = %(result_object_id)s,
       result_msg_id = %(msg_id)s
 WHERE id = %(job_id)s
   AND status IN ('queued', 'published', 'processing')
"""

FAIL_FILE = """
UPDATE stored_file
   SET status = 'ERROR',
       error_code = %(error_code)s,
       error_message = %(error_message)s,
       updated_at = now()
 WHERE id = %(file_id)s
   AND current_recognition_job_id = %(job_id)s
"""

_DB_RETRIES = 5


class Inbox:
    """Applies envelopes on a few worker tasks. Messages of one job always go to the same
    worker, so an ack and its result keep their order while different jobs commit in
    parallel; the bounded queues push back on the subscription when the database is slow."""

    def __init__(self, pool: Pool, metrics: Metrics, *, workers: int = 8) -> None:
        self._pool = pool
        self._metrics = metrics
        self.mapping_wakers: list[Callable[[], None]] = []
        self._queues: list[asyncio.Queue[AckJob | ApplyResult | None]] = [
            asyncio.Queue(maxsize=256) for _ in range(workers)
        ]
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._work(queue), name=f"inbox:{index}")
            for index, queue in enumerate(self._queues)
        ]

    async def stop(self, grace: float = 5.0) -> None:
        """Apply what was already received, then stop."""
        for queue in self._queues:
            await queue.put(None)
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=grace)
            for task in pending:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []

    async def on_message(self, msg: Msg) -> None:
        """NATS callback: never raises, so the subscription never dies."""
        headers = msg.headers or {}
        try:
            command = command_from_message(msg.data, headers)
        except UnusableMessage as exc:
            outcome = "unknown_major" if exc.unknown_major else "bad"
            (self._metrics.results if exc.status != "processing" else self._metrics.acks).labels(
                outcome
            ).inc()
            log.warning("inbox_message_dropped", reason=exc.reason, outcome=outcome, **exc.ids)
            return
        if not self._tasks:
            await self.apply(command)
            return
        await self._queues[command.job_id.int % len(self._queues)].put(command)

    async def _work(self, queue: asyncio.Queue[AckJob | ApplyResult | None]) -> None:
        while (command := await queue.get()) is not None:
            await self.apply(command)

    async def apply(self, command: AckJob | ApplyResult) -> None:
        """Apply one command, riding out a short database outage; never raises."""
        for attempt in range(1, _DB_RETRIES + 1):
            try:
                if isinstance(command, AckJob):
                    await self.apply_ack(command)
                else:
                    await self.apply_result(command)
                return
            except (psycopg.OperationalError, psycopg.InterfaceError, TimeoutError) as exc:
                log.warning(
                    "inbox_database_unavailable",
                    job_id=str(command.job_id),
                    try_number=attempt,
                    error=type(exc).__name__,
                )
                await asyncio.sleep(0.2 * 2**attempt)
            except Exception:
                log.exception("inbox_message_failed", job_id=str(command.job_id))
                return
        # Without JetStream there is no redelivery; the watchdog times the job out.
        log.error("inbox_message_lost", job_id=str(command.job_id), file_id=str(command.file_id))

    async def apply_ack(self, ack: AckJob) -> str:
        params = {
            "job_id": ack.job_id,
            "file_id": ack.file_id,
            "service_name": ack.service_name,
            "service_version": ack.service_version,
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(ACK, params)).fetchone()
            outcome = "applied" if row is not None else None
            if outcome is None:
                # A fast service can ack before the outbox has committed ``published``: the
                # guarded UPDATE then misses the row. Locking it waits for that commit.
                job = await (await conn.execute(JOB_FOR_UPDATE, {"job_id": ack.job_id})).fetchone()
                outcome = self._classify_ack(job, ack)
                if outcome == "apply":
                    row = await (await conn.execute(ACK, params)).fetchone()
                    outcome = "applied" if row is not None else "ignored"
        if row is not None:
            log.info(
                "job_acked",
                job_id=str(ack.job_id),
                file_id=str(ack.file_id),
                attempt=row["attempt"],
                service=ack.service_name,
                file_processing=row["file_processing"],
            )
        self._metrics.acks.labels(outcome).inc()
        return outcome

    @staticmethod
    def _classify_ack(job: dict[str, Any] | None, ack: AckJob) -> str:
        ids = {"job_id": str(ack.job_id), "file_id": str(ack.file_id)}
        if job is None:
            log.warning("ack_for_unknown_job", **ids)
            return "unknown"
        if job["file_id"] != ack.file_id:
            log.warning("ack_file_mismatch", job_file_id=str(job["file_id"]), **ids)
            return "bad"
        if job["status"] == "published":
            return "apply"
        if job["status"] == "processing":
            log.debug("ack_duplicate", attempt=job["attempt"], **ids)
            return "duplicate"
        log.info("ack_ignored", status=job["status"], attempt=job["attempt"], **ids)
        return "late" if job["status"] in FINAL_JOB_STATUSES else "ignored"

    async def apply_result(self, result: ApplyResult) -> str:
        ids = {"job_id": str(result.job_id), "file_id": str(result.file_id)}
        async with self._pool.connection() as conn, conn.transaction():
            job = await (await conn.execute(JOB_FOR_UPDATE, {"job_id": result.job_id})).fetchone()
            outcome = self._classify(job, result)
            if outcome != "apply":
                self._metrics.results.labels(outcome).inc()
                log_fn = log.debug if outcome == "duplicate" else log.warning
                log_fn(
                    f"result_{outcome}",
                    status=result.status,
                    job_status=job["status"] if job else None,
                    attempt=job["attempt"] if job else None,
                    **ids,
                )
                return outcome
            assert job is not None
            msg_id = result.msg_id or f"result:{result.job_id}:{job['attempt']}"
            result_object_id = None
            if result.result is not None:
                result_object_id = await self._register(
                    conn, result.result.bucket, result.result.key, "results", result.service_name
                )
            metrics = dict(result.metrics)
            metrics["warnings"] = warnings_to_wire(result.warnings, 2)
            if result.raw_key is not None:
                metrics["raw_s3_key"] = result.raw_key
                if result.result is not None:
                    await self._register(
                        conn, result.result.bucket, result.raw_key, "raw", result.service_name
                    )
            await conn.execute(
                FINISH_JOB,
                {
                    "job_id": result.job_id,
                    "status": result.status,
                    "service_name": result.service_name,
                    "service_version": result.service_version,
                    "statements_version": result.statements_version,
                    "metrics": Jsonb(metrics),
                    "error_code": result.error_code,
                    "error_message": result.error_message,
                    "result_schema_version": result.result_schema_version,
                    "result_object_id": result_object_id,
                    "msg_id": msg_id,
                },
            )
            file_failed = False
            if result.status == "error":
                cursor = await conn.execute(
                    FAIL_FILE,
                    {
                        "file_id": result.file_id,
                        "job_id": result.job_id,
                        "error_code": result.error_code,
                        "error_message": result.error_message,
                    },
                )
                file_failed = cursor.rowcount == 1
        self._metrics.results.labels("applied").inc()
        log.info(
            "result_applied",
            status=result.status,
            attempt=job["attempt"],
            service=result.service_name,
            error_code=result.error_code,
            file_failed=file_failed,
            **ids,
        )
        if result.status != "error":
            for wake in self.mapping_wakers:
                wake()
        return "applied"

    @staticmethod
    def _classify(job: dict[str, Any] | None, result: ApplyResult) -> str:
        if job is None:
            return "unknown"
        if job["file_id"] != result.file_id:
            return "bad"
        if result.msg_id is not None and job["result_msg_id"] == result.msg_id:
            return "duplicate"
        if job["status"] in FINAL_JOB_STATUSES:
            return "late"
        return "apply"

    @staticmethod
    async def _register(conn: Connection, bucket: str, key: str, role: str, created_by: str) -> Any:
        row = await (
            await conn.execute(
                REGISTER_OBJECT,
                {
                    "bucket": bucket,
                    "key": key,
                    "role": role,
                    "content_type": "application/json" if role == "results" else None,
                    "created_by": created_by,
                },
            )
        ).fetchone()
        assert row is not None
        return row["id"]
