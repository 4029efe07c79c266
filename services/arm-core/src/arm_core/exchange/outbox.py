"""The outbox: queued jobs become requests on NATS, and ``published``.

Jobs are claimed with ``FOR UPDATE SKIP LOCKED`` so that several core instances never publish
the same job in one cycle. A claimed batch is marked ``published`` and committed first, then
published and confirmed by one flush: a core that dies in between leaves jobs the republisher
sends (and counts) again, never a request on the wire that no row remembers. When NATS is down
nothing is claimed for sending and the jobs stay ``queued``; should the connection drop between
the check and the publish, the jobs are put back to ``queued``. A publish that fails after the
client took the messages leaves the jobs ``published``: the messages may still go out from the
client's buffer, and the republisher takes over after the ack timeout.
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
SELECT {JOB_REQUEST_COLUMNS}
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
    ) -> None:
        self._pool = pool
        self._nats = nats
        self._subjects = subjects
        self._metrics = metrics
        self._transitions = transitions
        self._reply_timeout = timedelta(seconds=reply_timeout)
        self._batch_size = batch_size

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
            rows = await (await conn.execute(CLAIM_QUEUED, {"limit": self._batch_size})).fetchall()
            if not rows:
                return 0, False
            deadline = datetime.now(UTC) + self._reply_timeout
            jobs = [JobRequest.from_row(row, reply_deadline=deadline) for row in rows]
            subjects = [self._subjects.request_for(job.pipeline) for job in jobs]
            if not self._nats.is_connected:
                self._metrics.publish_failures.inc(len(jobs))
                log.error("publish_failed", jobs=len(jobs), error="not connected")
                return 0, False
            requests = [job.sent_as(subject) for job, subject in zip(jobs, subjects, strict=True)]
            await self._transitions.publish(conn, requests)
        delivery = await publish_requests(
            self._nats, jobs, subjects, self._metrics, "publish_failed"
        )
        if delivery == "not_sent":
            async with self._pool.connection() as conn:
                await self._transitions.publish_failed(conn, [job.job_id for job in jobs])
            return 0, False
        self._metrics.publishes.inc(len(jobs))
        # One line per batch at info; each job's line is for debugging (its row keeps the
        # subject and message id), as per-job lines would cost more than the publish.
        log.info("jobs_published", jobs=len(jobs), confirmed=delivery == "confirmed")
        for job, subject in zip(jobs, subjects, strict=True):
            log.debug(
                "job_published",
                job_id=str(job.job_id),
                file_id=str(job.file_id),
                attempt=job.attempt,
                subject=subject,
                confirmed=delivery == "confirmed",
            )
        return len(jobs), delivery == "confirmed" and len(rows) == self._batch_size
