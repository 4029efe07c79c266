"""Live file changes: the trigger's notification, the broadcaster's memory, and the SSE
stream an open page listens to."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import httpx
import psycopg
import pytest

from arm_core.testing import insert_file_with_job, run_core, wait_until
from arm_core.web.events import RESYNC, FileEvents

pytestmark = pytest.mark.timeout(60)


def _payload(file_id: uuid.UUID, status: str, consolidation: uuid.UUID | None = None) -> str:
    return json.dumps(
        {
            "id": str(file_id),
            "status": status,
            "consolidation_id": str(consolidation) if consolidation else None,
        }
    )


def test_broadcaster_replays_what_a_cursor_missed() -> None:
    events = FileEvents(memory=3)
    start = events.cursor()
    ids = [uuid.uuid4() for _ in range(3)]
    for file_id in ids:
        events.receive(_payload(file_id, "PROCESSING"))
    missed = events.since(start)
    assert missed is not None
    assert [c.file_id for c in missed] == ids
    assert events.since(events.cursor()) == []
    events.receive(_payload(uuid.uuid4(), "RECOGNIZED"))
    # Four changes since ``start`` but only three remembered: the page must re-read.
    assert events.since(start) is None
    assert events.since(f"other-{0}") is None
    assert events.since("garbage") is None
    assert events.since(f"{events.epoch}-999") is None


async def test_listener_restart_makes_older_cursors_resync() -> None:
    events = FileEvents()
    before = events.cursor()
    with events.subscribe() as subscription:
        events.receive(None)
        assert await subscription.next(0.01) == [RESYNC]
    assert events.since(before) is None
    after = events.cursor()
    events.receive(_payload(uuid.uuid4(), "ERROR"))
    assert len(events.since(after) or []) == 1


async def test_unreadable_payload_is_dropped_without_raising() -> None:
    events = FileEvents()
    with events.subscribe() as subscription:
        for bad in ("not json", "{}", '{"id": "x", "status": "ERROR"}', "[]"):
            events.receive(bad)
        assert await subscription.next(0.01) == []
    assert events.subscribers == 0


async def test_a_stream_too_far_behind_is_told_to_resync() -> None:
    events = FileEvents()
    with events.subscribe(backlog=2) as subscription:
        for _ in range(3):
            events.receive(_payload(uuid.uuid4(), "UPLOADED"))
        items = await subscription.next(0.1)
    assert items[-1] is RESYNC
    assert len(items) < 3


async def test_trigger_notifies_on_status_and_attempt_changes_only(database_url: str) -> None:
    file_id, _ = await insert_file_with_job(database_url)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as listener:
        await listener.execute("LISTEN stored_file_changed")
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
            await conn.execute(
                "UPDATE stored_file SET original_name = 'x' WHERE id = %s", (file_id,)
            )
            await conn.execute(
                "UPDATE stored_file SET status = 'PROCESSING' WHERE id = %s", (file_id,)
            )
        payloads = [n.payload async for n in listener.notifies(timeout=2, stop_after=2)]
    assert [json.loads(p) for p in payloads] == [
        {"id": str(file_id), "status": "PROCESSING", "consolidation_id": None}
    ]


async def _events(response: httpx.Response) -> AsyncIterator[dict[str, str]]:
    """Server-sent events as dicts of their fields."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if not line:
            if "event" in fields:
                yield fields
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")


async def test_stream_sends_an_event_when_a_file_status_changes(make_core_settings) -> None:
    settings = make_core_settings()
    dsn = settings.database_dsn
    file_id, _ = await insert_file_with_job(dsn)
    other, _ = await insert_file_with_job(dsn)
    async with run_core(settings) as core:
        await wait_until(lambda: _listening(core))
        cursor = core.runtime.file_events.cursor()
        received: list[dict[str, str]] = []

        async def read() -> None:
            async with core.client.stream(
                "GET", "/ui/events", params={"file_id": str(file_id), "since": cursor}
            ) as response:
                assert response.headers["content-type"].startswith("text/event-stream")
                async for event in _events(response):
                    received.append(event)
                    if event["event"] == "file":
                        return

        reader = asyncio.create_task(read())
        await wait_until(lambda: _true(core.runtime.file_events.subscribers == 1))
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute("UPDATE stored_file SET status = 'ERROR' WHERE id = %s", (other,))
            await conn.execute("UPDATE stored_file SET status = 'ERROR' WHERE id = %s", (file_id,))
        await asyncio.wait_for(reader, 5)

    assert [e["event"] for e in received] == [f"file-{file_id}", "file"]
    assert received[0]["data"] == "ERROR"
    assert json.loads(received[1]["data"]) == {
        "id": str(file_id),
        "status": "ERROR",
        "consolidation_id": None,
    }
    assert received[0]["id"].startswith(core.runtime.file_events.epoch + "-")


async def test_reconnecting_stream_gets_what_it_missed(make_core_settings) -> None:
    settings = make_core_settings()
    dsn = settings.database_dsn
    file_id, _ = await insert_file_with_job(dsn)
    async with run_core(settings) as core:
        await wait_until(lambda: _listening(core))
        events = core.runtime.file_events
        cursor = events.cursor()
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(
                "UPDATE stored_file SET status = 'PROCESSING' WHERE id = %s", (file_id,)
            )
        await wait_until(lambda: _true(events.since(cursor)))

        async def first(headers: dict[str, str], params: dict[str, str]) -> dict[str, str]:
            async with core.client.stream("GET", "/ui/events", headers=headers, params=params) as r:
                async for event in _events(r):
                    return event
            raise AssertionError("stream ended without an event")

        replayed = await asyncio.wait_for(first({"Last-Event-ID": cursor}, {}), 5)
        assert (replayed["event"], replayed["data"]) == (f"file-{file_id}", "PROCESSING")
        stale = await asyncio.wait_for(first({}, {"since": "0-0"}), 5)
        assert stale["event"] == "resync"


async def _listening(core) -> bool:
    return core.runtime.file_events.cursor() != f"{core.runtime.file_events.epoch}-0"


async def _true(value: object) -> bool:
    return bool(value)


@pytest.mark.parametrize(
    ("headers", "params"),
    [
        ({}, {"since": "garbage"}),
        ({}, {"since": "abc-1x"}),
        ({"Last-Event-ID": "'; DROP TABLE stored_file; --"}, {}),
        ({}, {"since": "0-" + "9" * 40}),
    ],
)
async def test_a_malformed_cursor_is_refused_with_400(make_core_settings, headers, params) -> None:
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        response = await core.client.get("/ui/events", headers=headers, params=params)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_CURSOR"
