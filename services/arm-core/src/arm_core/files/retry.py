"""Manual retry: a new attempt for a file whose current attempt failed.

The check of the current job and of the attempt limit, the new job, the switch of the file
and the audit row are one SQL statement under a lock on the file row, so two retries of the
same attempt can never both succeed; ``UNIQUE (file_id, attempt)`` is the last guard.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

import psycopg

from arm_core.db.pool import Connection, Pool
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

RETRYABLE_STATUSES = ("timeout", "dlq", "error")

RETRY = """
WITH current AS (
    SELECT f.id AS file_id, j.id AS job_id, j.attempt, j.max_attempts, j.pipeline, j.status
      FROM stored_file f
      JOIN recognition_job j ON j.id = f.current_recognition_job_id
     WHERE f.id = %(file_id)s
       AND j.status IN ('timeout', 'dlq', 'error')
       AND j.attempt < j.max_attempts
       FOR UPDATE OF f
), new_job AS (
    INSERT INTO recognition_job (file_id, pipeline, attempt, max_attempts, status)
    SELECT file_id, pipeline, attempt + 1, max_attempts, 'queued'
      FROM current
    RETURNING id, file_id, attempt
), switched AS (
    UPDATE stored_file f
       SET status = 'UPLOADED',
           current_recognition_job_id = n.id,
           error_code = NULL,
           error_message = NULL,
           updated_at = now()
      FROM new_job n, current c
     WHERE f.id = n.file_id
       AND f.current_recognition_job_id = c.job_id
    RETURNING f.id
), audit AS (
    INSERT INTO audit_log (actor, action, file_id, job_id, details)
    SELECT %(actor)s, 'file.retry', n.file_id, n.id,
           jsonb_build_object('previous_job_id', c.job_id, 'previous_status', c.status,
                              'attempt', n.attempt)
      FROM new_job n, current c
    RETURNING id
)
SELECT n.id AS job_id, n.attempt, c.job_id AS previous_job_id,
       (SELECT count(*) FROM switched) AS switched
  FROM new_job n, current c
"""

WHY_NOT = """
SELECT j.status, j.attempt, j.max_attempts
  FROM stored_file f
  LEFT JOIN recognition_job j ON j.id = f.current_recognition_job_id
 WHERE f.id = %(file_id)s
"""


@dataclass(frozen=True)
class Retried:
    file_id: uuid.UUID
    job_id: uuid.UUID
    attempt: int


@dataclass(frozen=True)
class NotRetried:
    file_id: uuid.UUID
    reason: Literal["FILE_NOT_FOUND", "FILE_NOT_RETRYABLE"]
    message: str


class _Lost(Exception):
    """The file changed between the check and the switch; the statement is rolled back."""


async def retry_file(pool: Pool, file_id: uuid.UUID, actor: str) -> Retried | NotRetried:
    """Retry one file in a transaction of its own."""
    try:
        async with pool.connection() as conn, conn.transaction():
            row = await (await conn.execute(RETRY, {"file_id": file_id, "actor": actor})).fetchone()
            if row is None:
                return await _why_not(conn, file_id)
            if row["switched"] != 1:
                raise _Lost
    except (psycopg.errors.UniqueViolation, _Lost):
        return NotRetried(file_id, "FILE_NOT_RETRYABLE", "попытка уже повторена")
    log.info(
        "file_retried",
        file_id=str(file_id),
        job_id=str(row["job_id"]),
        attempt=row["attempt"],
        previous_job_id=str(row["previous_job_id"]),
        actor=actor,
    )
    return Retried(file_id=file_id, job_id=row["job_id"], attempt=row["attempt"])


async def _why_not(conn: Connection, file_id: uuid.UUID) -> NotRetried:
    row = await (await conn.execute(WHY_NOT, {"file_id": file_id})).fetchone()
    if row is None:
        return NotRetried(file_id, "FILE_NOT_FOUND", "файл не найден")
    if row["status"] not in RETRYABLE_STATUSES:
        return NotRetried(
            file_id,
            "FILE_NOT_RETRYABLE",
            f"текущая попытка в статусе {row['status']}: повтор возможен после ошибки, "
            "таймаута или отсутствия подтверждения",
        )
    return NotRetried(
        file_id,
        "FILE_NOT_RETRYABLE",
        f"исчерпан лимит попыток ({row['attempt']} из {row['max_attempts']})",
    )


async def retry_files(
    pool: Pool, file_ids: list[uuid.UUID], actor: str
) -> list[Retried | NotRetried]:
    """Each file on its own: one file's failure never undoes another's retry. A file named
    twice is retried once and reported once."""
    unique = list(dict.fromkeys(file_ids))
    return [await retry_file(pool, file_id, actor) for file_id in unique]
