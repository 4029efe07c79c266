"""Refused requests in the audit trail: who (or from where) was refused what, and why.

A flood of refusals (a scanner, a misconfigured client) must not fill the table or load the
database: past ``PER_MINUTE`` refusals of one caller a minute, they are logged only.
"""

from __future__ import annotations

import psycopg
from psycopg_pool import PoolTimeout

from arm_core.api.rate import RateLimits
from arm_core.audit.trail import ANONYMOUS, record
from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.files.access import VISIBLE_CONSOLIDATION, VISIBLE_FILE
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

PER_MINUTE = 30


async def note_refusal(
    pool: Pool,
    limits: RateLimits,
    *,
    actor: str | None,
    outcome: str,
    method: str,
    path: str,
    client: str | None,
) -> None:
    caller = actor or f"{ANONYMOUS}@{client or '?'}"
    log.info("request_refused", actor=caller, outcome=outcome, method=method, path=path)
    if limits.take("refusal-audit", caller, PER_MINUTE) is not None:
        return
    try:
        await record(
            pool,
            actor=actor or ANONYMOUS,
            action="access.refused",
            outcome=outcome,
            details={"method": method, "path": path[:500], "client": client},
        )
    except (psycopg.Error, PoolTimeout) as exc:
        # The refusal itself stands; only its row is missing, and the log above has it.
        log.warning("audit_write_failed", action="access.refused", error=type(exc).__name__)


# What a route's path parameter names: the row it names exists, and is out of the user's sight.
_HIDDEN = {
    "file_id": f"""
        SELECT EXISTS (SELECT 1 FROM stored_file f WHERE f.id = %(id)s::uuid)
           AND NOT EXISTS (SELECT 1 FROM stored_file f
                            WHERE f.id = %(id)s::uuid AND {VISIBLE_FILE}) AS found""",
    "consolidation_id": f"""
        SELECT EXISTS (SELECT 1 FROM consolidation c WHERE c.id = %(id)s::uuid)
           AND NOT EXISTS (SELECT 1 FROM consolidation c
                            WHERE c.id = %(id)s::uuid AND {VISIBLE_CONSOLIDATION}) AS found""",
    "job_id": f"""
        SELECT EXISTS (SELECT 1 FROM recognition_job j WHERE j.id = %(id)s::uuid)
           AND NOT EXISTS (SELECT 1 FROM recognition_job j
                             JOIN stored_file f ON f.id = j.file_id
                            WHERE j.id = %(id)s::uuid AND {VISIBLE_FILE}) AS found""",
}


async def note_if_hidden(
    pool: Pool,
    limits: RateLimits,
    *,
    who: Principal,
    path_params: dict[str, object],
    method: str,
    path: str,
    client: str | None,
) -> None:
    """After a 404: if what the path names exists out of the user's sight (another team's
    file, say), the user was refused it, and that is a refusal like any other. A 404 about
    something inside a file the user sees (a sheet, a page) is no refusal."""
    for param, query in _HIDDEN.items():
        value = path_params.get(param)
        if value is None:
            continue
        try:
            async with pool.connection() as conn:
                row = await (await conn.execute(query, {"id": str(value), **who.sql()})).fetchone()
        except (psycopg.Error, PoolTimeout):
            return
        if row is not None and row["found"]:
            await note_refusal(
                pool,
                limits,
                actor=who.user,
                outcome="NOT_VISIBLE",
                method=method,
                path=path,
                client=client,
            )
        return
