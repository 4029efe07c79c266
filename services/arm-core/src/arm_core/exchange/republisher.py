"""Requests without an ack are published again, then given up as ``dlq`` / ``NO_ACK``.

A job ``published`` for longer than the ack timeout is published again with the very same body
(the stored ``reply_deadline``), ``Nats-Msg-Id`` and subject; after ``OUTBOX_MAX_REPUBLISH``
republishes it becomes ``dlq`` and its file ``ERROR``. An ack moves the job to ``processing``,
which is all it takes to stop the republishing.
"""

from __future__ import annotations

from typing import Any

from arm_core.db.pool import Connection, Pool
from arm_core.exchange.requests import JOB_REQUEST_COLUMNS, JobRequest, publish_requests
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from arm_ka_platform.nats import NatsLink

log = get_logger(__name__)

CLAIM_UNACKED = f"""
SELECT {JOB_REQUEST_COLUMNS},
       j.request_subject,
       coalesce((j.metrics ->> 'republish_count')::int, 0) AS republish_count
  FROM recognition_job j
  JOIN stored_file f ON f.id = j.file_id
  JOIN s3_object o ON o.id = f.s3_object_id
 WHERE j.id = ANY(ARRAY(
        SELECT id
          FROM recognition_job
         WHERE status = 'published'
           AND published_at < now() - make_interval(secs => %(ack_timeout)s)
         ORDER BY published_at
         LIMIT %(limit)s
           FOR UPDATE SKIP LOCKED))
"""

MARK_REPUBLISHED = """
UPDATE recognition_job
   SET published_at = now(),
       metrics = metrics || jsonb_build_object(
           'republish_count', coalesce((metrics ->> 'republish_count')::int, 0) + 1)
 WHERE id = ANY(%(ids)s::uuid[])
   AND status = 'published'
"""

GIVE_UP = """
WITH dead AS (
    UPDATE recognition_job
       SET status = 'dlq',
           error_code = 'NO_ACK',
           error_message = 'ни один сервис распознавания не подтвердил получение запроса',
           finished_at = now()
     WHERE id = ANY(%(ids)s::uuid[])
       AND status = 'published'
    RETURNING id, file_id
)
UPDATE stored_file f
   SET status = 'ERROR',
       error_code = 'NO_ACK',
       error_message = 'ни один сервис распознавания не подтвердил получение запроса',
       updated_at = now()
  FROM dead d
 WHERE f.id = d.file_id
   AND f.current_recognition_job_id = d.id
"""


class Republisher:
    def __init__(
        self,
        pool: Pool,
        nats: NatsLink,
        metrics: Metrics,
        *,
        ack_timeout: float,
        max_republish: int,
        batch_size: int,
    ) -> None:
        self._pool = pool
        self._nats = nats
        self._metrics = metrics
        self._ack_timeout = ack_timeout
        self._max_republish = max_republish
        self._batch_size = batch_size

    async def run_pass(self) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            rows = await (
                await conn.execute(
                    CLAIM_UNACKED, {"ack_timeout": self._ack_timeout, "limit": self._batch_size}
                )
            ).fetchall()
            if not rows:
                return
            dead = [row for row in rows if row["republish_count"] >= self._max_republish]
            again = [row for row in rows if row["republish_count"] < self._max_republish]
            if dead:
                await conn.execute(GIVE_UP, {"ids": [row["job_id"] for row in dead]})
            if again:
                await self._republish(conn, again)
        self._metrics.dlq.inc(len(dead))
        for row in dead:
            log.warning(
                "job_dead_lettered",
                job_id=str(row["job_id"]),
                file_id=str(row["file_id"]),
                attempt=row["attempt"],
                republish_count=row["republish_count"],
            )

    async def _republish(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        jobs = [JobRequest.from_row(row) for row in rows]
        subjects = [str(row["request_subject"]) for row in rows]
        if not await publish_requests(
            self._nats, jobs, subjects, self._metrics, "republish_failed"
        ):
            return
        await conn.execute(MARK_REPUBLISHED, {"ids": [job.job_id for job in jobs]})
        self._metrics.republishes.inc(len(jobs))
        for row, job in zip(rows, jobs, strict=True):
            log.info(
                "job_republished",
                job_id=str(job.job_id),
                file_id=str(job.file_id),
                attempt=job.attempt,
                republish_count=int(str(row["republish_count"])) + 1,
            )
