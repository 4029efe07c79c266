"""Rows of the audit trail written on their own (reads and refusals), and the trail read
back for admins."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from psycopg.types.json import Jsonb

from arm_core.db.pool import Pool

RECORD = """
INSERT INTO audit_log (actor, action, outcome, file_id, job_id, details)
VALUES (%(actor)s, %(action)s, %(outcome)s, %(file_id)s, %(job_id)s, %(details)s)
"""

# The actor of a request nobody could be named for.
ANONYMOUS = "anonymous"


async def record(
    pool: Pool,
    *,
    actor: str,
    action: str,
    outcome: str = "ok",
    file_id: uuid.UUID | None = None,
    job_id: uuid.UUID | None = None,
    details: dict[str, Any] | None = None,
) -> None:
    async with pool.connection() as conn:
        await conn.execute(
            RECORD,
            {
                "actor": actor,
                "action": action,
                "outcome": outcome,
                "file_id": file_id,
                "job_id": job_id,
                "details": Jsonb(details or {}),
            },
        )


async def read(
    pool: Pool,
    *,
    actor: str | None,
    action: str | None,
    outcome: str | None,
    file_id: uuid.UUID | None,
    since: dt.datetime | None,
    until: dt.datetime | None,
    limit: int,
    offset: int,
) -> dict[str, Any]:
    """The trail, newest first, a page at a time; each filter applies when given."""
    condition = """
        (%(actor)s::text IS NULL OR actor = %(actor)s)
    AND (%(action)s::text IS NULL OR action = %(action)s)
    AND (%(outcome)s::text IS NULL OR outcome = %(outcome)s)
    AND (%(file_id)s::uuid IS NULL OR file_id = %(file_id)s)
    AND (%(since)s::timestamptz IS NULL OR at >= %(since)s)
    AND (%(until)s::timestamptz IS NULL OR at < %(until)s)"""
    params = {
        "actor": actor,
        "action": action,
        "outcome": outcome,
        "file_id": file_id,
        "since": since,
        "until": until,
        "limit": limit,
        "offset": offset,
    }
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT id, at, actor, action, outcome, file_id, job_id, details"
                f" FROM audit_log WHERE {condition}"
                " ORDER BY at DESC, id DESC LIMIT %(limit)s OFFSET %(offset)s",
                params,
            )
        ).fetchall()
        total = await (
            await conn.execute(f"SELECT count(*) AS n FROM audit_log WHERE {condition}", params)
        ).fetchone()
    return {
        "items": [dict(row) for row in rows],
        "total": total["n"] if total else 0,
        "limit": limit,
        "offset": offset,
    }
