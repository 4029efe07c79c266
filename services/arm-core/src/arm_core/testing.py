"""Pytest fixtures for arm-core against real infrastructure (a pytest11 plugin).

The schema is migrated once into a template database; every test gets a fresh clone, which
PostgreSQL makes in tens of milliseconds. ``core_settings`` uses short timings so exchange
scenarios run in fractions of a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from arm_core.app import create_app
from arm_core.db.migrate import upgrade
from arm_core.settings import CoreSettings
from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.postgres import EmbeddedPostgres
from arm_ka_devstack.processes import free_port

TEMPLATE = "arm_ka_template"


@pytest.fixture(scope="session")
def migrated_template(postgres: EmbeddedPostgres) -> str:
    postgres.drop_database(TEMPLATE)
    upgrade(postgres.ensure_database(TEMPLATE))
    return TEMPLATE


@pytest.fixture
def database_url(postgres: EmbeddedPostgres, migrated_template: str) -> Iterator[str]:
    name = f"test_{uuid.uuid4().hex[:16]}"
    url = postgres.ensure_database(name, template=migrated_template)
    try:
        yield url
    finally:
        postgres.drop_database(name)


@pytest.fixture
def storage_url(tmp_path: Path) -> str:
    return f"file://{tmp_path / 'storage'}"


@pytest.fixture
def make_core_settings(
    database_url: str, nats_server: NatsServer, storage_url: str
) -> Callable[..., CoreSettings]:
    """Settings for a core under test; keyword arguments override any field."""

    def make(**overrides: Any) -> CoreSettings:
        values: dict[str, Any] = {
            "database_url": database_url,
            "nats_url": nats_server.url,
            "storage_url": storage_url,
            "outbox_poll_seconds": 0.2,
            "ack_timeout_seconds": 1.0,
            "reply_timeout_seconds": 10.0,
            "watchdog_period_seconds": 0.2,
            "mapping_period_seconds": 0.2,
            "http_port": free_port(),
            "log_json": True,
        }
        values.update(overrides)
        return CoreSettings(**values)

    return make


@dataclass
class RunningCore:
    settings: CoreSettings
    url: str
    client: httpx.AsyncClient
    server: uvicorn.Server

    @property
    def runtime(self) -> Any:
        return self.server.config.loaded_app.app.state.runtime


@contextlib.asynccontextmanager
async def run_core(settings: CoreSettings) -> AsyncIterator[RunningCore]:
    """arm-core served by uvicorn on a real port inside the test's event loop."""
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=settings.http_port,
        log_config=None,
        access_log=False,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(), name="uvicorn")
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("arm-core stopped while starting")
            await asyncio.sleep(0.02)
        url = f"http://127.0.0.1:{settings.http_port}"
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            yield RunningCore(settings=settings, url=url, client=client, server=server)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, timeout=15)
