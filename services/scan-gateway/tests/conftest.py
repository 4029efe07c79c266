"""scan-gateway against a real nats-server and real storage (a local directory, or the S3
peer where a test asks for it), on subjects of its own."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.s3peer import ACCESS_KEY_ID, SECRET_ACCESS_KEY, S3Peer
from arm_ka_platform.nats import NatsLink
from recognition_worker import Worker
from recognition_worker.testing import ResultCollector, request_payload
from scan_gateway.app import recognizer
from scan_gateway.settings import ScanSettings

GatewayFactory = Callable[..., Awaitable[Worker]]


@pytest.fixture
def subjects() -> dict[str, str]:
    prefix = f"sg{uuid.uuid4().hex[:10]}"
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


@pytest.fixture
async def collector(
    nats_server: NatsServer, subjects: dict[str, str]
) -> AsyncIterator[ResultCollector]:
    results = ResultCollector()
    await results.start(nats_server.url, subjects["nats_result_subject"])
    yield results
    await results.close()


@pytest.fixture
async def gateway(
    subjects: dict[str, str], storage_settings: dict[str, Any]
) -> AsyncIterator[GatewayFactory]:
    """Start scan-gateway on ``nats_url``; stopped at the end of the test."""
    started: list[Worker] = []

    async def make(nats_url: str, *, reconnect_wait: float = 0.5, **overrides: Any) -> Worker:
        openbao = {**storage_settings.get("openbao", {}), "nats": subjects}
        values: dict[str, Any] = {
            "nats_url": nats_url,
            "worker_concurrency": 2,
            "job_timeout_seconds": 30.0,
            "publish_retry_seconds": 0.2,
            **{k: v for k, v in storage_settings.items() if k != "openbao"},
            **overrides,
        }
        settings = ScanSettings(openbao=openbao, **values)
        link = NatsLink(settings.nats, name="scan-gateway", reconnect_wait=reconnect_wait)
        worker = Worker(settings, recognizer(settings), nats=link)
        await worker.start()
        started.append(worker)
        assert await worker.nats.wait_connected(5)
        return worker

    yield make
    for worker in started:
        await worker.stop(grace=1.0)


async def submit(
    worker: Worker,
    collector: ResultCollector,
    source: bytes | None,
    **request: Any,
) -> dict[str, Any]:
    """Store ``source`` (unless None: a missing object) and publish its request."""
    request.setdefault("pipeline", "image")
    request.setdefault("file_type", "PDF")
    request.setdefault("original_name", "scan.pdf")
    payload = request_payload(bucket=worker.storage.bucket, **request)
    if source is not None:
        await worker.storage.put(payload["s3"]["key"], source)
    await collector.publish(worker.subject, payload)
    return payload


@pytest.fixture
def send() -> Callable[..., Awaitable[dict[str, Any]]]:
    return submit
