"""Pytest fixtures for services built on the worker: real nats-server, real storage (a local
directory, or the S3 peer for tests parametrized ``indirect`` with "s3"), subjects of the
test's own so that tests never hear each other.

A service's ``conftest.py`` only names how its worker is built::

    @pytest.fixture
    def parser(worker_factory):
        return worker_factory(TabularSettings, recognizer, "tabular-parser")
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.processes import READY_SECONDS
from arm_ka_devstack.s3peer import ACCESS_KEY_ID, SECRET_ACCESS_KEY, S3Peer
from arm_ka_platform.nats import NatsLink
from recognition_worker.recognition import Recognizer
from recognition_worker.settings import WorkerSettings
from recognition_worker.testing import ResultCollector, request_payload
from recognition_worker.worker import Worker

WorkerFactory = Callable[..., Awaitable[Worker]]
MakeFactory = Callable[..., WorkerFactory]


@pytest.fixture
def subjects() -> dict[str, str]:
    prefix = f"t{uuid.uuid4().hex[:10]}"
    return {
        "nats_tabular_request_subject": f"{prefix}.tabular",
        "nats_image_request_subject": f"{prefix}.img",
        "nats_result_subject": f"{prefix}.result",
    }


@pytest.fixture
def storage_settings(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    if getattr(request, "param", "local") == "local":
        return {"storage_url": f"file://{tmp_path / 'storage'}", "storage_bucket": "arm-ka"}
    peer: S3Peer = request.getfixturevalue("s3_peer")
    bucket = f"b-{uuid.uuid4().hex[:12]}"
    peer.create_bucket(bucket)
    return {
        "storage_url": "s3://",
        "storage_bucket": bucket,
        "s3_endpoint_url": peer.endpoint,
        "openbao": {"s3": {"access_key_id": ACCESS_KEY_ID, "secret_access_key": SECRET_ACCESS_KEY}},
    }


def worker_settings(
    cls: type[WorkerSettings],
    nats_url: str,
    subjects: dict[str, str],
    storage: dict[str, Any],
    **overrides: Any,
) -> Any:
    """Settings for a worker under test: short timings, the test's subjects and storage."""
    openbao = {**storage.get("openbao", {}), "nats": subjects}
    values: dict[str, Any] = {
        "nats_url": nats_url,
        "worker_concurrency": 2,
        "job_timeout_seconds": 20.0,
        "publish_retry_seconds": 0.2,
        "shutdown_grace_seconds": 2.0,
        **{k: v for k, v in storage.items() if k != "openbao"},
        **overrides,
    }
    return cls(openbao=openbao, **values)


@pytest.fixture
async def collector(
    nats_server: NatsServer, subjects: dict[str, str]
) -> AsyncIterator[ResultCollector]:
    results = ResultCollector()
    await results.start(nats_server.url, subjects["nats_result_subject"])
    yield results
    await results.close()


@pytest.fixture
async def worker_factory(
    subjects: dict[str, str], storage_settings: dict[str, Any]
) -> AsyncIterator[MakeFactory]:
    """``worker_factory(settings_cls, recognizer_for, name, **defaults)`` gives
    ``make(nats_url, **overrides)``,
    which starts a worker; every worker started is stopped at the end of the test."""
    started: list[Worker] = []

    def factory(
        cls: type[WorkerSettings],
        recognizer_for: Callable[[Any], Recognizer],
        name: str,
        **defaults: Any,
    ) -> WorkerFactory:
        async def make(nats_url: str, *, reconnect_wait: float = 0.5, **overrides: Any) -> Worker:
            settings = worker_settings(
                cls, nats_url, subjects, storage_settings, **{**defaults, **overrides}
            )
            link = NatsLink(settings.nats, name=name, reconnect_wait=reconnect_wait)
            worker = Worker(settings, recognizer_for(settings), nats=link)
            await worker.start()
            started.append(worker)
            await asyncio.wait_for(worker.ready.wait(), READY_SECONDS)
            return worker

        return make

    yield factory
    for worker in started:
        await worker.stop(grace=1.0)


async def submit(
    worker: Worker,
    collector: ResultCollector,
    source: bytes | None,
    **request: Any,
) -> dict[str, Any]:
    """Store ``source`` (unless None: a missing object) and publish its request."""
    payload = request_payload(bucket=worker.storage.bucket, **request)
    if source is not None:
        await worker.storage.put(payload["s3"]["key"], source)
    await collector.publish(worker.subject, payload)
    return payload
