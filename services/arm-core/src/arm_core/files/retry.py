"""Manual retry: a new attempt for a file whose current attempt failed.

The check, the new job, the switch of the file and the audit row are one statement
(``arm_core.jobs.transitions.retry``) under a lock on the file row, so two retries of the same
attempt can never both succeed; ``UNIQUE (file_id, attempt)`` is the last guard.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

import psycopg

from arm_core.db.pool import Connection, Pool
from arm_core.jobs import transitions
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

WHY_NOT = """
SELECT f.status AS file_status, j.status, j.attempt, j.max_attempts, j.error_code
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
    reason: Literal["FILE_NOT_FOUND", "FILE_NOT_RETRYABLE", "FORBIDDEN"]
    message: str


class _Lost(Exception):
    """The file changed between the check and the switch; the statement is rolled back."""


async def retry_file(pool: Pool, file_id: uuid.UUID, actor: str) -> Retried | NotRetried:
    """Retry one file in a transaction of its own."""
    try:
        async with pool.connection() as conn, conn.transaction():
            row = await transitions.retry(conn, file_id, actor)
            if row is None:
                return await _why_not(conn, file_id)
            if row["file_moved"] != 1:
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
    if not transitions.attempt_failed(row["file_status"], row["status"]):
        return NotRetried(
            file_id,
            "FILE_NOT_RETRYABLE",
            f"текущая попытка в статусе {row['status']}: повтор возможен после ошибки, "
            "таймаута или отсутствия подтверждения",
        )
    if not transitions.retry_helps(row["error_code"]):
        return NotRetried(
            file_id,
            "FILE_NOT_RETRYABLE",
            f"ошибка {row['error_code']} в самом файле: новая попытка прочтёт те же байты и "
            "ответит так же; исправьте файл и загрузите его заново",
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
