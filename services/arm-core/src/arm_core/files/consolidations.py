"""Consolidations: the borrower's set of files an analyst works on together."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg.types.json import Jsonb

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.db.tables import FILE_STATUSES
from arm_core.files.access import VISIBLE_CONSOLIDATION

CREATE = """
WITH created AS (
    INSERT INTO consolidation (name, team, created_by) VALUES (%(name)s, %(team)s, %(actor)s)
    RETURNING id, name, team, created_by, created_at
), audit AS (
    INSERT INTO audit_log (actor, action, details)
    SELECT %(actor)s, 'consolidation.create', %(details)s || jsonb_build_object('id', id)
      FROM created
)
SELECT * FROM created
"""

# Admins hand a consolidation to a team (one made before teams were kept, say).
ASSIGN = """
WITH assigned AS (
    UPDATE consolidation SET team = %(team)s WHERE id = %(id)s
    RETURNING id, team
), audit AS (
    INSERT INTO audit_log (actor, action, details)
    SELECT %(actor)s, 'consolidation.assign', jsonb_build_object('id', id, 'team', team)
      FROM assigned
)
SELECT id FROM assigned
"""

WITH_COUNTS = """
SELECT c.id, c.name, c.team, c.created_by, c.created_at,
       coalesce((SELECT jsonb_object_agg(t.status, t.n)
                   FROM (SELECT status, count(*) AS n
                           FROM stored_file s
                          WHERE s.consolidation_id = c.id
                          GROUP BY status) t), '{}') AS by_status,
       r.documents, r.confirmed_documents
  FROM consolidation c
  CROSS JOIN LATERAL (
      SELECT count(d.id) AS documents, count(d.confirmed_at) AS confirmed_documents
        FROM stored_file s
        JOIN document d ON d.file_id = s.id AND d.job_id = s.current_recognition_job_id
       WHERE s.consolidation_id = c.id) r
"""


def _view(row: dict[str, Any]) -> dict[str, Any]:
    by_status = {status: 0 for status in FILE_STATUSES}
    by_status.update({k: int(v) for k, v in (row.get("by_status") or {}).items()})
    return {
        "id": row["id"],
        "name": row["name"],
        "team": row["team"],
        "created_by": row["created_by"],
        "created_at": row["created_at"],
        "files": sum(by_status.values()),
        "by_status": by_status,
        # A consolidation just made has none.
        "documents": row.get("documents", 0),
        "confirmed_documents": row.get("confirmed_documents", 0),
    }


async def create_consolidation(
    pool: Pool, name: str, team: str | None, actor: str
) -> dict[str, Any]:
    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                CREATE,
                {
                    "name": name,
                    "team": team,
                    "actor": actor,
                    "details": Jsonb({"name": name, "team": team}),
                },
            )
        ).fetchone()
    assert row is not None
    return _view(row)


async def list_consolidations(pool: Pool, who: Principal) -> list[dict[str, Any]]:
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(
                f"{WITH_COUNTS} WHERE {VISIBLE_CONSOLIDATION} ORDER BY c.created_at DESC, c.id",
                who.sql(),
            )
        ).fetchall()
    return [_view(row) for row in rows]


async def get_consolidation(
    pool: Pool, who: Principal, consolidation_id: uuid.UUID
) -> dict[str, Any] | None:
    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                f"{WITH_COUNTS} WHERE c.id = %(id)s AND {VISIBLE_CONSOLIDATION}",
                {"id": consolidation_id, **who.sql()},
            )
        ).fetchone()
    return _view(row) if row else None


async def assign_team(
    pool: Pool, consolidation_id: uuid.UUID, team: str | None, actor: str
) -> bool:
    """False when there is no such consolidation."""
    async with pool.connection() as conn:
        row = await (
            await conn.execute(ASSIGN, {"id": consolidation_id, "team": team, "actor": actor})
        ).fetchone()
    return row is not None
