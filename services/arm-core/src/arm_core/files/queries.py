"""Read side of files, attempts and consolidations, shaped for the API and the UI."""

from __future__ import annotations

import uuid
from typing import Any

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.db.tables import FILE_STATUSES
from arm_core.files.access import VISIBLE_FILE
from arm_core.jobs.transitions import retryable

# Far beyond any listing a person pages through, and inside PostgreSQL's bigint.
MAX_OFFSET = 1_000_000_000
# Statuses of files whose current attempt has documents.
RECOGNISED = ("RECOGNIZED", "NEEDS_CHECK")

JOB_COLUMNS = """
       j.id, j.file_id, j.attempt, j.max_attempts, j.status, j.pipeline,
       j.requested_at, j.published_at, j.started_at, j.finished_at, j.reply_deadline,
       j.request_msg_id, j.request_subject, j.result_msg_id, j.service_name, j.service_version,
       j.error_code, j.error_message, j.result_schema_version, j.group_schema,
       j.statements_version, j.metrics, j.republish_count"""

FILE_COLUMNS = """
       f.id, f.original_name, f.file_type, f.status, f.error_code, f.error_message,
       f.mapping_error,
       f.consolidation_id, f.created_at, f.updated_at, f.current_recognition_job_id,
       o.size, j.attempt, j.max_attempts, j.status AS job_status,
       j.error_code AS job_error_code,
       r.documents, r.confirmed_documents"""

# The current attempt's documents, and how many of them an analyst confirmed.
REVIEWED = """(SELECT count(*) AS documents, count(d.confirmed_at) AS confirmed_documents
                 FROM document d
                WHERE d.file_id = f.id AND d.job_id = f.current_recognition_job_id)"""

FILE_FROM = f"""
  FROM stored_file f
  JOIN s3_object o ON o.id = f.s3_object_id
  LEFT JOIN recognition_job j ON j.id = f.current_recognition_job_id
  CROSS JOIN LATERAL {REVIEWED} r"""


def job_view(row: dict[str, Any]) -> dict[str, Any]:
    metrics = dict(row["metrics"] or {})
    return {
        "id": row["id"],
        "file_id": row["file_id"],
        "attempt": row["attempt"],
        "max_attempts": row["max_attempts"],
        "status": row["status"],
        "pipeline": row["pipeline"],
        "requested_at": row["requested_at"],
        "published_at": row["published_at"],
        "started_at": row["started_at"],
        "finished_at": row["finished_at"],
        "reply_deadline": row["reply_deadline"],
        "request_msg_id": row["request_msg_id"],
        "request_subject": row["request_subject"],
        "result_msg_id": row["result_msg_id"],
        "service_name": row["service_name"],
        "service_version": row["service_version"],
        "republish_count": row["republish_count"],
        "error_code": row["error_code"],
        "error_message": row["error_message"],
        "result_schema_version": row["result_schema_version"],
        "group_schema": row["group_schema"],
        "statements_version": row["statements_version"],
        "warnings": metrics.pop("warnings", []),
        # The row's metrics carry republish_count, the spec's name for the counter.
        "metrics": metrics,
    }


def file_view(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "original_name": row["original_name"],
        "file_type": row["file_type"],
        "status": row["status"],
        "error_code": row["error_code"],
        "error_message": row["error_message"],
        "mapping_error": row["mapping_error"],
        "consolidation_id": row["consolidation_id"],
        "size": row["size"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "current_job_id": row["current_recognition_job_id"],
        "attempt": row["attempt"],
        "max_attempts": row["max_attempts"],
        "retryable": retryable(
            row["status"],
            row["job_status"],
            row["attempt"] or 0,
            row["max_attempts"] or 0,
            row["job_error_code"],
        ),
        "documents": row["documents"],
        "confirmed_documents": row["confirmed_documents"],
    }


async def list_files(
    pool: Pool,
    who: Principal,
    *,
    consolidation_id: uuid.UUID | None,
    statuses: list[str],
    limit: int,
    offset: int,
) -> dict[str, Any]:
    unknown = [s for s in statuses if s not in FILE_STATUSES]
    if unknown:
        raise ValueError(f"unknown status {unknown[0]!r}")
    where = [
        "(%(consolidation_id)s::uuid IS NULL OR f.consolidation_id = %(consolidation_id)s)",
        VISIBLE_FILE,
    ]
    if statuses:
        where.append("f.status = ANY(%(statuses)s)")
    params = {
        "consolidation_id": consolidation_id,
        "statuses": statuses,
        "limit": limit,
        "offset": offset,
        **who.sql(),
    }
    condition = " AND ".join(where)
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(
                f"SELECT {FILE_COLUMNS} {FILE_FROM} WHERE {condition}"
                " ORDER BY f.created_at DESC, f.id LIMIT %(limit)s OFFSET %(offset)s",
                params,
            )
        ).fetchall()
        total = await (
            await conn.execute(f"SELECT count(*) AS n FROM stored_file f WHERE {condition}", params)
        ).fetchone()
    return {
        "items": [file_view(row) for row in rows],
        "total": total["n"] if total else 0,
        "limit": limit,
        "offset": offset,
    }


async def file_detail(pool: Pool, who: Principal, file_id: uuid.UUID) -> dict[str, Any] | None:
    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                f"SELECT {FILE_COLUMNS} {FILE_FROM} WHERE f.id = %(id)s AND {VISIBLE_FILE}",
                {"id": file_id, **who.sql()},
            )
        ).fetchone()
        if row is None:
            return None
        jobs = await (
            await conn.execute(
                f"SELECT {JOB_COLUMNS} FROM recognition_job j WHERE j.file_id = %(id)s"
                " ORDER BY j.attempt",
                {"id": file_id},
            )
        ).fetchall()
    return {**file_view(row), "attempts": [job_view(job) for job in jobs]}


async def source_object(pool: Pool, who: Principal, file_id: uuid.UUID) -> dict[str, Any] | None:
    async with pool.connection() as conn:
        return await (
            await conn.execute(
                "SELECT f.original_name, f.file_type, o.key, o.content_type, o.size"
                " FROM stored_file f JOIN s3_object o ON o.id = f.s3_object_id"
                f" WHERE f.id = %(id)s AND {VISIBLE_FILE}",
                {"id": file_id, **who.sql()},
            )
        ).fetchone()


async def job_detail(pool: Pool, who: Principal, job_id: uuid.UUID) -> dict[str, Any] | None:
    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                f"SELECT {JOB_COLUMNS} FROM recognition_job j"
                " JOIN stored_file f ON f.id = j.file_id"
                f" WHERE j.id = %(id)s AND {VISIBLE_FILE}",
                {"id": job_id, **who.sql()},
            )
        ).fetchone()
    return job_view(row) if row else None


CONSOLIDATION_FILES = f"""
SELECT f.id, f.original_name, f.status, o.sha256, f.reconciliation_excluded_by,
       f.reconciliation_excluded_reason, f.reconciliation_excluded_at
  FROM stored_file f
  JOIN s3_object o ON o.id = f.s3_object_id
 WHERE f.consolidation_id = %(consolidation_id)s AND {VISIBLE_FILE}
 ORDER BY f.created_at, f.id
"""


async def consolidation_files(
    pool: Pool, who: Principal, consolidation_id: uuid.UUID
) -> list[dict[str, Any]]:
    """Every file of the consolidation ``who`` may see, oldest first, with its status and
    the SHA-256 of its bytes."""
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(
                CONSOLIDATION_FILES, {"consolidation_id": consolidation_id, **who.sql()}
            )
        ).fetchall()
    return [dict(row) for row in rows]


COUNTS = f"""
SELECT f.status, count(*) AS n FROM stored_file f
 WHERE (%(consolidation_id)s::uuid IS NULL OR f.consolidation_id = %(consolidation_id)s)
   AND {VISIBLE_FILE}
 GROUP BY f.status
"""


async def counts_by_status(
    pool: Pool, who: Principal, consolidation_id: uuid.UUID | None
) -> dict[str, int]:
    """The files ``who`` may see (of one consolidation, or all), counted by status."""
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(COUNTS, {"consolidation_id": consolidation_id, **who.sql()})
        ).fetchall()
    counts = dict.fromkeys(FILE_STATUSES, 0)
    counts.update({row["status"]: int(row["n"]) for row in rows})
    return counts
