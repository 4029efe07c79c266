"""The mapping cycle: finished jobs' result files become documents, and files get their
final status, a batch of jobs per transaction.

A job is mapped when it is ``done`` / ``needs_check``, is its file's current job and has no
``mapped_at`` yet, whatever its file's status (a file whose ack was lost is still ``UPLOADED``).
A batch is claimed with ``FOR UPDATE SKIP LOCKED``; its rows stay locked while the result files
are read (concurrently) and the documents written (one COPY per table), so no other instance
maps the same job; a crash before the commit leaves nothing behind and the jobs are mapped
again on a later pass. A result that cannot be mapped sets its file ``ERROR`` with a
``mapping_error``, which the analyst may retry; the job keeps its status, and the rest of the
batch is mapped. A batch that fails for a reason no result explains is taken apart: its jobs
are mapped one per transaction, so the one that fails is the only one marked.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

from arm_core.db.pool import Connection, Pool, database_unavailable
from arm_core.jobs.transitions import Transitions
from arm_core.mapping.store import JobDocuments, write_documents
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from arm_ka_platform.storage import ObjectMissing, ObjectStorage, StorageUnavailable
from recognition_contract import (
    MAX_RESULT_FILE_BYTES,
    ContractError,
    Reason,
    ResultFile,
    parse_result_file,
)

log = get_logger(__name__)

# Result files read at once: enough to hide storage latency, few enough not to flood it.
READ_CONCURRENCY = 16


class MappingFailed(Exception):
    """The result file cannot become documents; the reason is for the analyst and operator."""


class _BatchFailed(Exception):
    """A batch of this many jobs failed as a whole: they are mapped one at a time."""

    def __init__(self, jobs: int) -> None:
        super().__init__(jobs)
        self.jobs = jobs


@dataclass(frozen=True, slots=True)
class _Read:
    job: dict[str, Any]
    result: ResultFile | None
    failure: str | None
    size: int


class Mapping:
    def __init__(
        self,
        pool: Pool,
        storage: ObjectStorage,
        metrics: Metrics,
        transitions: Transitions,
        *,
        batch_size: int = 200,
        batch_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        self._pool = pool
        self._storage = storage
        self._metrics = metrics
        self._transitions = transitions
        self._batch_size = batch_size
        self._batch_bytes = batch_bytes

    async def run_pass(self) -> int:
        mapped = 0
        while taken := await self.map_batch():
            mapped += taken
        return mapped

    async def map_batch(self) -> int:
        """Map the oldest waiting jobs; tell how many were mapped or failed (0: none was
        waiting)."""
        try:
            return await self._map(self._batch_size)
        except _BatchFailed as exc:
            return sum([await self._map(1) for _ in range(exc.jobs)])

    async def _map(self, limit: int) -> int:
        jobs: list[dict[str, Any]] = []
        async with self._pool.connection() as conn:
            try:
                async with conn.transaction():
                    jobs = await self._transitions.claim_unmapped(conn, limit)
                    if not jobs:
                        return 0
                    return await self._apply(conn, await self._read(jobs))
            except Exception as exc:
                # Storage or the database away: the jobs wait for a later pass. Anything else
                # would fail on every pass and, being the oldest, block all mapping behind it.
                if not jobs or database_unavailable(exc) or isinstance(exc, StorageUnavailable):
                    raise
                if len(jobs) > 1:
                    log.warning("mapping_batch_failed", jobs=len(jobs), error=type(exc).__name__)
                    raise _BatchFailed(len(jobs)) from exc
                job = jobs[0]
                log.exception(
                    "mapping_crashed",
                    job_id=str(job["job_id"]),
                    file_id=str(job["file_id"]),
                    attempt=job["attempt"],
                )
                async with conn.transaction():
                    await self._fail(
                        conn, job, f"документы не удалось записать ({type(exc).__name__})"
                    )
                return 1

    async def _read(self, jobs: list[dict[str, Any]]) -> list[_Read]:
        """The claimed jobs' results, in claim order, up to the batch's byte budget (the
        rest stay unmapped for the next batch)."""

        async def one(job: dict[str, Any]) -> _Read:
            try:
                raw = await self._fetch(job)
            except MappingFailed as exc:
                return _Read(job, None, str(exc), 0)
            try:
                return _Read(job, self._parse(job, raw), None, len(raw))
            except MappingFailed as exc:
                return _Read(job, None, str(exc), len(raw))

        reads: list[_Read] = []
        spent = 0
        for start in range(0, len(jobs), READ_CONCURRENCY):
            chunk = await asyncio.gather(*(one(j) for j in jobs[start : start + READ_CONCURRENCY]))
            for read in chunk:
                reads.append(read)
                spent += read.size
                if spent >= self._batch_bytes:
                    # The rest, read or not, waits for the next batch.
                    return reads
        return reads

    async def _apply(self, conn: Connection, reads: list[_Read]) -> int:
        """Write the documents of the results read, fail those that cannot be mapped; the
        number of jobs settled."""
        mapped = [read for read in reads if read.result is not None]
        for read in reads:
            if read.failure is not None:
                await self._fail(conn, read.job, read.failure)
        if not mapped:
            return len(reads)
        await write_documents(
            conn,
            [
                JobDocuments(r.result.job_id, r.result.file_id, r.result.documents)
                for r in mapped
                if r.result is not None
            ],
        )
        moved = set(
            await self._transitions.mapped(
                conn,
                [(r.result.job_id, r.result.group_schema) for r in mapped if r.result is not None],
            )
        )
        self._metrics.mapping.labels("mapped").inc(len(moved))
        for read in mapped:
            if read.result is None or read.result.job_id not in moved:
                continue
            log.info(
                "job_mapped",
                documents=len(read.result.documents),
                status=read.job["status"],
                job_id=str(read.job["job_id"]),
                file_id=str(read.job["file_id"]),
                attempt=read.job["attempt"],
            )
        return len(reads)

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

    async def _fetch(self, job: dict[str, Any]) -> bytes:
        if job["key"] is None:
            raise MappingFailed("у задания нет файла результата")
        try:
            return await self._storage.get(job["key"], max_bytes=MAX_RESULT_FILE_BYTES)
        except ObjectMissing:
            raise MappingFailed(f"файл результата {job['key']} не найден в хранилище") from None
        except StorageUnavailable as exc:
            if "exceeds" in str(exc):
                raise MappingFailed("файл результата слишком велик") from None
            raise  # storage is away: leave the job for a later pass

    @staticmethod
    def _parse(job: dict[str, Any], raw: bytes) -> ResultFile:
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
        return result
