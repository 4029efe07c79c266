"""A worker with the scripted recognizer against a real nats-server and real storage (a local
directory and the S3 peer), on subjects of its own so tests never hear each other."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.s3peer import ACCESS_KEY_ID, SECRET_ACCESS_KEY, S3Peer
from arm_ka_platform.nats import NatsLink
from recognition_worker import Worker, WorkerSettings
from recognition_worker.testing import ResultCollector, scripted_recognizer

WorkerFactory = Callable[..., Awaitable[Worker]]


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
    """A local directory, or the S3 peer for tests parametrized ``indirect`` with "s3"."""
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


def build_settings(
    nats_url: str, subjects: dict[str, str], storage: dict[str, Any], **overrides: Any
) -> WorkerSettings:
    openbao = {**storage.get("openbao", {}), "nats": subjects}
    values: dict[str, Any] = {
        "nats_url": nats_url,
        "worker_concurrency": 2,
        "job_timeout_seconds": 10.0,
        "publish_retry_seconds": 0.2,
        "shutdown_grace_seconds": 2.0,
        **{k: v for k, v in storage.items() if k != "openbao"},
        **overrides,
    }
    return WorkerSettings(openbao=openbao, **values)


@pytest.fixture
async def collector(
    nats_server: NatsServer, subjects: dict[str, str]
) -> AsyncIterator[ResultCollector]:
    results = ResultCollector()
    await results.start(nats_server.url, subjects["nats_result_subject"])
    yield results
    await results.close()


@pytest.fixture
async def make_worker(
    subjects: dict[str, str], storage_settings: dict[str, Any]
) -> AsyncIterator[WorkerFactory]:
    """Start a worker on ``nats_url`` (the session server unless given); stopped at the end."""
    started: list[Worker] = []

    async def make(nats_url: str, *, reconnect_wait: float = 0.5, **overrides: Any) -> Worker:
        settings = build_settings(nats_url, subjects, storage_settings, **overrides)
        link = NatsLink(settings.nats, name="tabular-parser", reconnect_wait=reconnect_wait)
        worker = Worker(settings, scripted_recognizer(), nats=link)
        await worker.start()
        started.append(worker)
        assert await worker.nats.wait_connected(5)
        return worker

    yield make
    for worker in started:
        await worker.stop(grace=1.0)
