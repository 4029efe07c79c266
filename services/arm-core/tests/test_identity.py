"""With authentication on, no route but /healthcheck answers without the proxy's login: every
route of the app is walked as an anonymous caller. The login is taken only from the trusted
proxies when those are set; /metrics answers to its own token when one is set."""

from __future__ import annotations

import re
import uuid

import pytest
from starlette.routing import Mount, Route

from arm_core.api import files, health, metrics
from arm_core.app import create_app
from arm_core.settings import CoreSettings
from arm_core.testing import run_core
from arm_core.web import pages, stream

HEADER = "X-Remote-User"


# The routers the app includes; a router added to the app without being listed here fails
# the count below, a route added to one of them is walked by itself.
ROUTERS = (health.router, metrics.router, files.router, pages.router, stream.router)


def _every_route(settings: CoreSettings) -> list[tuple[str, str]]:
    """(method, path) of each route of the app, its path parameters filled with a UUID."""
    app = create_app(settings)
    own = [route for route in app.routes if isinstance(route, Route | Mount)]
    assert len(app.routes) - len(own) == len(ROUTERS), "a router the walk does not know"
    out = []
    for route in [*own, *(r for router in ROUTERS for r in router.routes)]:
        if isinstance(route, Mount):
            out.append(("GET", f"{route.path}/app.css"))
            continue
        assert isinstance(route, Route)
        path = re.sub(r"\{[^}]+\}", str(uuid.uuid4()), route.path)
        out += [(method, path) for method in sorted(route.methods or ()) if method != "HEAD"]
    return out


async def test_no_route_but_the_healthcheck_answers_an_anonymous_caller(
    make_core_settings,
) -> None:
    settings = make_core_settings(nats_enabled=False, auth_user_header=HEADER)
    routes = _every_route(settings)
    assert ("GET", "/api/v1/files") in routes and ("POST", "/api/v1/files") in routes
    async with run_core(settings) as core:
        answers = {
            (method, path): (await core.client.request(method, path)).status_code
            for method, path in routes
        }
        named = await core.client.get("/api/v1/files", headers={HEADER: "ivanova.a"})
    opened = {key: status for key, status in answers.items() if status != 401}
    assert opened == {("GET", "/healthcheck"): 200}
    assert named.status_code == 200


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
