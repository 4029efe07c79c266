"""The audit trail: uploads, retries, downloads of originals, views of documents, changes to
consolidations, sign-ins (test_sign_in) and refused requests, each with who, when, what and
how it ended; read back by admins with filters and paging."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import psycopg

from arm_core.audit.refusals import PER_MINUTE
from arm_core.testing import insert_file_with_job, minimal_workbook, run_core, upload, wait_until

ANALYST = {"X-Remote-User": "ivanova.a", "X-Remote-Roles": "analyst", "X-Remote-Groups": "team-a"}
SUPERVISOR = {"X-Remote-User": "sidorova.s", "X-Remote-Roles": "supervisor"}
ADMIN = {"X-Remote-User": "root.r", "X-Remote-Roles": "admin"}


def _settings(make_core_settings: Any) -> Any:
    return make_core_settings(
        nats_enabled=False,
        debug=False,
        auth_user_header="X-Remote-User",
        auth_roles_header="X-Remote-Roles",
        auth_teams_header="X-Remote-Groups",
    )


async def _refusals(client: Any, count: int) -> None:
    """Until the trail holds ``count`` refusals: a 403's or a hidden 404's row is written
    after its answer, so that no timing tells what exists."""

    async def written() -> bool:
        answer = await client.get(
            "/api/v1/audit", params={"action": "access.refused"}, headers=ADMIN
        )
        return bool(answer.json()["total"] >= count)

    await wait_until(written)


async def test_each_action_is_recorded_with_who_what_and_how_it_ended(make_core_settings) -> None:
    settings = _settings(make_core_settings)
    retryable, _ = await insert_file_with_job(
        settings.database_dsn, status="timeout", uploaded_by="ivanova.a"
    )
    async with run_core(settings) as core:
        client = core.client
        made = await client.post(
            "/api/v1/consolidations", json={"name": "Ромашка"}, headers=ANALYST
        )
        consolidation_id = made.json()["id"]
        uploaded = await upload(
            client,
            "ОСВ.xlsx",
            minimal_workbook(),
            consolidation_id=consolidation_id,
            headers=ANALYST,
        )
        file_id = uploaded.json()["file_id"]
        await client.get(f"/api/v1/files/{file_id}/content", headers=ANALYST)
        await client.get(f"/api/v1/files/{file_id}/documents", headers=ANALYST)
        await client.post(f"/api/v1/files/{retryable}/retry", headers=ANALYST)
        await client.patch(
            f"/api/v1/consolidations/{consolidation_id}", json={"team": "team-b"}, headers=ADMIN
        )
        await client.get("/api/v1/files")  # nobody
        await upload(client, "ОСВ.xlsx", minimal_workbook(), headers=SUPERVISOR)
        # The 403's row is written once its answer is out.
        await _refusals(client, 2)
        trail = (await client.get("/api/v1/audit", headers=ADMIN)).json()
        refused_only = (
            await client.get("/api/v1/audit", params={"action": "access.refused"}, headers=ADMIN)
        ).json()
        by_analyst = (
            await client.get(
                "/api/v1/audit", params={"actor": "ivanova.a", "limit": 2}, headers=ADMIN
            )
        ).json()
        second_page = (
            await client.get(
                "/api/v1/audit",
                params={"actor": "ivanova.a", "limit": 2, "offset": 2},
                headers=ADMIN,
            )
        ).json()
        as_analyst = await client.get("/api/v1/audit", headers=ANALYST)
    seen = [(e["actor"], e["action"], e["outcome"]) for e in reversed(trail["items"])]
    assert seen == [
        ("ivanova.a", "consolidation.create", "ok"),
        ("ivanova.a", "file.upload", "ok"),
        ("ivanova.a", "file.download", "ok"),
        ("ivanova.a", "document.view", "ok"),
        ("ivanova.a", "file.retry", "ok"),
        ("root.r", "consolidation.assign", "ok"),
        ("anonymous", "access.refused", "UNAUTHENTICATED"),
        ("sidorova.s", "access.refused", "FORBIDDEN"),
    ]
    downloads = [e for e in trail["items"] if e["action"] == "file.download"]
    assert downloads[0]["file_id"] == file_id
    refusal = refused_only["items"][-1]
    assert refusal["details"]["path"] == "/api/v1/files" and refusal["details"]["method"] == "GET"
    assert refused_only["total"] == 2
    assert by_analyst["total"] == 5 and len(by_analyst["items"]) == 2
    assert {e["id"] for e in by_analyst["items"]}.isdisjoint(e["id"] for e in second_page["items"])
    # An analyst reading the trail is refused, and that refusal is in it too.
    assert as_analyst.status_code == 403


async def test_a_flood_of_refusals_writes_a_bounded_number_of_rows(make_core_settings) -> None:
    settings = _settings(make_core_settings)
    async with run_core(settings) as core:
        for _ in range(PER_MINUTE + 20):
            assert (await core.client.get("/api/v1/files")).status_code == 401
        trail = (
            await core.client.get(
                "/api/v1/audit", params={"action": "access.refused"}, headers=ADMIN
            )
        ).json()
    assert trail["total"] == PER_MINUTE


async def test_a_filter_postgresql_cannot_hold_is_a_400_not_a_500(make_core_settings) -> None:
    settings = _settings(make_core_settings)
    async with run_core(settings) as core:
        api = await core.client.get("/api/v1/audit", params={"actor": "a\x00b"}, headers=ADMIN)
        page = await core.client.get("/ui/audit", params={"action": "\x00"}, headers=ADMIN)
        shown = await core.client.get("/ui/audit", params={"actor": "root.r"}, headers=ADMIN)
    assert api.status_code == 400 and page.status_code == 400
    assert shown.status_code == 200 and "Журнал действий" in shown.text


async def test_a_look_at_another_teams_file_is_a_refusal_a_missing_one_is_not(
    make_core_settings,
) -> None:
    settings = _settings(make_core_settings)
    stranger = {**ANALYST, "X-Remote-User": "petrov.p", "X-Remote-Groups": "team-b"}
    async with run_core(settings) as core:
        client = core.client
        made = await client.post(
            "/api/v1/consolidations", json={"name": "Ромашка"}, headers=ANALYST
        )
        uploaded = await upload(
            client,
            "ОСВ.xlsx",
            minimal_workbook(),
            consolidation_id=made.json()["id"],
            headers=ANALYST,
        )
        file_id = uploaded.json()["file_id"]
        api = await client.get(f"/api/v1/files/{file_id}", headers=stranger)
        page = await client.get(f"/ui/files/{file_id}", headers=stranger)
        missing = await client.get(f"/api/v1/files/{uuid.uuid4()}", headers=stranger)
        await _refusals(client, 2)
        trail = (
            await client.get("/api/v1/audit", params={"actor": "petrov.p"}, headers=ADMIN)
        ).json()
    assert [api.status_code, page.status_code, missing.status_code] == [404, 404, 404]
    assert [
        (e["action"], e["outcome"], e["details"]["path"]) for e in reversed(trail["items"])
    ] == [
        ("access.refused", "NOT_VISIBLE", f"/api/v1/files/{file_id}"),
        ("access.refused", "NOT_VISIBLE", f"/ui/files/{file_id}"),
    ]


async def test_the_trail_is_read_between_two_moments_given_with_their_zone(
    make_core_settings,
) -> None:
    settings = _settings(make_core_settings)
    async with run_core(settings) as core:
        await core.client.post("/api/v1/consolidations", json={"name": "Ромашка"}, headers=ANALYST)
        now = dt.datetime.now(dt.UTC)
        hour = dt.timedelta(hours=1)

        async def total(**params: str) -> Any:
            answer = await core.client.get("/api/v1/audit", params=params, headers=ADMIN)
            return answer.json()["total"] if answer.status_code == 200 else answer.status_code

        window = await total(since=(now - hour).isoformat(), until=(now + hour).isoformat())
        before = await total(until=(now - hour).isoformat())
        bad = [await total(since="-6805"), await total(since="2026-12-01T10:00:00")]
    assert (window, before) == (1, 0)
    assert bad == [400, 400]


async def test_a_refusal_is_noted_after_its_answer(make_core_settings) -> None:
    """Another team's file answers as fast as an id that is nobody's: its audit row is
    written after the 404 went out. Shown with the trail's table locked: the answer comes
    at once, and the row once the lock is gone."""
    settings = _settings(make_core_settings)
    stranger = {**ANALYST, "X-Remote-User": "petrov.p", "X-Remote-Groups": "team-b"}
    async with run_core(settings) as core:
        client = core.client
        made = await client.post(
            "/api/v1/consolidations", json={"name": "Ромашка"}, headers=ANALYST
        )
        file_id = (
            await upload(
                client,
                "ОСВ.xlsx",
                minimal_workbook(),
                consolidation_id=made.json()["id"],
                headers=ANALYST,
            )
        ).json()["file_id"]
        dsn = settings.database_dsn
        async with await psycopg.AsyncConnection.connect(dsn) as lock, lock.transaction():
            await lock.execute("LOCK TABLE audit_log IN EXCLUSIVE MODE")
            hidden = await client.get(f"/api/v1/files/{file_id}", headers=stranger, timeout=5)
            page = await client.get(f"/ui/files/{file_id}", headers=stranger, timeout=5)
        await _refusals(client, 2)
    assert (hidden.status_code, page.status_code) == (404, 404)
