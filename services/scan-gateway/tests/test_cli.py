"""The ``scan-gateway`` command refuses bad settings naming the key (never a secret) and a
missing tesseract with a clear message."""

from __future__ import annotations

import os
import subprocess

import pytest

from arm_ka_devstack.processes import venv_command

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
