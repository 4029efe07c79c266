"""Refused requests in the audit trail: who (or from where) was refused what, and why.

A flood of refusals (a scanner, a misconfigured client) must not fill the table or load the
database: past ``PER_MINUTE`` refusals of one caller a minute, they are logged only.
"""

from __future__ import annotations

import psycopg
from psycopg_pool import PoolTimeout

from arm_core.api.rate import RateLimits
from arm_core.audit.trail import ANONYMOUS, record
from arm_core.db.pool import Pool
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
