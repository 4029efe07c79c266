"""The ``tabular-parser`` command: refuses bad settings naming the key (never a secret), and
serves requests until SIGTERM, then stops cleanly."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import pytest

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.processes import venv_command
from arm_ka_platform.settings import StorageConfig
from arm_ka_platform.storage import open_storage
from recognition_worker.testing import ResultCollector, request_payload
from tabular_parser import testing as books

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
    nats_server: NatsServer, tmp_path: Path
) -> None:
    prefix = f"cli{os.getpid()}"
    env = _env(
        {
            "NATS_URL": nats_server.url,
            "STORAGE_URL": f"file://{tmp_path}",
            "OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT": f"{prefix}.tabular",
            "OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT": f"{prefix}.img",
            "OPENBAO__NATS__NATS_RESULT_SUBJECT": f"{prefix}.result",
            "LOG_JSON": "true",
        }
    )
    storage = open_storage(
        StorageConfig(
            url=f"file://{tmp_path}",
            bucket="arm-ka",
            s3_endpoint_url=None,
            s3_region="us-east-1",
            access_key_id=None,
            secret_access_key=None,
        )
    )
    collector = ResultCollector()
    await collector.start(nats_server.url, f"{prefix}.result")
    process = await asyncio.create_subprocess_exec(
        venv_command("tabular-parser"),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        request = request_payload()
        await storage.put(request["s3"]["key"], books.xlsx([books.general_osv()]))
        # The service subscribes once it has connected; until then nobody hears the request
        # (the core would publish it again after ACK_TIMEOUT_SECONDS).
        statuses: set[str] = set()
        for _ in range(150):
            if not statuses:
                await collector.publish(f"{prefix}.tabular", request)
            await asyncio.sleep(0.2)
            statuses = {r.status for r in collector.for_job(request["job_id"])}
            if "done" in statuses:
                break
        assert statuses == {"processing", "done"}
    finally:
        process.send_signal(signal.SIGTERM)
        _, raw = await asyncio.wait_for(process.communicate(), 30)
        await collector.close()
    stderr = raw.decode()
    assert process.returncode == 0, stderr[-2000:]
    assert '"event": "worker_stopped"' in stderr
