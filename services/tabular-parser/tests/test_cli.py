"""The ``tabular-parser`` command: refuses bad settings naming the key (never a secret), and
serves requests until SIGTERM, then stops cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

import pytest

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.processes import venv_command, watched
from arm_ka_platform.storage import open_storage
from recognition_worker import stop_bound
from recognition_worker.fixtures import worker_settings
from recognition_worker.testing import ResultCollector, request_payload, service_env
from tabular_parser import testing as books
from tabular_parser.settings import TabularSettings

SEED = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTC4"
JWT = "eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.secret-jwt-body.signature"


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBAO__")}
    env.update(extra)
    return env


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("CONTRACT_VERSION", "3.0"),
        ("WORKER_CONCURRENCY", "0"),
        ("JOB_TIMEOUT_SECONDS", "soon"),
        ("OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT", "files.>"),
        ("WORKBOOK_MAX_ROWS", "-1"),
    ],
)
def test_invalid_setting_stops_the_service_naming_the_key(key: str, value: str) -> None:
    env = _env({key: value, "OPENBAO__NATS__NATS_SEED": SEED, "OPENBAO__NATS__NATS_JWT": JWT})
    result = subprocess.run(
        [venv_command("tabular-parser")], env=env, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2
    assert key in result.stderr
    for secret in (SEED, JWT):
        assert secret not in result.stderr + result.stdout


async def test_the_command_serves_requests_and_stops_on_sigterm(
    nats_server: NatsServer,
    subjects: dict[str, str],
    storage_settings: dict[str, Any],
    collector: ResultCollector,
) -> None:
    env = service_env(nats_server.url, subjects, storage_settings)
    settings = worker_settings(TabularSettings, nats_server.url, subjects, storage_settings)
    storage = open_storage(settings.storage)
    async with watched([venv_command("tabular-parser")], env=env) as process:
        # Until it has subscribed nobody hears a request (the core would publish it again).
        await process.wait_for_event("worker_ready")
        request = request_payload(bucket=storage.bucket)
        await storage.put(request["s3"]["key"], books.xlsx([books.general_osv()]))
        await collector.publish(subjects["nats_tabular_request_subject"], request)
        received = await collector.wait_for(request["job_id"], timeout=30)
        assert [r.status for r in received] == ["processing", "done"]
        process.send_signal(signal.SIGTERM)
        code = await process.wait(stop_bound(settings.shutdown_grace_seconds))
    assert code == 0, process.tail()
    assert process.find("worker_stopped")
