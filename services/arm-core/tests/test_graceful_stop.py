"""The ``arm-core`` command stops gracefully: a SIGTERM stops it receiving results first (the
queue group hands new ones to the other instances), the inbox applies what it has received,
the loops finish their passes, and the process exits 0 within its bound; a second signal exits
at once. Real processes against real PostgreSQL, nats-server and storage."""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

import httpx
import psycopg
import pytest

from arm_core.cli import STOP_BOUND_SECONDS
from arm_core.testing import StubService, insert_file_with_job, job_row, wait_until
from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.processes import (
    READY_SECONDS,
    WatchedProcess,
    free_port,
    venv_command,
    watched,
)
from arm_ka_platform.settings import Subjects
from recognition_contract import ErrorInfo

pytestmark = pytest.mark.timeout(READY_SECONDS + 3 * STOP_BOUND_SECONDS)

Core = Callable[[], AbstractAsyncContextManager[tuple[WatchedProcess, str]]]


@pytest.fixture
def core_subjects() -> Subjects:
    prefix = f"stop{uuid.uuid4().hex[:10]}"
    return Subjects(
        tabular_request=f"{prefix}.tabular",
        image_request=f"{prefix}.img",
        result=f"{prefix}.result",
    )


@pytest.fixture
def core(
    database_url: str, nats_server: NatsServer, storage_url: str, core_subjects: Subjects
) -> Core:
    """``core()``: the real command on the test's database, NATS, storage and subjects, ready
    (results subscribed, HTTP answering) when the block starts; its process and base URL."""

    @contextlib.asynccontextmanager
    async def start() -> AsyncIterator[tuple[WatchedProcess, str]]:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBAO__")}
        env.update(
            DATABASE_URL=database_url,
            NATS_URL=nats_server.url,
            STORAGE_URL=storage_url,
            HTTP_PORT=str(port),
            LOG_JSON="true",
            DEBUG="true",
            OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT=core_subjects.tabular_request,
            OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT=core_subjects.image_request,
            OPENBAO__NATS__NATS_RESULT_SUBJECT=core_subjects.result,
        )
        url = f"http://127.0.0.1:{port}"
        async with watched([venv_command("arm-core")], env=env) as process:
            # Logged once the result subscription is flushed to the server.
            await process.wait_for_event("nats_connected")
            await wait_until(lambda: _answers(url, process), timeout=READY_SECONDS)
            yield process, url

    return start


async def _answers(url: str, process: WatchedProcess) -> bool:
    assert process.returncode is None, f"arm-core exited\n{process.tail()}"
    try:
        async with httpx.AsyncClient() as client:
            return (await client.get(f"{url}/healthcheck", timeout=5)).status_code == 200
    except httpx.TransportError:
        return False


@pytest.fixture
async def service(nats_server: NatsServer, core_subjects: Subjects) -> AsyncIterator[StubService]:
    stub = await StubService(nats_server.url, core_subjects).connect()
    try:
        yield stub
    finally:
        await stub.close()


async def _jobs_in_processing(dsn: str, count: int) -> list[tuple[uuid.UUID, uuid.UUID]]:
    return [await insert_file_with_job(dsn, status="processing") for _ in range(count)]


async def _answer(service: StubService, jobs: list[tuple[uuid.UUID, uuid.UUID]]) -> None:
    for file_id, job_id in jobs:
        await service.send(
            job_id, file_id, "error", error=ErrorInfo(code="UNREADABLE", message="не читается")
        )


async def test_results_received_before_sigterm_are_applied_and_the_core_exits_0(
    core: Core, service: StubService, database_url: str
) -> None:
    jobs = await _jobs_in_processing(database_url, 40)
    async with core() as (process, _):
        # The jobs' rows locked, the inbox holds the results it receives unapplied: they are
        # still waiting in it when the stop drains the subscription.
        async with (
            await psycopg.AsyncConnection.connect(database_url) as blocker,
            blocker.transaction(),
        ):
            await blocker.execute(
                "SELECT id FROM recognition_job WHERE id = ANY(%s) FOR UPDATE",
                ([job_id for _, job_id in jobs],),
            )
            # Every result is on the server, so on its way to the core, before the signal.
            await _answer(service, jobs)
            process.send_signal(signal.SIGTERM)
            await process.wait_for_event("results_drained")
        assert await process.wait(STOP_BOUND_SECONDS) == 0, process.tail()
    for _, job_id in jobs:
        assert (await job_row(database_url, job_id))["status"] == "error"
    events = [e["event"] for e in process.events]
    drained = events.index("results_drained")
    assert [i for i, e in enumerate(events) if e == "result_applied" and i < drained] == []
    assert events.count("result_applied") == len(jobs)
    assert drained < events.index("arm_core_stopped")


async def test_results_sent_after_the_drain_go_to_the_other_instance(
    core: Core, service: StubService, database_url: str
) -> None:
    jobs = await _jobs_in_processing(database_url, 10)
    async with core() as (leaving, _), core() as (staying, _):
        leaving.send_signal(signal.SIGTERM)
        await leaving.wait_for_event("results_drained")
        await _answer(service, jobs)
        for _, job_id in jobs:
            await staying.wait_for_event("result_applied", job_id=str(job_id))
        assert await leaving.wait(STOP_BOUND_SECONDS) == 0, leaving.tail()
        staying.send_signal(signal.SIGTERM)
        assert await staying.wait(STOP_BOUND_SECONDS) == 0, staying.tail()
    assert leaving.find("result_applied") == []
    for _, job_id in jobs:
        assert (await job_row(database_url, job_id))["status"] == "error"


async def test_a_second_signal_exits_at_once(core: Core) -> None:
    async with (
        core() as (process, url),
        httpx.AsyncClient(timeout=30) as client,
        # An open event stream holds the first stop in uvicorn's wait for connections.
        client.stream("GET", f"{url}/ui/events") as stream,
    ):
        assert stream.status_code == 200
        process.send_signal(signal.SIGTERM)
        await process.wait_for_event("arm_core_signalled", signal="SIGTERM")
        process.send_signal(signal.SIGTERM)
        code = await process.wait(STOP_BOUND_SECONDS)
    assert code == 128 + signal.SIGTERM, process.tail()
    assert process.find("arm_core_stop_forced", signal="SIGTERM")
    assert process.find("arm_core_stopped") == []
