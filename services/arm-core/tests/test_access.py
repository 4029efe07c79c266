"""Roles and team access on every route of the app, walked from the route table: as an
anonymous caller, as the owning team's analyst, as another team's analyst, as a supervisor,
as an admin, as a signed-in user of the owning team with no role, and as a supervisor who is
also another team's analyst (a role union). A route added without a rule here fails the
suite.

The walk is made twice: with the users passed by an authenticating proxy's headers, and with
bearer tokens signed by an OpenID Connect issuer made in the test (its checks of the tokens
themselves: test_oidc_tokens).
"""

from __future__ import annotations

import contextlib
import re
import uuid
from typing import Any

import httpx
import pytest
from starlette.routing import Mount, Route

from arm_core.app import create_app, routers
from arm_core.settings import CoreSettings
from arm_core.testing import mapped_file, minimal_workbook, run_core, upload, wait_until
from arm_core.testing_issuer import run_issuer

USERS = {
    "anonymous": {},
    "owner": {
        "X-Remote-User": "ivanova.a",
        "X-Remote-Roles": "analyst",
        "X-Remote-Groups": "team-a",
    },
    "stranger": {
        "X-Remote-User": "petrov.p",
        "X-Remote-Roles": "analyst",
        "X-Remote-Groups": "team-b",
    },
    "supervisor": {"X-Remote-User": "sidorova.s", "X-Remote-Roles": "supervisor"},
    "admin": {"X-Remote-User": "root.r", "X-Remote-Roles": "admin"},
    # Of the owning team, but no role of ours: sees and changes nothing.
    "roleless": {"X-Remote-User": "guest.g", "X-Remote-Groups": "team-a"},
    # Sees everything as a supervisor; changes only what team-b's analyst may.
    "union": {
        "X-Remote-User": "kozlov.k",
        "X-Remote-Roles": "supervisor,analyst",
        "X-Remote-Groups": "team-b",
    },
}
ORDER = ("anonymous", "owner", "stranger", "supervisor", "admin", "roleless", "union")
# The same users as an issuer's tokens say them.
CLAIMS = {
    "owner": {"preferred_username": "ivanova.a", "roles": ["analyst"], "groups": ["team-a"]},
    "stranger": {"preferred_username": "petrov.p", "roles": ["analyst"], "groups": ["team-b"]},
    "supervisor": {"preferred_username": "sidorova.s", "roles": ["supervisor"]},
    "admin": {"preferred_username": "root.r", "roles": ["admin"]},
    "roleless": {"preferred_username": "guest.g", "roles": [], "groups": ["team-a"]},
    "union": {
        "preferred_username": "kozlov.k",
        "roles": ["supervisor", "analyst"],
        "groups": ["team-b"],
    },
}


def _rule(
    owner: int,
    stranger: int,
    supervisor: int,
    admin: int,
    *,
    union: int | None = None,
    roleless: int = 403,
) -> dict[str, int]:
    """Each user's answer; the role union reads as the supervisor does unless told."""
    return {
        "anonymous": 401,
        "owner": owner,
        "stranger": stranger,
        "supervisor": supervisor,
        "admin": admin,
        "roleless": roleless,
        "union": supervisor if union is None else union,
    }


EVERYONE = _rule(200, 200, 200, 200)
THE_TEAM = _rule(200, 404, 200, 200)
# (method, route path): the answer each user gets, on the owner's consolidation and file.
RULES: dict[tuple[str, str], dict[str, int]] = {
    ("GET", "/healthcheck"): {**EVERYONE, "anonymous": 200, "roleless": 200},
    ("GET", "/metrics"): EVERYONE,
    ("GET", "/openapi.json"): EVERYONE,
    ("GET", "/docs"): EVERYONE,
    ("GET", "/docs/oauth2-redirect"): EVERYONE,
    ("GET", "/redoc"): EVERYONE,
    ("GET", "/static"): {**EVERYONE, "roleless": 200},
    # The union may not add files to team-a's consolidation.
    ("POST", "/api/v1/files"): _rule(201, 404, 403, 201),
    ("GET", "/api/v1/files"): EVERYONE,
    ("GET", "/api/v1/files/{file_id}"): THE_TEAM,
    ("GET", "/api/v1/files/{file_id}/documents"): THE_TEAM,
    ("GET", "/api/v1/files/{file_id}/content"): THE_TEAM,
    ("POST", "/api/v1/files/{file_id}/retry"): _rule(409, 404, 403, 409),
    ("POST", "/api/v1/files/retry"): _rule(200, 200, 403, 200, union=200),
    ("GET", "/api/v1/jobs/{job_id}"): THE_TEAM,
    ("POST", "/api/v1/consolidations"): _rule(201, 201, 403, 201, union=201),
    ("GET", "/api/v1/consolidations"): EVERYONE,
    ("GET", "/api/v1/consolidations/{consolidation_id}"): THE_TEAM,
    ("GET", "/"): _rule(303, 303, 303, 303),
    ("GET", "/ui"): _rule(303, 303, 303, 303),
    ("GET", "/ui/consolidations"): EVERYONE,
    ("POST", "/ui/consolidations"): _rule(303, 303, 403, 303, union=303),
    ("GET", "/ui/consolidations/{consolidation_id}/row"): THE_TEAM,
    ("GET", "/ui/consolidations/{consolidation_id}"): THE_TEAM,
    ("GET", "/ui/files"): EVERYONE,
    ("GET", "/ui/files/counts"): THE_TEAM,
    ("GET", "/ui/files/rows"): THE_TEAM,
    ("POST", "/ui/files/retry"): _rule(200, 200, 403, 200, union=200),
    ("GET", "/ui/files/{file_id}/row"): THE_TEAM,
    ("GET", "/ui/files/{file_id}"): THE_TEAM,
    ("GET", "/ui/files/{file_id}/panel"): THE_TEAM,
    ("POST", "/ui/files/{file_id}/retry"): _rule(409, 404, 403, 409),
    ("GET", "/ui/files/{file_id}/documents"): THE_TEAM,
    ("GET", "/ui/events"): THE_TEAM,
    ("PATCH", "/api/v1/consolidations/{consolidation_id}"): _rule(403, 403, 403, 200),
    ("GET", "/api/v1/audit"): _rule(403, 403, 403, 200),
    # The walk's file has no documents yet: those who may see it hear there is nothing.
    ("GET", "/api/v1/files/{file_id}/export"): _rule(409, 404, 409, 409),
    ("GET", "/api/v1/consolidations/{consolidation_id}/export"): _rule(409, 404, 409, 409),
    ("GET", "/api/v1/consolidations/{consolidation_id}/reconciliation"): THE_TEAM,
    ("GET", "/ui/consolidations/{consolidation_id}/reconciliation"): THE_TEAM,
    # The walk's file has no documents: the id is no document's.
    # (On a real document of team-a the union is refused: test_a_role_union_never_widens...)
    ("POST", "/api/v1/documents/{document_id}/corrections"): _rule(404, 404, 403, 404, union=404),
    ("POST", "/api/v1/documents/{document_id}/confirm"): _rule(404, 404, 403, 404, union=404),
    ("POST", "/ui/documents/{document_id}/corrections"): _rule(404, 404, 403, 404, union=404),
    # No recognition ran in the walk: nothing of the source was kept (SOURCE_NOT_KEPT).
    ("GET", "/api/v1/files/{file_id}/source"): _rule(404, 404, 404, 404),
    ("GET", "/ui/files/{file_id}/source"): _rule(404, 404, 404, 404),
    ("GET", "/api/v1/files/{file_id}/source/pages"): _rule(404, 404, 404, 404),
    ("GET", "/api/v1/files/{file_id}/source/pages/{page}"): _rule(404, 404, 404, 404),
    ("POST", "/ui/documents/{document_id}/confirm"): _rule(404, 404, 403, 404, union=404),
    ("DELETE", "/api/v1/documents/{document_id}/corrections/{correction_id}"): _rule(
        404, 404, 403, 404, union=404
    ),
    ("POST", "/ui/documents/{document_id}/corrections/{correction_id}/undo"): _rule(
        404, 404, 403, 404, union=404
    ),
    ("GET", "/ui/documents/{document_id}/rows/{position}"): _rule(404, 404, 403, 404, union=404),
    ("PUT", "/api/v1/files/{file_id}/reconciliation-exclusion"): _rule(200, 404, 403, 200),
    ("DELETE", "/api/v1/files/{file_id}/reconciliation-exclusion"): _rule(200, 404, 403, 200),
    ("POST", "/ui/consolidations/{consolidation_id}/reconciliation/exclusion"): _rule(
        200, 404, 403, 200
    ),
    ("GET", "/ui/audit"): _rule(403, 403, 403, 200),
    # Sign-in through OpenID Connect, not configured behind a proxy (see OIDC_RULES).
    ("GET", "/auth/login"): _rule(404, 404, 404, 404),
    ("GET", "/auth/callback"): _rule(404, 404, 404, 404),
    ("POST", "/auth/logout"): _rule(404, 404, 404, 404, roleless=404),
}


# With OpenID Connect on, the way in is open, an analyst who opens a page without a session is
# sent to sign in (303) rather than refused, and signing out needs no session of ours.
OIDC_RULES = {
    ("GET", "/auth/login"): {**_rule(303, 303, 303, 303, roleless=303), "anonymous": 303},
    ("GET", "/auth/callback"): {**_rule(401, 401, 401, 401, roleless=401), "anonymous": 401},
    ("POST", "/auth/logout"): _rule(303, 303, 303, 303, roleless=303),
}
PAGE = re.compile(r"^/$|^/ui$|^/ui/(?!events)")


def _expected(mode: str, method: str, path: str) -> dict[str, int]:
    rule = RULES[(method, path)]
    if mode == "proxy":
        return rule
    if (method, path) in OIDC_RULES:
        return OIDC_RULES[(method, path)]
    if method == "GET" and PAGE.match(path):
        return {**rule, "anonymous": 303}
    return rule


def _settings(make_core_settings: Any, nats_enabled: bool = False) -> CoreSettings:
    settings: CoreSettings = make_core_settings(
        nats_enabled=nats_enabled,
        debug=False,
        auth_user_header="X-Remote-User",
        auth_roles_header="X-Remote-Roles",
        auth_teams_header="X-Remote-Groups",
    )
    return settings


def _route_table(settings: CoreSettings) -> list[tuple[str, str]]:
    """(method, path) of every route of the app: its own, and each of its routers'."""
    app = create_app(settings)
    own = [route for route in app.routes if isinstance(route, Route | Mount)]
    assert len(app.routes) - len(own) == len(routers()), "a router the walk does not know"
    out: list[tuple[str, str]] = []
    for route in [*own, *(r for router in routers() for r in router.routes)]:
        if isinstance(route, Mount):
            out.append(("GET", route.path))
        elif isinstance(route, Route):
            methods = sorted(route.methods or ())
            out += [(method, route.path) for method in methods if method != "HEAD"]
    return out


def test_every_route_has_an_access_rule(make_core_settings) -> None:
    routes = _route_table(_settings(make_core_settings))
    assert len(routes) == len(set(routes))
    assert set(routes) == set(RULES), "a route without an access rule, or a rule without a route"


async def _request(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    ids: dict[str, str],
    user: str,
    headers: dict[str, str],
) -> int:
    url = re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], path)
    consolidation_id = ids["consolidation_id"]
    if path == "/static":
        url = "/static/app.css"
    if (method, path) == ("POST", "/api/v1/files"):
        answer = await upload(
            client,
            "ОСВ.xlsx",
            minimal_workbook(),
            consolidation_id=consolidation_id,
            headers=headers,
        )
        return answer.status_code
    kwargs: dict[str, Any] = {"headers": headers}
    if (method, path) == ("POST", "/api/v1/files/retry"):
        kwargs["json"] = {"file_ids": [ids["file_id"]]}
    elif (method, path) == ("POST", "/api/v1/consolidations"):
        kwargs["json"] = {
            "name": "Новая",
            **({"team": "team-x"} if "admin" in str(headers) else {}),
        }
    elif path == "/ui/documents/{document_id}/corrections":
        kwargs["data"] = {"spot": "header:unit", "value": "руб.", "reason": "r"}
    elif path.endswith("/corrections"):
        kwargs["json"] = {"target": "header", "field": "unit", "value": "руб.", "reason": "r"}
    elif path.endswith("/confirm"):
        kwargs["json"] = {}
    elif method == "PATCH":
        kwargs["json"] = {"team": "team-a"}
    elif (method, path) == ("POST", "/ui/consolidations"):
        kwargs["data"] = {"name": "Новая"}
    elif (method, path) == ("POST", "/ui/files/retry"):
        kwargs["data"] = {"file_ids": ids["file_id"]}
    elif path == "/api/v1/files/{file_id}/reconciliation-exclusion" and method == "PUT":
        kwargs["json"] = {"reason": "выписка другой организации"}
    elif path.endswith("/reconciliation/exclusion"):
        kwargs["data"] = {"file_id": ids["file_id"], "reason": "r", "action": "exclude"}
    if path.endswith("/source"):
        kwargs["params"] = {"sheet": "TDSheet", "row": 10}
    if path.endswith("/rows/{position}"):
        kwargs["params"] = {"target": "transaction"}
    if path in ("/ui/files/counts", "/ui/files/rows"):
        kwargs["params"] = {"consolidation_id": consolidation_id}
    if path == "/ui/events":
        # A stream: its status is all that is read.
        async with client.stream(
            method, url, params={"file_id": ids["file_id"]}, **kwargs
        ) as answer:
            return answer.status_code
    return (await client.request(method, url, **kwargs)).status_code


@pytest.mark.parametrize("mode", ["proxy", "oidc"])
async def test_every_route_answers_each_role_as_its_rule_says(make_core_settings, mode) -> None:
    async with contextlib.AsyncExitStack() as stack:
        if mode == "proxy":
            settings, users = _settings(make_core_settings), USERS
        else:
            issuer = await stack.enter_async_context(run_issuer())
            settings = make_core_settings(nats_enabled=False, **issuer.core_settings())
            users = {
                "anonymous": {},
                **{
                    user: {"Authorization": f"Bearer {issuer.token(claims)}"}
                    for user, claims in CLAIMS.items()
                },
            }
        core = await stack.enter_async_context(run_core(settings))
        client = core.client
        made = await client.post(
            "/api/v1/consolidations", json={"name": "ООО Ромашка"}, headers=users["owner"]
        )
        assert made.status_code == 201 and made.json()["team"] == "team-a"
        consolidation_id = made.json()["id"]
        uploaded = await upload(
            client,
            "ОСВ.xlsx",
            minimal_workbook(),
            consolidation_id=consolidation_id,
            headers=users["owner"],
        )
        assert uploaded.status_code == 201
        ids = {
            "consolidation_id": consolidation_id,
            "file_id": uploaded.json()["file_id"],
            "job_id": uploaded.json()["job_id"],
            "document_id": str(uuid.uuid4()),
            "page": "1",
            "correction_id": "1",
            "position": "1",
        }
        answers = {
            key: {user: await _request(client, *key, ids, user, users[user]) for user in ORDER}
            for key in RULES
        }
    wrong = {key: got for key, got in answers.items() if got != _expected(mode, *key)}
    assert wrong == {}


async def test_lists_and_streams_show_another_team_nothing_of_it(make_core_settings) -> None:
    settings = _settings(make_core_settings)
    async with run_core(settings) as core:
        client = core.client
        made = await client.post(
            "/api/v1/consolidations", json={"name": "ООО Ромашка"}, headers=USERS["owner"]
        )
        consolidation_id = made.json()["id"]
        uploaded = await upload(
            client,
            "Выписка-Ромашка.xlsx",
            minimal_workbook(),
            consolidation_id=consolidation_id,
            headers=USERS["owner"],
        )
        file_id = uploaded.json()["file_id"]
        seen: dict[str, dict[str, str]] = {}
        for user in ("owner", "stranger", "supervisor"):
            headers = USERS[user]
            seen[user] = {
                path: (await client.get(path, headers=headers)).text
                for path in (
                    "/api/v1/files",
                    "/api/v1/consolidations",
                    "/ui/consolidations",
                    "/ui/files",
                    "/ui/files/rows",
                )
            }
    for user, pages in seen.items():
        for path, text in pages.items():
            shown = file_id in text or consolidation_id in text
            assert shown is (user != "stranger"), (user, path)


async def test_a_stream_tells_only_of_files_the_user_may_see(make_core_settings) -> None:
    # The changes reach the stream through the exchange's listener.
    settings = _settings(make_core_settings, nats_enabled=True)
    async with run_core(settings) as core:
        client = core.client
        made = await client.post(
            "/api/v1/consolidations", json={"name": "ООО Ромашка"}, headers=USERS["owner"]
        )
        consolidation_id = made.json()["id"]
        events = core.runtime.file_events
        cursor = events.cursor()
        uploaded = await upload(
            client,
            "ОСВ.xlsx",
            minimal_workbook(),
            consolidation_id=consolidation_id,
            headers=USERS["owner"],
        )
        file_id = uploaded.json()["file_id"]

        async def heard(user: str) -> str:
            async with client.stream(
                "GET", "/ui/events", params={"since": cursor}, headers=USERS[user]
            ) as stream:
                async for chunk in stream.aiter_text():
                    return chunk
            return ""

        await wait_until(lambda: _has(events, cursor, file_id))
        owner, stranger = await heard("owner"), await heard("stranger")
    assert f"file-{file_id}" in owner
    assert file_id not in stranger


async def _has(events: Any, cursor: str, file_id: str) -> bool:
    return any(str(item.file_id) == file_id for item in (events.since(cursor) or []))


def test_a_principal_without_a_team_creates_nothing(make_core_settings) -> None:
    from arm_core.api.deps import team_for
    from arm_core.api.errors import ApiError
    from arm_core.auth.principal import Principal

    lone = Principal.of("x", ["analyst"], [])
    many = Principal.of("y", ["analyst"], ["a", "b"])
    cases = [(lone, None, "TEAM_REQUIRED"), (many, None, "TEAM_REQUIRED"), (many, "c", "FORBIDDEN")]
    for who, team, code in cases:
        with pytest.raises(ApiError) as refused:
            team_for(who, team)
        assert refused.value.code == code
    assert team_for(many, "b") == "b"
    assert team_for(Principal.of("z", ["admin"], []), None) is None


async def test_a_supervisor_is_offered_nothing_that_changes(make_core_settings) -> None:
    settings = _settings(make_core_settings)
    async with run_core(settings) as core:
        client = core.client
        uploaded = await upload(client, "ОСВ.xlsx", minimal_workbook(), headers=USERS["owner"])
        file_id = uploaded.json()["file_id"]
        pages = {
            user: [
                (await client.get(path, headers=USERS[user])).text
                for path in ("/ui/files", f"/ui/files/{file_id}")
            ]
            for user in ("owner", "supervisor")
        }
    for user, (files, one) in pages.items():
        offered = 'id="upload"' in files, 'id="batch-retry"' in files, 'id="retry"' in one
        assert offered == ((user == "owner"),) * 3, user


async def test_a_role_union_never_widens_a_team(make_core_settings) -> None:
    """A supervisor who is also team-b's analyst sees team-a's documents and changes none of
    them, from the API or the pages, and is not offered the forms; team-a's analyst is."""
    settings = _settings(make_core_settings, nats_enabled=True)
    async with run_core(settings) as core:
        client = core.client
        made = await client.post(
            "/api/v1/consolidations", json={"name": "ООО Ромашка"}, headers=USERS["owner"]
        )
        consolidation_id = made.json()["id"]
        file_id = await mapped_file(
            settings,
            "result-2.0-needs_check-statement.json",
            consolidation_id=consolidation_id,
            uploaded_by="ivanova.a",
        )

        async def documents() -> Any:
            answer = await client.get(f"/api/v1/files/{file_id}/documents", headers=USERS["union"])
            return answer.json()["documents"]

        [document] = await wait_until(documents)
        union = USERS["union"]
        correction = {"target": "header", "field": "total_debit", "value": "2789", "reason": "r"}
        doc_url = f"/api/v1/documents/{document['id']}"
        page_url = f"/ui/documents/{document['id']}"
        refused = {
            "correct": await client.post(f"{doc_url}/corrections", json=correction, headers=union),
            "confirm": await client.post(f"{doc_url}/confirm", json={}, headers=union),
            "page correct": await client.post(
                f"{page_url}/corrections",
                data={"spot": "header:total_debit", "value": "2789", "reason": "r"},
                headers=union,
            ),
            "page confirm": await client.post(
                f"{page_url}/confirm", data={"reason": "r"}, headers=union
            ),
            "retry": await client.post(f"/api/v1/files/{file_id}/retry", headers=union),
            "page retry": await client.post(f"/ui/files/{file_id}/retry", headers=union),
        }
        batch = await client.post(
            "/api/v1/files/retry", json={"file_ids": [str(file_id)]}, headers=union
        )
        offered = {
            user: (await client.get(f"/ui/files/{file_id}/documents", headers=USERS[user])).text
            + (await client.get(f"/ui/consolidations/{consolidation_id}", headers=USERS[user])).text
            + (
                await client.get(
                    f"/ui/consolidations/{consolidation_id}/reconciliation", headers=USERS[user]
                )
            ).text
            for user in ("union", "owner")
        }
        owned = await client.post(f"{doc_url}/corrections", json=correction, headers=USERS["owner"])
    assert {what: answer.status_code for what, answer in refused.items()} == dict.fromkeys(
        refused, 403
    )
    assert refused["correct"].json()["error"]["code"] == "FORBIDDEN"
    assert batch.json()["results"][0]["reason"] == "FORBIDDEN"
    for marker in ("correction-form", 'id="upload"', "exclude-form"):
        assert (marker in offered["union"], marker in offered["owner"]) == (False, True), marker
    assert owned.status_code == 201


MALFORMED_ROLES = [
    None,
    [],
    ["guest"],
    {"analyst": True},
    "analyst",
    "guest admin",
    ["admin", 1],
    [["admin"]],
]


async def test_roles_are_only_a_list_of_names(make_core_settings) -> None:
    """A token whose roles claim is anything but a list of strings has no role: it reads
    nothing of its team's, not even the original."""
    async with run_issuer() as issuer:
        settings = make_core_settings(nats_enabled=False, **issuer.core_settings())
        async with run_core(settings) as core:
            owner = {"Authorization": f"Bearer {issuer.token(CLAIMS['owner'])}"}
            made = await core.client.post(
                "/api/v1/consolidations", json={"name": "ООО Ромашка"}, headers=owner
            )
            uploaded = await upload(
                core.client,
                "ОСВ.xlsx",
                minimal_workbook(),
                consolidation_id=made.json()["id"],
                headers=owner,
            )
            file_id = uploaded.json()["file_id"]
            answers: dict[str, list[int]] = {}
            for roles in MALFORMED_ROLES:
                claims = {"preferred_username": "x", "roles": roles, "groups": ["team-a"]}
                bearer = {"Authorization": f"Bearer {issuer.token(claims)}"}
                answers[repr(roles)] = [
                    (await core.client.get(path, headers=bearer)).status_code
                    for path in (
                        f"/api/v1/files/{file_id}/content",
                        f"/api/v1/files/{file_id}/documents",
                        "/api/v1/files",
                    )
                ]
    assert answers == {repr(roles): [403, 403, 403] for roles in MALFORMED_ROLES}


def test_proxy_headers_name_roles_and_teams_comma_separated_only() -> None:
    from arm_core.auth.principal import header_names

    assert header_names("analyst, supervisor") == ["analyst", "supervisor"]
    assert header_names("guest admin") == []
    assert header_names("/credit/team-a,team-b") == ["team-a", "team-b"]
    assert header_names("") == []


def test_a_principal_reaches_by_role_and_team_together() -> None:
    from arm_core.auth.principal import Principal

    union = Principal.of("k", ["supervisor", "analyst"], ["team-b"])
    roleless = Principal.of("g", [], ["team-a"])
    admin = Principal.of("r", ["admin"], [])
    assert union.sql("read")["sees_all"] is True
    assert union.sql("change") == {"sees_all": False, "teams": ["team-b"], "user": "k"}
    assert roleless.sql("read") == {"sees_all": False, "teams": [], "user": None}
    assert roleless.sql("change") == roleless.sql("read")
    assert admin.sql("change")["sees_all"] is True
