"""GET /healthcheck reports the database, NATS and the subjects in use."""

from __future__ import annotations

import asyncio

from arm_core.testing import run_core
from arm_ka_devstack.processes import free_port

DEFAULT_SUBJECTS = {
    "tabular_request": "files.tabular_uploaded",
    "image_request": "files.img_uploaded",
    "result": "files.tabular_parsed",
}


async def test_defaults_report_db_nats_ok_and_default_subjects(make_core_settings) -> None:
    async with run_core(make_core_settings()) as core:
        assert await core.runtime.nats.wait_connected(5)
        response = await core.client.get("/healthcheck")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "db": "ok",
        "nats": "ok",
        "subjects": DEFAULT_SUBJECTS,
    }


async def test_environment_subjects_are_reported(make_core_settings, monkeypatch) -> None:
    monkeypatch.setenv("OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT", "test.files.tabular_uploaded")
    monkeypatch.setenv("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", "test.files.img_uploaded")
    monkeypatch.setenv("OPENBAO__NATS__NATS_RESULT_SUBJECT", "test.files.tabular_parsed")
    async with run_core(make_core_settings()) as core:
        body = (await core.client.get("/healthcheck")).json()
    assert body["subjects"] == {
        "tabular_request": "test.files.tabular_uploaded",
        "image_request": "test.files.img_uploaded",
        "result": "test.files.tabular_parsed",
    }


async def test_nats_disabled_reports_off_and_starts_no_loops(make_core_settings) -> None:
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        response = await core.client.get("/healthcheck")
        background = [
            task.get_name()
            for task in asyncio.all_tasks()
            if task.get_name().startswith(("loop:", "nats:"))
        ]
        assert background == []
    assert response.status_code == 200
    body = response.json()
    assert body["nats"] == "off"
    assert body["db"] == "ok"
    assert body["subjects"] == DEFAULT_SUBJECTS


async def test_nats_down_and_back(make_core_settings, nats_server_factory) -> None:
    server = nats_server_factory()
    async with run_core(make_core_settings(nats_url=server.url)) as core:
        assert await core.runtime.nats.wait_connected(5)
        assert (await core.client.get("/healthcheck")).json()["nats"] == "ok"
        server.stop()
        body = await _wait_for(core, "nats", "down")
        assert body["status"] == "degraded"
        server.start()
        await _wait_for(core, "nats", "ok")


async def test_nats_unreachable_at_start_then_appears(
    make_core_settings, nats_server_factory
) -> None:
    port = free_port()
    settings = make_core_settings(nats_url=f"nats://127.0.0.1:{port}")
    async with run_core(settings, wait_for_nats=False) as core:
        assert (await core.client.get("/healthcheck")).json()["nats"] == "down"
        nats_server_factory(port=port)
        await _wait_for(core, "nats", "ok")


async def test_database_down_reports_down(make_core_settings) -> None:
    port = free_port()
    settings = make_core_settings(database_url=f"postgresql://postgres@127.0.0.1:{port}/none")
    async with run_core(settings) as core:
        response = await core.client.get("/healthcheck")
    assert response.status_code == 200
    assert response.json()["db"] == "down"


async def _wait_for(core, key: str, value: str, timeout: float = 10.0) -> dict:
    deadline = asyncio.get_running_loop().time() + timeout
    body: dict = {}
    while asyncio.get_running_loop().time() < deadline:
        body = (await core.client.get("/healthcheck")).json()
        if body[key] == value:
            return body
        await asyncio.sleep(0.1)
    raise AssertionError(f"{key} never became {value}: {body}")
