"""The mapping cycle: finished jobs' result files become documents, and files get their
final status, in one transaction per job.

A job is mapped when it is ``done`` / ``needs_check``, is its file's current job, the file is
``PROCESSING`` and the job has no ``mapped_at`` yet. The job and file rows stay locked while the
result is read and written, so no other instance maps the same job; a crash before the commit
leaves nothing behind and the job is mapped again on a later pass. A result that cannot be
mapped sets the file ``ERROR`` with a ``mapping_error``; the job row is left as it is.
"""

from __future__ import annotations

import uuid
from typing import Any

from arm_core.db.pool import Connection, Pool
from arm_core.mapping.store import write_documents
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from arm_ka_platform.storage import ObjectMissing, ObjectStorage, StorageUnavailable
from recognition_contract import MAX_RESULT_FILE_BYTES, ContractError, Reason, parse_result_file

log = get_logger(__name__)

CLAIM = """
SELECT j.id AS job_id, j.file_id, j.attempt, j.status, o.bucket, o.key
  FROM recognition_job j
  JOIN stored_file f ON f.id = j.file_id AND f.current_recognition_job_id = j.id
  LEFT JOIN s3_object o ON o.id = j.result_s3_object_id
 WHERE j.status IN ('done', 'needs_check')
   AND j.mapped_at IS NULL
   AND f.status = 'PROCESSING'
 ORDER BY j.finished_at
 LIMIT 1
   FOR UPDATE OF j, f SKIP LOCKED
"""

FINISH = """
WITH job AS (
    UPDATE recognition_job
       SET group_schema = %(group_schema)s, mapped_at = now()
     WHERE id = %(job_id)s AND mapped_at IS NULL
    RETURNING id, file_id
)
UPDATE stored_file f
   SET status = %(file_status)s, mapping_error = NULL, updated_at = now()
  FROM job
 WHERE f.id = job.file_id
   AND f.current_recognition_job_id = job.id
   AND f.status = 'PROCESSING'
"""

FAIL = """
UPDATE stored_file
   SET status = 'ERROR',
       error_code = 'MAPPING_ERROR',
       error_message = 'результат распознавания не удалось разобрать',
       mapping_error = %(reason)s,
       updated_at = now()
 WHERE id = %(file_id)s
   AND current_recognition_job_id = %(job_id)s
   AND status = 'PROCESSING'
"""

FILE_STATUS = {"done": "RECOGNIZED", "needs_check": "NEEDS_CHECK"}


class MappingFailed(Exception):
    """The result file cannot become documents; the reason is for the analyst and operator."""


class Mapping:
    def __init__(self, pool: Pool, storage: ObjectStorage, metrics: Metrics) -> None:
        self._pool = pool
        self._storage = storage
        self._metrics = metrics

    async def run_pass(self) -> int:
        mapped = 0
        while await self.map_one():
            mapped += 1
        return mapped

    async def map_one(self) -> bool:
        """Map the oldest waiting job; tell whether there was one."""
        async with self._pool.connection() as conn, conn.transaction():
            job = await (await conn.execute(CLAIM)).fetchone()
            if job is None:
                return False
            ids = {
                "job_id": str(job["job_id"]),
                "file_id": str(job["file_id"]),
                "attempt": job["attempt"],
            }
            try:
                documents = await self._map(conn, job)
            except MappingFailed as exc:
                await conn.execute(
                    FAIL, {"file_id": job["file_id"], "job_id": job["job_id"], "reason": str(exc)}
                )
                self._metrics.mapping.labels("failed").inc()
                log.warning("mapping_failed", reason=str(exc), **ids)
                return True
        self._metrics.mapping.labels("mapped").inc()
        log.info("job_mapped", documents=documents, status=job["status"], **ids)
        return True

    async def _map(self, conn: Connection, job: dict[str, Any]) -> int:
        if job["key"] is None:
            raise MappingFailed("у задания нет файла результата")
        try:
            raw = await self._storage.get(job["key"], max_bytes=MAX_RESULT_FILE_BYTES)
        except ObjectMissing:
            raise MappingFailed(f"файл результата {job['key']} не найден в хранилище") from None
        except StorageUnavailable as exc:
            if "exceeds" in str(exc):
                raise MappingFailed("файл результата слишком велик") from None
            raise  # storage is away: leave the job for a later pass
        try:
            result = parse_result_file(raw)
        except ContractError as exc:
            if exc.reason == Reason.UNKNOWN_MAJOR:
                raise MappingFailed(f"неизвестная версия результата: {exc.message}") from None
            raise MappingFailed(f"результат не соответствует схеме: {exc.message}") from None
        job_id = uuid.UUID(str(job["job_id"]))
        if result.job_id != job_id or result.file_id != uuid.UUID(str(job["file_id"])):
            raise MappingFailed("файл результата относится к другому заданию или файлу")
        if result.status != job["status"]:
            raise MappingFailed(
                f"статус в файле результата ({result.status}) не совпадает со статусом задания"
            )
        await write_documents(conn, job_id, job["file_id"], result.documents)
        await conn.execute(
            FINISH,
            {
                "job_id": job_id,
                "group_schema": result.group_schema,
                "file_status": FILE_STATUS[job["status"]],
            },
        )
        return len(result.documents)
