"""``GET /healthcheck``: database, NATS and the subjects in use."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request

from arm_core.api.errors import error_responses
from arm_core.api.models import Health
from arm_core.runtime import Runtime

router = APIRouter()


async def database_status(runtime: Runtime) -> str:
    try:
        async with asyncio.timeout(2):
            async with runtime.pool.connection(timeout=2) as conn:
                await conn.execute("SELECT 1")
    except Exception:
        return "down"
    return "ok"


@router.get("/healthcheck", responses=error_responses({}))
async def healthcheck(request: Request) -> Health:
    """200 while the process serves; ``status`` says whether its database and NATS are there."""
    runtime: Runtime = request.app.state.runtime
    db = await database_status(runtime)
    nats = runtime.nats_status
    return Health.model_validate(
        {
            "status": "ok" if db == "ok" and nats != "down" else "degraded",
            "db": db,
            "nats": nats,
            "subjects": runtime.settings.subjects.model_dump(),
        }
    )
