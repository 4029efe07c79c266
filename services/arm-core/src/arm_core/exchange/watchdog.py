"""Jobs in flight past their reply deadline become ``timeout``; their files ``ERROR``."""

from __future__ import annotations

from arm_core.db.pool import Pool
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

EXPIRE = """
WITH expired AS (
    UPDATE recognition_job
       SET status = 'timeout',
           error_code = 'TIMEOUT',
           error_message = 'результат не получен до срока ответа (reply_deadline)',
           finished_at = now()
     WHERE status IN ('published', 'processing')
       AND reply_deadline < now()
    RETURNING id, file_id, attempt
), failed_files AS (
    UPDATE stored_file f
       SET status = 'ERROR',
           error_code = 'TIMEOUT',
           error_message = 'результат не получен до срока ответа (reply_deadline)',
           updated_at = now()
      FROM expired e
     WHERE f.id = e.file_id
       AND f.current_recognition_job_id = e.id
    RETURNING f.id
)
SELECT e.id AS job_id, e.file_id, e.attempt, (f.id IS NOT NULL) AS file_failed
  FROM expired e LEFT JOIN failed_files f ON f.id = e.file_id
"""


class Watchdog:
    def __init__(self, pool: Pool, metrics: Metrics) -> None:
        self._pool = pool
        self._metrics = metrics

    async def run_pass(self) -> int:
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(EXPIRE)).fetchall()
        for row in rows:
            log.warning(
                "job_timed_out",
                job_id=str(row["job_id"]),
                file_id=str(row["file_id"]),
                attempt=row["attempt"],
                file_failed=row["file_failed"],
            )
        self._metrics.timeouts.inc(len(rows))
        return len(rows)
