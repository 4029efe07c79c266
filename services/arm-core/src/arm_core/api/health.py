"""``GET /healthcheck``: database, NATS and the subjects in use."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

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


@router.get("/healthcheck")
async def healthcheck(request: Request) -> dict[str, Any]:
    runtime: Runtime = request.app.state.runtime
    db = await database_status(runtime)
    nats = runtime.nats_status
    return {
        "status": "ok" if db == "ok" and nats != "down" else "degraded",
        "db": db,
        "nats": nats,
        "subjects": runtime.settings.subjects.model_dump(),
    }
