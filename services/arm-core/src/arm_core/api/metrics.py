"""``GET /metrics`` in Prometheus text format."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from arm_core.api.errors import error_responses_beside
from arm_core.db.tables import JOB_STATUSES
from arm_core.runtime import Runtime

router = APIRouter()

JOBS_BY_STATUS = "SELECT status, count(*) AS n FROM recognition_job GROUP BY status"


@router.get(
    "/metrics",
    response_class=PlainTextResponse,
    responses={
        200: {"description": "Prometheus text exposition format"},
        **error_responses_beside({}),
    },
)
async def metrics(request: Request) -> Response:
    """The process's counters and the jobs by status, for Prometheus to scrape."""
    runtime: Runtime = request.app.state.runtime
    counts = dict.fromkeys(JOB_STATUSES, 0)
    try:
        async with runtime.pool.connection(timeout=2) as conn:
            for row in await (await conn.execute(JOBS_BY_STATUS)).fetchall():
                counts[row["status"]] = row["n"]
    except Exception:  # the counters are still worth serving while the database is away
        counts = {}
    for status, count in counts.items():
        runtime.metrics.jobs.labels(status).set(count)
    return Response(generate_latest(runtime.metrics.registry), media_type=CONTENT_TYPE_LATEST)
