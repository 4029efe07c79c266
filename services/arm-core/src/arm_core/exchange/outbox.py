"""The outbox: queued jobs become requests on NATS, then ``published``.

Jobs are claimed with ``FOR UPDATE SKIP LOCKED`` so that several core instances never publish
the same job in one cycle. A batch is published and confirmed by one flush; only then are its
jobs marked ``published``. When NATS is down the transaction commits nothing and the jobs stay
``queued`` for the next pass.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arm_core.db.pool import Pool
from arm_core.exchange.requests import JOB_REQUEST_COLUMNS, JobRequest, publish_requests
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

MARK_PUBLISHED = """
UPDATE recognition_job j
   SET status = 'published',
       published_at = now(),
       reply_deadline = p.reply_deadline,
       request_msg_id = p.msg_id,
       request_subject = p.subject
  FROM unnest(%(ids)s::uuid[], %(deadlines)s::timestamptz[], %(msg_ids)s::text[],
              %(subjects)s::text[]) AS p(id, reply_deadline, msg_id, subject)
 WHERE j.id = p.id
   AND j.status = 'queued'
"""


class Outbox:
    def __init__(
        self,
        pool: Pool,
        nats: NatsLink,
        subjects: Subjects,
        metrics: Metrics,
        *,
        reply_timeout: float,
        batch_size: int,
    ) -> None:
        self._pool = pool
        self._nats = nats
        self._subjects = subjects
        self._metrics = metrics
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
            if not await publish_requests(
                self._nats, jobs, subjects, self._metrics, "publish_failed"
            ):
                return 0, False
            await conn.execute(
                MARK_PUBLISHED,
                {
                    "ids": [job.job_id for job in jobs],
                    "deadlines": [deadline] * len(jobs),
                    "msg_ids": [job.msg_id for job in jobs],
                    "subjects": subjects,
                },
            )
        self._metrics.publishes.inc(len(jobs))
        for job, subject in zip(jobs, subjects, strict=True):
            log.info(
                "job_published",
                job_id=str(job.job_id),
                file_id=str(job.file_id),
                attempt=job.attempt,
                subject=subject,
            )
        return len(jobs), len(jobs) == self._batch_size
