"""The outbox: queued jobs become requests on NATS, then ``published``.

Jobs are claimed with ``FOR UPDATE SKIP LOCKED`` so that several core instances never publish
the same job in one cycle. A batch is published and confirmed by one flush; only then are its
jobs marked ``published``. When NATS is down the jobs stay ``queued`` for the next pass. A
publish that failed after the client took the messages may still deliver them: the jobs stay
``queued`` but the publish counts towards ``OUTBOX_MAX_REPUBLISH``, and a queued job whose
publishes are used up is given up (``dlq``) instead of being published once more.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arm_core.db.pool import Pool
from arm_core.exchange.requests import JOB_REQUEST_COLUMNS, JobRequest, publish_requests
from arm_core.jobs.transitions import Transitions
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from arm_ka_platform.nats import NatsLink
from arm_ka_platform.settings import Subjects

log = get_logger(__name__)

CLAIM_QUEUED = f"""
SELECT {JOB_REQUEST_COLUMNS},
       j.request_msg_id IS NOT NULL AND j.republish_count >= %(max_republish)s AS used_up
  FROM recognition_job j
  JOIN stored_file f ON f.id = j.file_id
  JOIN s3_object o ON o.id = f.s3_object_id
 WHERE j.id = ANY(ARRAY(
        SELECT id
          FROM recognition_job
         WHERE status = 'queued'
         ORDER BY requested_at
         LIMIT %(limit)s
           FOR UPDATE SKIP LOCKED))
 ORDER BY j.requested_at
"""


class Outbox:
    def __init__(
        self,
        pool: Pool,
        nats: NatsLink,
        subjects: Subjects,
        metrics: Metrics,
        transitions: Transitions,
        *,
        reply_timeout: float,
        batch_size: int,
        max_republish: int,
    ) -> None:
        self._pool = pool
        self._nats = nats
        self._subjects = subjects
        self._metrics = metrics
        self._transitions = transitions
        self._reply_timeout = timedelta(seconds=reply_timeout)
        self._batch_size = batch_size
        self._max_republish = max_republish

    async def run_pass(self) -> int:
        published = 0
        while True:
            count, more = await self._publish_batch()
            published += count
            if not more:
                return published

    async def _publish_batch(self) -> tuple[int, bool]:
        """Publish one batch; tell whether another full batch may be waiting."""
        async with self._pool.connection() as conn, conn.transaction():
            rows = await (
                await conn.execute(
                    CLAIM_QUEUED,
                    {"limit": self._batch_size, "max_republish": self._max_republish},
                )
            ).fetchall()
            if not rows:
                return 0, False
            used_up = [row["job_id"] for row in rows if row["used_up"]]
            if used_up:
                await self._transitions.give_up(conn, used_up, max_republish=self._max_republish)
            deadline = datetime.now(UTC) + self._reply_timeout
            jobs = [
                JobRequest.from_row(row, reply_deadline=deadline)
                for row in rows
                if not row["used_up"]
            ]
            if not jobs:
                return 0, len(rows) == self._batch_size
            subjects = [self._subjects.request_for(job.pipeline) for job in jobs]
            delivery = await publish_requests(
                self._nats, jobs, subjects, self._metrics, "publish_failed"
            )
            if delivery == "not_sent":
                return 0, False
            requests = [job.sent_as(subject) for job, subject in zip(jobs, subjects, strict=True)]
            await self._transitions.publish(conn, requests, confirmed=delivery == "confirmed")
            if delivery == "unconfirmed":
                return 0, False
        self._metrics.publishes.inc(len(jobs))
        for job, subject in zip(jobs, subjects, strict=True):
            log.info(
                "job_published",
                job_id=str(job.job_id),
                file_id=str(job.file_id),
                attempt=job.attempt,
                subject=subject,
            )
        return len(jobs), len(rows) == self._batch_size
