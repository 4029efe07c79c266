"""Jobs in flight past their reply deadline become ``timeout``; their files ``ERROR``."""

from __future__ import annotations

from arm_core.db.pool import Pool
from arm_core.jobs.transitions import Transitions
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)


class Watchdog:
    def __init__(self, pool: Pool, metrics: Metrics, transitions: Transitions) -> None:
        self._pool = pool
        self._metrics = metrics
        self._transitions = transitions

    async def run_pass(self) -> int:
        async with self._pool.connection() as conn:
            rows = await self._transitions.timeout(conn)
        for row in rows:
            log.warning(
                "job_timed_out",
                job_id=str(row["id"]),
                file_id=str(row["file_id"]),
                attempt=row["attempt"],
                file_failed=row["file_moved"],
            )
        self._metrics.timeouts.inc(len(rows))
        return len(rows)
