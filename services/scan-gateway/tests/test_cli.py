"""The ``scan-gateway`` command refuses bad settings naming the key (never a secret) and a
missing tesseract with a clear message; it serves requests once ready and stops on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

import pytest

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.processes import venv_command, watched
from arm_ka_platform.storage import open_storage
from recognition_corpus import generate
from recognition_worker import stop_bound
from recognition_worker.fixtures import worker_settings
from recognition_worker.testing import ResultCollector, request_payload, service_env
from scan_gateway import testing
from scan_gateway.settings import ScanSettings

SEED = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTC4"
JWT = "eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.secret-jwt-body.signature"


def _run(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBAO__")}
    env.update({"OPENBAO__NATS__NATS_SEED": SEED, "OPENBAO__NATS__NATS_JWT": JWT, **extra})
    return subprocess.run(
        [venv_command("scan-gateway")], env=env, capture_output=True, text=True, timeout=30
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("SCAN_MAX_PAGES", "0"),
        ("SCAN_RENDER_DPI", "20"),
        ("OCR_ENGINE", "abbyy"),
        ("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", "files.>"),
    ],
)
def test_invalid_setting_stops_the_service_naming_the_key(key: str, value: str) -> None:
    result = _run({key: value})
    assert result.returncode == 2
    assert key in result.stderr
    for secret in (SEED, JWT):
        assert secret not in result.stderr + result.stdout


def test_missing_tesseract_stops_the_service_with_a_clear_message() -> None:
    result = _run({"TESSERACT_CMD": "/nonexistent/tesseract"})
    assert result.returncode == 2
    assert "tesseract not found" in result.stderr


def test_http_engine_without_a_url_stops_the_service() -> None:
    result = _run({"OCR_ENGINE": "http"})
    assert result.returncode == 2
    assert "OCR_HTTP_URL" in result.stderr


async def test_the_command_serves_requests_and_stops_on_sigterm_without_waiting_its_grace(
    nats_server: NatsServer,
    subjects: dict[str, str],
    storage_settings: dict[str, Any],
    collector: ResultCollector,
) -> None:
    # Nothing in flight at the signal: a stop that waited for this grace would fail the wait.
    env = service_env(nats_server.url, subjects, storage_settings, shutdown_grace_seconds=3600)
    settings = worker_settings(ScanSettings, nats_server.url, subjects, storage_settings)
    storage = open_storage(settings.storage)
    pdf = testing.text_pdf(generate(seed=3, per_family=1, families=["osv-by"])[0], ruled=True)
    assert pdf is not None
    async with watched([venv_command("scan-gateway")], env=env) as process:
        await process.wait_for_event("worker_ready")
        request = request_payload(
            bucket=storage.bucket, pipeline="image", file_type="PDF", original_name="osv.pdf"
        )
        await storage.put(request["s3"]["key"], pdf.data)
        await collector.publish(subjects["nats_image_request_subject"], request)
        received = await collector.wait_for(request["job_id"], timeout=60)
        ack, outcome = received
        assert (ack.status, outcome.status) in {
            ("processing", "done"),
            ("processing", "needs_check"),
        }
        process.send_signal(signal.SIGTERM)
        code = await process.wait(stop_bound(0))
    assert code == 0, process.tail()
    assert process.find("worker_draining") == []
    assert process.find("worker_stopped")
