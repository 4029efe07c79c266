"""scan-gateway against a real nats-server and real storage; the shared fixtures come from
recognition_worker.fixtures."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from recognition_worker import Worker
from recognition_worker.fixtures import MakeFactory, WorkerFactory
from recognition_worker.fixtures import submit as submit_request
from recognition_worker.testing import ResultCollector
from scan_gateway.app import recognizer
from scan_gateway.settings import ScanSettings


@pytest.fixture
def gateway(worker_factory: MakeFactory) -> WorkerFactory:
    return worker_factory(ScanSettings, recognizer, "scan-gateway", job_timeout_seconds=30.0)


async def submit(
    worker: Worker,
    collector: ResultCollector,
    source: bytes | None,
    **request: Any,
) -> dict[str, Any]:
    """A request for an image-pipeline file (a PDF unless the test says otherwise)."""
    request.setdefault("pipeline", "image")
    request.setdefault("file_type", "PDF")
    request.setdefault("original_name", "scan.pdf")
    return await submit_request(worker, collector, source, **request)


@pytest.fixture
def send() -> Callable[..., Awaitable[dict[str, Any]]]:
    return submit
