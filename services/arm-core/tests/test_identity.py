"""The proxy's login is taken only from the trusted proxies when those are set; /metrics
answers to its own token when one is set; without sign-in the core serves only in development
mode, and says so on every page. (Every route as an anonymous caller: test_access.)"""

from __future__ import annotations

import os
import subprocess

import pytest

from arm_core.app import create_app
from arm_core.settings import CoreSettings
from arm_core.testing import run_core
from arm_ka_devstack.processes import venv_command
from arm_ka_platform.settings import SettingsError

HEADER = "X-Remote-User"


@pytest.mark.parametrize(("proxies", "status"), [(["10.0.0.0/8"], 401), (["127.0.0.1"], 200)])
async def test_the_login_header_is_taken_only_from_a_trusted_proxy(
    make_core_settings, proxies: list[str], status: int
) -> None:
    settings = make_core_settings(
        nats_enabled=False, auth_user_header=HEADER, auth_trusted_proxies=proxies
    )
    async with run_core(settings) as core:
        response = await core.client.get("/api/v1/files", headers={HEADER: "ivanova.a"})
    assert response.status_code == status


def test_a_trusted_proxy_that_is_no_address_is_refused_at_start(make_core_settings) -> None:
    with pytest.raises(ValueError, match="does not appear to be an IPv4 or IPv6"):
        make_core_settings(auth_user_header=HEADER, auth_trusted_proxies=["proxy.example"])


async def test_metrics_answer_to_their_own_token(make_core_settings) -> None:
    settings = make_core_settings(
        nats_enabled=False, auth_user_header=HEADER, metrics_token="scrape-secret"
    )
    async with run_core(settings) as core:
        anonymous = await core.client.get("/metrics")
        as_user = await core.client.get("/metrics", headers={HEADER: "ivanova.a"})
        wrong = await core.client.get("/metrics", headers={"Authorization": "Bearer nope"})
        scraper = await core.client.get(
            "/metrics", headers={"Authorization": "Bearer scrape-secret"}
        )
    assert [anonymous.status_code, as_user.status_code, wrong.status_code] == [401, 401, 401]
    assert scraper.status_code == 200
    assert "scrape-secret" not in repr(settings)


@pytest.mark.parametrize(("header", "marked"), [(None, True), ("X-Remote-User", False)])
async def test_every_page_marks_the_development_identity_when_sign_in_is_off(
    make_core_settings, header: str | None, marked: bool
) -> None:
    async with run_core(make_core_settings(nats_enabled=False, auth_user_header=header)) as core:
        pages = [
            await core.client.get(path, headers={"X-Remote-User": "ivanova.a"})
            for path in ("/ui/consolidations", "/ui/files")
        ]
    for page in pages:
        assert page.status_code == 200
        assert ("Режим разработки: вход не настроен" in page.text) is marked


def test_without_sign_in_the_core_serves_only_in_development_on_loopback() -> None:
    with pytest.raises(SettingsError, match="no authentication configured"):
        create_app(CoreSettings())
    with pytest.raises(SettingsError, match="loopback only"):
        create_app(CoreSettings(debug=True, http_host="0.0.0.0"))  # noqa: S104 (refused)
    assert create_app(CoreSettings(debug=True)) is not None
    with pytest.raises(SettingsError, match="AUTH_TRUSTED_PROXIES"):
        create_app(CoreSettings(auth_user_header=HEADER))
    behind_proxy = CoreSettings(
        auth_user_header=HEADER,
        auth_trusted_proxies=["10.0.0.5"],
        http_host="0.0.0.0",  # noqa: S104
    )
    assert create_app(behind_proxy) is not None


def test_the_command_names_what_to_configure_when_it_refuses() -> None:
    env = {k: v for k, v in os.environ.items() if k.upper() not in ("DEBUG", "AUTH_USER_HEADER")}
    result = subprocess.run(
        [venv_command("arm-core")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "OIDC_ISSUER" in result.stderr and "DEBUG=true" in result.stderr
