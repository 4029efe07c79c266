"""The ``tabular-parser`` command stops gracefully: a signal stops the intake at once (new
requests go to the other instances of the queue group), the jobs in flight finish and publish
within SHUTDOWN_GRACE_SECONDS, what is still running after it is abandoned and logged, and a
second signal exits at once. Real processes, real nats-server, real storage; each stop is
waited for no longer than the bound the service's settings give it."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.processes import WatchedProcess, venv_command, watched
from arm_ka_platform.storage import open_storage
from recognition_worker import stop_bound
from recognition_worker.fixtures import worker_settings
from recognition_worker.sandbox import REAP_SECONDS
from recognition_worker.testing import (
    ResultCollector,
    eventually,
    in_flight,
    load_until_busy,
    request_payload,
    service_env,
)
from tabular_parser import testing as books
from tabular_parser.settings import TabularSettings

KEY = "uploads/graceful-stop/book.xlsx"
LONG_GRACE = 60.0

pytestmark = pytest.mark.timeout(stop_bound(LONG_GRACE) * 3)


@pytest.fixture(scope="module")
def book() -> bytes:
    """A trial balance of some twenty thousand rows: about half a second of recognition on an
    idle machine, so that a backlog of a few of them is still being worked through when a
    signal arrives."""
    return books.xlsx([books.general_osv(accounts=20, subaccounts=1000)], constant_memory=True)


Parser = Callable[..., AbstractAsyncContextManager[WatchedProcess]]


@pytest.fixture
async def stored_book(
    book: bytes, nats_server: NatsServer, subjects: dict[str, str], storage_settings: Any
) -> str:
    """The book in the test's storage under KEY; its bucket."""
    settings = worker_settings(TabularSettings, nats_server.url, subjects, storage_settings)
    storage = open_storage(settings.storage)
    await storage.put(KEY, book)
    return storage.bucket


@pytest.fixture
def parser(nats_server: NatsServer, subjects: dict[str, str], storage_settings: Any) -> Parser:
    """``parser(**settings)``: the real command on the test's subjects and storage, ready
    (subscribed) when the block starts; whatever of it still runs at the end is killed."""

    @contextlib.asynccontextmanager
    async def start(**settings: object) -> AsyncIterator[WatchedProcess]:
        env = service_env(nats_server.url, subjects, storage_settings, **settings)
        async with watched([venv_command("tabular-parser")], env=env) as process:
            await process.wait_for_event("worker_ready")
            yield process

    return start


def outcome(collector: ResultCollector, job_id: str) -> Any:
    return next((r for r in collector.for_job(job_id) if r.status != "processing"), None)


async def test_sigterm_lets_the_jobs_in_flight_finish_while_new_requests_go_to_another_instance(
    parser: Parser, collector: ResultCollector, subjects: dict[str, str], stored_book: str
) -> None:
    subject = subjects["nats_tabular_request_subject"]

    def request() -> dict[str, Any]:
        return request_payload(key=KEY, bucket=stored_book, deadline_in=600)

    async with (
        parser(worker_concurrency=1, shutdown_grace_seconds=LONG_GRACE) as first,
        parser(worker_concurrency=1) as second,
    ):
        sent = await load_until_busy(collector, subject, request, first, jobs=3, services=[second])
        # As systemd or a terminal would: the whole process group, so the fork server and
        # the recognitions get it too, and must carry on.
        first.send_signal(signal.SIGTERM, group=True)
        draining = await first.wait_for_event("worker_draining")
        assert draining["jobs"] >= 1
        later = [request() for _ in range(3)]
        for payload in later:
            await collector.publish(subject, payload)
        for payload in sent + later:
            await collector.wait_for(payload["job_id"], timeout=stop_bound(LONG_GRACE))
        assert await first.wait(stop_bound(LONG_GRACE)) == 0, first.tail()
        second.send_signal(signal.SIGTERM)
        assert await second.wait(stop_bound(0)) == 0, second.tail()

    taken = {e["job_id"] for e in first.find("request_received")}
    assert {e["job_id"] for e in first.find("job_recognised")} == taken
    assert first.find("job_abandoned") == []
    for payload in later:
        assert payload["job_id"] not in taken
        assert second.find("request_received", job_id=payload["job_id"])
    for payload in sent + later:
        assert outcome(collector, payload["job_id"]).status == "done", payload["job_id"]
    assert first.find("worker_stopped")


async def test_sigterm_with_nothing_in_flight_exits_at_once_whatever_the_grace(
    parser: Parser,
) -> None:
    # A grace far longer than the wait below: a stop that waited for it would fail the test.
    async with parser(shutdown_grace_seconds=3600) as service:
        service.send_signal(signal.SIGTERM)
        assert await service.wait(stop_bound(0)) == 0, service.tail()
        # The fork server leaves once the service's end of its socket is closed.
        await eventually(lambda: not service.group_alive(), "fork server gone", REAP_SECONDS)
    assert service.find("worker_draining") == []
    assert service.find("worker_stopped")


async def test_jobs_still_running_after_the_grace_are_abandoned_and_logged_with_their_ids(
    parser: Parser, collector: ResultCollector, subjects: dict[str, str], stored_book: str
) -> None:
    grace = 0.2
    subject = subjects["nats_tabular_request_subject"]

    def request() -> dict[str, Any]:
        return request_payload(key=KEY, bucket=stored_book, deadline_in=600)

    async with parser(worker_concurrency=1, shutdown_grace_seconds=grace) as service:
        sent = await load_until_busy(collector, subject, request, service, jobs=4)
        service.send_signal(signal.SIGTERM)
        assert await service.wait(stop_bound(grace)) == 0, service.tail()
        await eventually(lambda: not service.group_alive(), "recognitions gone", REAP_SECONDS)

    abandoned = {e["job_id"]: e for e in service.find("job_abandoned")}
    assert abandoned, service.tail()
    for payload in sent:
        job_id = payload["job_id"]
        if job_id in abandoned:
            entry = abandoned[job_id]
            assert (entry["file_id"], entry["attempt"]) == (payload["file_id"], 1)
        else:
            await collector.wait_for(job_id, timeout=stop_bound(grace))
            assert outcome(collector, job_id).status == "done"
    # Acked and unanswered: the core times these out at their reply deadline.
    assert any(outcome(collector, job_id) is None for job_id in abandoned)


async def test_a_second_signal_exits_at_once_abandoning_the_jobs_in_flight(
    parser: Parser, collector: ResultCollector, subjects: dict[str, str], stored_book: str
) -> None:
    subject = subjects["nats_tabular_request_subject"]

    def request() -> dict[str, Any]:
        return request_payload(key=KEY, bucket=stored_book, deadline_in=600)

    async with parser(worker_concurrency=1, shutdown_grace_seconds=3600) as service:
        await load_until_busy(collector, subject, request, service, jobs=3)
        service.send_signal(signal.SIGTERM)
        await service.wait_for_event("worker_draining")
        left = in_flight(service)
        service.send_signal(signal.SIGINT)
        assert await service.wait(stop_bound(0)) == 128 + signal.SIGINT, service.tail()
        # The fork server sees its service gone and kills the recognitions it still runs.
        await eventually(lambda: not service.group_alive(), "recognitions gone", REAP_SECONDS)

    assert service.find("service_stop_forced", signal="SIGINT")
    abandoned = {e["job_id"] for e in service.find("job_abandoned")}
    assert abandoned and abandoned <= left
