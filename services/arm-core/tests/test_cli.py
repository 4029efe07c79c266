"""``arm-core`` refuses bad settings before touching anything, and never shows secrets."""

from __future__ import annotations

import os
import subprocess

import pytest

from arm_ka_devstack.processes import venv_command

JWT = "eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.secret-jwt-body.signature"
SEED = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTC4"


def _run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("OPENBAO__")}
    full.update(env)
    return subprocess.run(
        [venv_command("arm-core")], env=full, capture_output=True, text=True, timeout=30
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("OPENBAO__NATS__NATS_RESULT_SUBJECT", "files.>"),
        ("OPENBAO__NATS__NATS_RESULT_SUBJECT", "files.tabular_uploaded"),
        ("OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT", "files.*"),
        ("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", "files..img"),
        ("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", "files img"),
        ("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", ""),
    ],
)
def test_invalid_subject_stops_the_app_naming_the_key(key: str, value: str) -> None:
    result = _run({key: value, "OPENBAO__NATS__NATS_JWT": JWT, "OPENBAO__NATS__NATS_SEED": SEED})
    assert result.returncode == 2
    assert key in result.stderr
    assert JWT not in result.stderr + result.stdout
    assert SEED not in result.stderr + result.stdout


def test_secrets_never_appear_when_another_field_is_invalid() -> None:
    result = _run(
        {
            "OPENBAO__NATS__NATS_JWT": JWT,
            "OPENBAO__NATS__NATS_SEED": SEED,
            "OUTBOX_POLL_SECONDS": "soon",
            "DATABASE_URL": "postgresql://app:db-password-123@127.0.0.1:1/x",
        }
    )
    assert result.returncode == 2
    assert "OUTBOX_POLL_SECONDS" in result.stderr
    output = result.stderr + result.stdout
    for secret in (JWT, SEED, "db-password-123", "soon"):
        assert secret not in output
