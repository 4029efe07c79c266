"""Forwarded headers are never trusted: the address the trusted-proxy check sees is the
socket's, whatever ``X-Forwarded-For`` or ``Forwarded`` say and whatever uvicorn's own
``FORWARDED_ALLOW_IPS`` is set to; header mode refuses to start with no proxy named, outside
development. The real ``arm-core`` command, as deployed, against real PostgreSQL and storage."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import AsyncIterator

import httpx
import pytest

from arm_core.auth.identity import Unauthenticated, proxy_principal
from arm_core.settings import CoreSettings
from arm_core.testing import wait_until
from arm_ka_devstack.processes import READY_SECONDS, free_port, venv_command, watched

pytestmark = pytest.mark.timeout(4 * READY_SECONDS)

PROXY = "10.200.0.1"
ADMIN = {"X-Remote-User": "mallory", "X-Remote-Roles": "admin"}
# What a process on the core's host (or, with FORWARDED_ALLOW_IPS=*, anyone) sends to pass
# for the proxy.
FORGED = [
    {"X-Forwarded-For": PROXY},
    {"X-Forwarded-For": f"{PROXY}, 127.0.0.1"},
    {"Forwarded": f"for={PROXY}"},
    {"X-Real-IP": PROXY},
]


def _env(database_url: str, storage_url: str, port: int, proxies: list[str]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENBAO__", "AUTH_", "OIDC_")) and k not in ("DEBUG",)
    }
    env.update(
        DATABASE_URL=database_url,
        STORAGE_URL=storage_url,
        NATS_ENABLED="false",
        HTTP_PORT=str(port),
        LOG_JSON="true",
        AUTH_USER_HEADER="X-Remote-User",
        AUTH_ROLES_HEADER="X-Remote-Roles",
        AUTH_TRUSTED_PROXIES=json.dumps(proxies),
        # As container guides suggest: uvicorn would take forwarded headers from anyone.
        FORWARDED_ALLOW_IPS="*",
    )
    return env


@contextlib.asynccontextmanager
async def _core(database_url: str, storage_url: str, proxies: list[str]) -> AsyncIterator[str]:
    port = free_port()
    env = _env(database_url, storage_url, port, proxies)
    url = f"http://127.0.0.1:{port}"
    async with watched([venv_command("arm-core")], env=env) as process:

        async def up() -> bool:
            assert process.returncode is None, f"arm-core exited\n{process.tail()}"
            try:
                async with httpx.AsyncClient() as client:
                    return (await client.get(f"{url}/healthcheck", timeout=5)).status_code == 200
            except httpx.TransportError:
                return False

        await wait_until(up, timeout=READY_SECONDS)
        yield url


async def test_a_forwarded_header_never_makes_a_local_caller_the_proxy(
    database_url: str, storage_url: str
) -> None:
    async with _core(database_url, storage_url, [PROXY]) as url, httpx.AsyncClient() as client:
        plain = await client.get(f"{url}/api/v1/audit", headers=ADMIN)
        forged = [
            (await client.get(f"{url}/api/v1/audit", headers={**ADMIN, **extra})).status_code
            for extra in FORGED
        ]
    assert plain.status_code == 401
    assert forged == [401] * len(FORGED)


async def test_the_named_proxy_is_trusted_by_its_socket_address(
    database_url: str, storage_url: str
) -> None:
    async with _core(database_url, storage_url, ["127.0.0.1"]) as url, httpx.AsyncClient() as c:
        admin = await c.get(f"{url}/api/v1/audit", headers=ADMIN)
        # Saying it came from elsewhere changes nothing either way.
        forwarded = await c.get(f"{url}/api/v1/audit", headers={**ADMIN, **FORGED[0]})
    assert (admin.status_code, forwarded.status_code) == (200, 200)


def test_header_mode_without_a_named_proxy_refuses_to_start(
    database_url: str, storage_url: str
) -> None:
    env = _env(database_url, storage_url, free_port(), [])
    result = subprocess.run(
        [venv_command("arm-core")], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "AUTH_TRUSTED_PROXIES" in result.stderr


@pytest.mark.parametrize(
    ("peer", "taken"), [("127.0.0.1", True), ("::1", True), ("10.0.0.7", False), (None, False)]
)
def test_in_development_with_no_proxy_named_only_loopback_passes_a_login(
    peer: str | None, taken: bool
) -> None:
    settings = CoreSettings(debug=True, auth_user_header="X-Remote-User")
    assert settings.refusal() is None
    try:
        who = proxy_principal(settings, {"x-remote-user": "ivanova.a"}, peer)
    except Unauthenticated:
        who = None
    assert (who is not None) is taken
