"""The mapping cycle: finished jobs' result files become documents, and files get their
final status, in one transaction per job.

A job is mapped when it is ``done`` / ``needs_check``, is its file's current job and has no
``mapped_at`` yet, whatever its file's status (a file whose ack was lost is still ``UPLOADED``).
The job and file rows stay locked while the result is read and written, so no other instance
maps the same job; a crash before the commit leaves nothing behind and the job is mapped again
on a later pass. A result that cannot be mapped sets the file ``ERROR`` with a
``mapping_error``, which the analyst may retry; the job keeps its status.
"""

from __future__ import annotations

import uuid
from typing import Any

from arm_core.db.pool import Connection, Pool, database_unavailable
from arm_core.jobs.transitions import Transitions
from arm_core.mapping.store import write_documents
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from arm_ka_platform.storage import ObjectMissing, ObjectStorage, StorageUnavailable
from recognition_contract import MAX_RESULT_FILE_BYTES, ContractError, Reason, parse_result_file

log = get_logger(__name__)


class MappingFailed(Exception):
    """The result file cannot become documents; the reason is for the analyst and operator."""


class Mapping:
    def __init__(
        self, pool: Pool, storage: ObjectStorage, metrics: Metrics, transitions: Transitions
    ) -> None:
        self._pool = pool
        self._storage = storage
        self._metrics = metrics
        self._transitions = transitions

    async def run_pass(self) -> int:
        mapped = 0
        while await self.map_one():
            mapped += 1
        return mapped

    async def map_one(self) -> bool:
        """Map the oldest waiting job; tell whether there was one."""
        job: dict[str, Any] | None = None
        async with self._pool.connection() as conn:
            try:
                async with conn.transaction():
                    claimed = await self._transitions.claim_unmapped(conn, 1)
                    if not claimed:
                        return False
                    job = claimed[0]
                    try:
                        documents = await self._map(conn, job)
                    except MappingFailed as exc:
                        await self._fail(conn, job, str(exc))
                        return True
            except Exception as exc:
                # Storage or the database away: the job waits for a later pass. Anything else
                # would fail on every pass and, being the oldest, block all mapping behind it.
                if job is None or database_unavailable(exc) or isinstance(exc, StorageUnavailable):
                    raise
                log.exception("mapping_crashed", job_id=str(job["job_id"]))
                async with conn.transaction():
                    await self._fail(
                        conn, job, f"документы не удалось записать ({type(exc).__name__})"
                    )
                return True
        self._metrics.mapping.labels("mapped").inc()
        log.info(
            "job_mapped",
            documents=documents,
            status=job["status"],
            job_id=str(job["job_id"]),
            file_id=str(job["file_id"]),
            attempt=job["attempt"],
        )
        return True

    async def _fail(self, conn: Connection, job: dict[str, Any], reason: str) -> None:
        await self._transitions.mapping_failed(conn, job["job_id"], reason)
        self._metrics.mapping.labels("failed").inc()
        log.warning(
            "mapping_failed",
            reason=reason,
            job_id=str(job["job_id"]),
            file_id=str(job["file_id"]),
            attempt=job["attempt"],
        )

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
        await self._transitions.mapped(conn, job_id, result.group_schema)
        return len(result.documents)
