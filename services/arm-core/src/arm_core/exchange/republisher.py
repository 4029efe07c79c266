"""Requests without an ack are published again, then given up as ``dlq`` / ``NO_ACK``.

A job ``published`` for longer than the ack timeout is published again with the very same body
(the stored ``reply_deadline``), ``Nats-Msg-Id`` and subject; after ``OUTBOX_MAX_REPUBLISH``
republishes it becomes ``dlq`` and its file ``ERROR``. A republish that failed after the client
took the message counts as well: it may still reach the server, and no request goes out more
than ``1 + OUTBOX_MAX_REPUBLISH`` times. An ack moves the job to ``processing``, which is all
it takes to stop the republishing.
"""

from __future__ import annotations

from typing import Any

from arm_core.db.pool import Connection, Pool
from arm_core.exchange.requests import JOB_REQUEST_COLUMNS, JobRequest, publish_requests
from arm_core.jobs.transitions import Transitions
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from arm_ka_platform.nats import NatsLink

log = get_logger(__name__)

CLAIM_UNACKED = f"""
SELECT {JOB_REQUEST_COLUMNS},
       j.request_subject,
       j.republish_count
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


class Republisher:
    def __init__(
        self,
        pool: Pool,
        nats: NatsLink,
        metrics: Metrics,
        transitions: Transitions,
        *,
        ack_timeout: float,
        max_republish: int,
        batch_size: int,
    ) -> None:
        self._pool = pool
        self._nats = nats
        self._metrics = metrics
        self._transitions = transitions
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
            dead = [row["job_id"] for row in rows if row["republish_count"] >= self._max_republish]
            again = [row for row in rows if row["republish_count"] < self._max_republish]
            if dead:
                await self._transitions.give_up(conn, dead, max_republish=self._max_republish)
            if again:
                await self._republish(conn, again)

    async def _republish(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        jobs = [JobRequest.from_row(row) for row in rows]
        subjects = [str(row["request_subject"]) for row in rows]
        delivery = await publish_requests(
            self._nats, jobs, subjects, self._metrics, "republish_failed"
        )
        if delivery == "not_sent":
            return
        await self._transitions.republish(
            conn, [job.job_id for job in jobs], max_republish=self._max_republish
        )
        if delivery == "unconfirmed":
            return
        self._metrics.republishes.inc(len(jobs))
        for row, job in zip(rows, jobs, strict=True):
            log.info(
                "job_republished",
                job_id=str(job.job_id),
                file_id=str(job.file_id),
                attempt=job.attempt,
                republish_count=int(row["republish_count"]) + 1,
            )
