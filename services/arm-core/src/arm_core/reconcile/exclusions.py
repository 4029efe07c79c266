"""Leaving a file out of its consolidation's «Сверки» (to clear a false finding) and taking
it back in: each one guarded statement with its audit row. The file and its documents stay
as they are; only the checks across the consolidation pass it over."""

from __future__ import annotations

import uuid

from psycopg.types.json import Jsonb

from arm_core.db.pool import Pool

EXCLUDE = """
WITH changed AS (
    UPDATE stored_file
       SET reconciliation_excluded_by = %(actor)s,
           reconciliation_excluded_reason = %(reason)s,
           reconciliation_excluded_at = now()
     WHERE id = %(file_id)s AND reconciliation_excluded_at IS NULL
    RETURNING id
), audit AS (
    INSERT INTO audit_log (actor, action, file_id, details)
    SELECT %(actor)s, 'reconciliation.exclude', id, %(details)s FROM changed
)
SELECT id FROM changed
"""

INCLUDE = """
WITH changed AS (
    UPDATE stored_file
       SET reconciliation_excluded_by = NULL,
           reconciliation_excluded_reason = NULL,
           reconciliation_excluded_at = NULL
     WHERE id = %(file_id)s AND reconciliation_excluded_at IS NOT NULL
    RETURNING id
), audit AS (
    INSERT INTO audit_log (actor, action, file_id, details)
    SELECT %(actor)s, 'reconciliation.include', id, '{}'::jsonb FROM changed
)
SELECT id FROM changed
"""


async def set_excluded(
    pool: Pool, file_id: uuid.UUID, actor: str, *, excluded: bool, reason: str | None = None
) -> bool:
    """Leave the file out (``excluded``) or take it back in; False if it already was so."""
    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                EXCLUDE if excluded else INCLUDE,
                {
                    "file_id": file_id,
                    "actor": actor,
                    "reason": reason,
                    "details": Jsonb({"reason": reason}),
                },
            )
        ).fetchone()
    return row is not None
