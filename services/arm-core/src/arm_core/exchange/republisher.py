"""Requests without an ack are published again, then given up as ``dlq`` / ``NO_ACK``.

A job ``published`` for longer than the ack timeout is published again with the very same body
(the stored ``reply_deadline``), ``Nats-Msg-Id`` and subject; after ``OUTBOX_MAX_REPUBLISH``
republishes it becomes ``dlq`` and its file ``ERROR``. A republish is counted and committed
before it is sent, and taken back only when nothing was sent (the client was not connected),
so no request goes out more than ``1 + OUTBOX_MAX_REPUBLISH`` times, even when a core dies in
the middle. An ack moves the job to ``processing``, which is all it takes to stop the
republishing.
"""

from __future__ import annotations

from typing import Any

from arm_core.db.pool import Pool
from arm_core.exchange.requests import JOB_REQUEST_COLUMNS, JobRequest, publish_requests
from arm_core.jobs.transitions import Transitions
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from arm_ka_platform.nats import NatsLink

log = get_logger(__name__)

CLAIM_UNACKED = f"""
SELECT {JOB_REQUEST_COLUMNS},
       j.request_subject,
       j.republish_count,
       j.published_at
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
            if dead:
                await self._transitions.give_up(conn, dead, max_republish=self._max_republish)
            again = [row for row in rows if row["republish_count"] < self._max_republish]
            if not again or not self._nats.is_connected:
                # Nothing is counted while NATS is away; the jobs are due again on its return.
                return
            await self._transitions.republish(
                conn, [row["job_id"] for row in again], max_republish=self._max_republish
            )
        await self._send(again)

    async def _send(self, rows: list[dict[str, Any]]) -> None:
        jobs = [JobRequest.from_row(row) for row in rows]
        subjects = [str(row["request_subject"]) for row in rows]
        delivery = await publish_requests(
            self._nats, jobs, subjects, self._metrics, "republish_failed"
        )
        if delivery == "not_sent":
            before = [(row["job_id"], row["published_at"], row["republish_count"]) for row in rows]
            async with self._pool.connection() as conn:
                await self._transitions.republish_failed(conn, before)
            return
        self._metrics.republishes.inc(len(jobs))
        for row, job in zip(rows, jobs, strict=True):
            log.info(
                "job_republished",
                job_id=str(job.job_id),
                file_id=str(job.file_id),
                attempt=job.attempt,
                republish_count=int(row["republish_count"]) + 1,
                confirmed=delivery == "confirmed",
            )
