"""Signing in to the pages through an issuer made in the test (authorization code with PKCE),
the server-side session it opens, CSRF on that session's state-changing requests, and
signing out. The browser's side of it: tests/ui."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from arm_core.testing import run_core, wait_until
from arm_core.testing_issuer import CLIENT_ID, LocalIssuer, run_issuer

ANALYST = {"preferred_username": "ivanova.a", "roles": ["analyst"], "groups": ["team-a"]}


@pytest.fixture
async def issuer():
    async with run_issuer() as running:
        running.sign_in_as = dict(ANALYST)
        yield running


@pytest.fixture
def settings(make_core_settings, issuer: LocalIssuer):
    return make_core_settings(nats_enabled=False, **issuer.core_settings())


async def _sign_in(client: httpx.AsyncClient, next_path: str = "/ui/files") -> httpx.Response:
    """The browser's round trip: the page, the core's redirect to the issuer, the issuer's
    back to the callback, and the callback's to the page asked for."""
    page = await client.get(next_path)
    assert page.status_code == 303
    login = await client.get(page.headers["location"])
    assert login.status_code == 303
    async with httpx.AsyncClient() as browser:
        at_issuer = await browser.get(login.headers["location"])
    assert at_issuer.status_code == 302, at_issuer.text
    return await client.get(at_issuer.headers["location"])


def _csrf(page: str) -> str:
    marker = 'name="csrf-token" content="'
    return page.split(marker, 1)[1].split('"', 1)[0]


async def test_a_page_sends_the_analyst_to_sign_in_and_back(settings, issuer) -> None:
    async with run_core(settings) as core:
        client = core.client
        page = await client.get("/ui/files?status=FAILED")
        login = await client.get(page.headers["location"])
        query = parse_qs(urlsplit(login.headers["location"]).query)
        back = await _sign_in(client, "/ui/files?status=FAILED")
        cookie = back.headers["set-cookie"]
        opened = await client.get(back.headers["location"])
    assert page.headers["location"] == "/auth/login?next=%2Fui%2Ffiles%3Fstatus%3DFAILED"
    assert login.headers["location"].startswith(f"{issuer.url}/authorize?")
    assert query["code_challenge_method"] == ["S256"] and query["client_id"] == [CLIENT_ID]
    assert back.status_code == 303 and back.headers["location"] == "/ui/files?status=FAILED"
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "arm_session=" in cookie
    assert opened.status_code == 200
    assert "ivanova.a" in opened.text and "Выйти" in opened.text


async def test_the_session_is_kept_server_side_and_ends_at_sign_out(settings, issuer) -> None:
    async with run_core(settings) as core:
        client = core.client
        await _sign_in(client)
        token = client.cookies["arm_session"]
        async with core.runtime.pool.connection() as conn:
            stored = await (await conn.execute("SELECT token_hash FROM user_session")).fetchall()
        page = await client.get("/ui/consolidations")
        out = await client.post("/auth/logout", data={"csrf_token": _csrf(page.text)})
        client.cookies.set("arm_session", token)  # a copy kept from before
        after = await client.get("/api/v1/files")
        async with core.runtime.pool.connection() as conn:
            audit = await (
                await conn.execute("SELECT actor, action FROM audit_log ORDER BY id")
            ).fetchall()
    assert [row["token_hash"] for row in stored] != [token] and len(stored) == 1
    assert out.status_code == 303 and out.headers["location"].startswith(f"{issuer.url}/logout")
    assert after.status_code == 401
    assert [(r["actor"], r["action"]) for r in audit] == [
        ("ivanova.a", "auth.sign_in"),
        ("ivanova.a", "auth.sign_out"),
        # The kept copy of the token, refused.
        ("anonymous", "access.refused"),
    ]


async def test_a_callback_is_taken_once_and_only_with_its_state(settings, issuer) -> None:
    async with run_core(settings) as core:
        client = core.client
        login = await client.get("/auth/login")
        async with httpx.AsyncClient() as browser:
            at_issuer = await browser.get(login.headers["location"])
        callback = at_issuer.headers["location"]
        forged = await client.get(callback.replace("state=", "state=x"))
        first = await client.get(callback)
        replayed = await client.get(callback)
        denied = await client.get("/auth/callback?error=access_denied&state=x")
    assert forged.status_code == 400 and forged.json()["error"]["code"] == "LOGIN_EXPIRED"
    assert first.status_code == 303
    assert replayed.status_code == 400
    assert denied.status_code == 401


async def test_a_sign_in_completes_only_in_the_browser_that_started_it(
    settings, issuer, make_core_settings
) -> None:
    """Login CSRF: the attacker starts a sign-in as themselves and hands the callback link to
    a victim; in the victim's browser it signs nobody in, is audited, and the login stays the
    starting browser's."""
    async with run_core(settings) as core:
        attacker = core.client
        login = await attacker.get("/auth/login")
        async with httpx.AsyncClient() as at_issuer_browser:
            at_issuer = await at_issuer_browser.get(login.headers["location"])
        callback = at_issuer.headers["location"]
        async with httpx.AsyncClient(base_url=core.url) as victim:
            lured = await victim.get(callback)
            victim_session = victim.cookies.get("arm_session")
        own = await attacker.get(callback)

        async def noted() -> list[Any]:
            # Written once the answer is out (``api.errors``).
            async with core.runtime.pool.connection() as conn:
                return await (
                    await conn.execute(
                        "SELECT actor, outcome, details FROM audit_log"
                        " WHERE action = 'access.refused' AND outcome = 'LOGIN_OTHER_BROWSER'"
                    )
                ).fetchall()

        refused = await wait_until(noted)
    binding = login.headers["set-cookie"]
    assert "arm_login=" in binding and "HttpOnly" in binding and "SameSite=lax" in binding
    assert "Path=/auth/callback" in binding
    assert (lured.status_code, lured.json()["error"]["code"]) == (403, "LOGIN_OTHER_BROWSER")
    assert victim_session is None
    assert own.status_code == 303 and "arm_session=" in own.headers["set-cookie"]
    assert [(r["actor"], r["details"]["path"]) for r in refused] == [
        ("anonymous", "/auth/callback")
    ]


@pytest.mark.parametrize("next_path", ["//evil.example/x", "https://evil.example/", "/\\evil"])
async def test_sign_in_never_sends_the_browser_elsewhere(settings, issuer, next_path) -> None:
    async with run_core(settings) as core:
        client = core.client
        login = await client.get("/auth/login", params={"next": next_path})
        async with httpx.AsyncClient() as browser:
            at_issuer = await browser.get(login.headers["location"])
        back = await client.get(at_issuer.headers["location"])
    assert back.headers["location"] == "/ui/consolidations"


async def _session_client(core: Any) -> tuple[httpx.AsyncClient, str]:
    await _sign_in(core.client)
    page = await core.client.get("/ui/consolidations")
    return core.client, _csrf(page.text)


async def test_a_session_request_that_changes_something_needs_its_csrf_token(
    settings, issuer
) -> None:
    async with run_core(settings) as core:
        client, token = await _session_client(core)
        without = await client.post("/ui/consolidations", data={"name": "Без токена"})
        wrong = await client.post(
            "/ui/consolidations", data={"name": "Чужой", "csrf_token": "forged"}
        )
        in_form = await client.post(
            "/ui/consolidations", data={"name": "Из формы", "csrf_token": token}
        )
        in_header = await client.post(
            "/api/v1/consolidations", json={"name": "Из скрипта"}, headers={"X-CSRF-Token": token}
        )
        json_without = await client.post("/api/v1/consolidations", json={"name": "Без"})
        listed = await client.get("/api/v1/consolidations")
    assert [without.status_code, wrong.status_code, json_without.status_code] == [403] * 3
    assert without.json()["error"]["code"] == "CSRF_REFUSED"
    assert in_form.status_code == 303 and in_header.status_code == 201
    assert sorted(item["name"] for item in listed.json()["items"]) == ["Из скрипта", "Из формы"]


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "https://evil.example"}, {"Origin": "null"}, {"Referer": "https://evil.example/"}],
)
async def test_a_request_from_another_site_is_refused_even_with_the_token(
    settings, issuer, headers
) -> None:
    async with run_core(settings) as core:
        client, token = await _session_client(core)
        response = await client.post(
            "/ui/consolidations",
            data={"name": "Чужой сайт", "csrf_token": token},
            headers=headers,
        )
        same = await client.post(
            "/ui/consolidations",
            data={"name": "Свой сайт", "csrf_token": token},
            headers={"Origin": core.url},
        )
    assert response.status_code == 403 and response.json()["error"]["code"] == "CSRF_REFUSED"
    assert same.status_code == 303


async def test_a_bearer_request_needs_no_csrf_token(settings, issuer) -> None:
    token = issuer.token({"roles": ["analyst"], "groups": ["team-a"]})
    async with run_core(settings) as core:
        response = await core.client.post(
            "/api/v1/consolidations",
            json={"name": "Из интеграции"},
            headers={"Authorization": f"Bearer {token}", "Origin": "https://evil.example"},
        )
    assert response.status_code == 201


async def test_behind_a_proxy_a_post_from_another_site_is_refused(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False, auth_user_header="X-Remote-User")
    user = {"X-Remote-User": "ivanova.a"}
    async with run_core(settings) as core:
        foreign = await core.client.post(
            "/ui/files/retry",
            data={"file_ids": "x"},
            headers={**user, "Origin": "https://evil.example"},
        )
        own = await core.client.post(
            "/ui/files/retry", data={"file_ids": "x"}, headers={**user, "Origin": core.url}
        )
    assert foreign.status_code == 403
    assert own.status_code == 200


async def test_a_code_the_issuer_refuses_signs_no_one_in(settings, issuer) -> None:
    async with run_core(settings) as core:
        client = core.client
        login = await client.get("/auth/login")
        async with httpx.AsyncClient() as browser:
            at_issuer = await browser.get(login.headers["location"])
        callback = at_issuer.headers["location"].replace("code=", "code=forged")
        answer = await client.get(callback)
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "UNAUTHENTICATED"
    assert "arm_session" not in answer.headers.get("set-cookie", "")
