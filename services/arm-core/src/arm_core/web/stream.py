"""``GET /ui/events``: file changes as Server-Sent Events.

Each change goes out as ``file-{id}`` (a row or a file page re-reads itself), ``file`` (with
the id, status and consolidation, so a list can notice a file it does not show yet, and a
fragment that arrives late can tell it is already stale) and, for a file in a
consolidation, ``consolidation-{id}`` (its counts re-read themselves). ``resync`` tells the
page to re-read everything. Every message carries the cursor as its id, so the browser's own
reconnect (with ``Last-Event-ID``) resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import uuid
from collections.abc import AsyncIterator, Iterable

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from arm_core.api.deps import principal_of, runtime_of
from arm_core.api.errors import ApiError
from arm_core.files import consolidations
from arm_core.files.access import Sight, sight, visible_files
from arm_core.web.events import RESYNC, FileChange, FileEvents, Item
from arm_core.web.slots import StreamSlot

# Part of the pages (an EventSource of theirs), not of the API: outside the OpenAPI document.
router = APIRouter(include_in_schema=False)

# A stream ends after this long and the browser reconnects at once, missing nothing: a
# stopping server waits for open responses, so no stream may keep it waiting for long.
STREAM_SECONDS = 8.0
RECONNECT_MS = 500
# A cursor as the stream writes it: the listener's epoch and a change's number. One of an
# older epoch is well formed (the page re-reads everything); anything else is refused.
_CURSOR = re.compile(r"[0-9a-f]{1,16}-[0-9]{1,19}")


def _message(event: str, data: str, cursor: str) -> str:
    return f"id: {cursor}\nevent: {event}\ndata: {data}\n\n"


def _wanted(
    change: FileChange,
    seen_by: Sight,
    consolidation_id: uuid.UUID | None,
    file_id: uuid.UUID | None,
) -> bool:
    if not seen_by.sees(change.file_id, change.consolidation_id):
        return False
    if file_id is not None and change.file_id != file_id:
        return False
    return consolidation_id is None or change.consolidation_id == consolidation_id


def _messages(
    items: Iterable[Item],
    events: FileEvents,
    seen_by: Sight,
    consolidation_id: uuid.UUID | None,
    file_id: uuid.UUID | None,
) -> tuple[str, int]:
    """The text for ``items`` and the number of the last change in them (0 if none)."""
    out: list[str] = []
    last = 0
    for item in items:
        if item is RESYNC:
            out.append(_message("resync", "1", events.cursor()))
            continue
        last = item.seq
        if not _wanted(item, seen_by, consolidation_id, file_id):
            continue
        cursor = f"{events.epoch}-{item.seq}"
        out.append(_message(f"file-{item.file_id}", item.status, cursor))
        data = {
            "id": str(item.file_id),
            "status": item.status,
            "consolidation_id": str(item.consolidation_id) if item.consolidation_id else None,
        }
        out.append(_message("file", json.dumps(data), cursor))
        if item.consolidation_id is not None:
            out.append(_message(f"consolidation-{item.consolidation_id}", item.status, cursor))
    return "".join(out), last


@router.get("/ui/events", response_class=StreamingResponse)
async def file_events(
    request: Request,
    consolidation_id: uuid.UUID | None = None,
    file_id: uuid.UUID | None = None,
    since: str | None = None,
) -> StreamingResponse:
    who = principal_of(request)
    user = who.user
    runtime = runtime_of(request)
    events = runtime.file_events
    cursor = request.headers.get("last-event-id") or since
    if cursor and not _CURSOR.fullmatch(cursor):
        raise ApiError(400, "INVALID_CURSOR", "курсор событий не распознан")
    if consolidation_id is not None and not await consolidations.get_consolidation(
        runtime.pool, who, consolidation_id
    ):
        raise ApiError(404, "CONSOLIDATION_NOT_FOUND", "консолидация не найдена")
    if file_id is not None and not await visible_files(runtime.pool, who, [file_id]):
        raise ApiError(404, "FILE_NOT_FOUND", "файл не найден")
    # Taken once per stream: a stream lasts seconds, and a reconnect takes it afresh.
    seen_by = await sight(runtime.pool, who)
    settings = runtime.settings
    slot = runtime.stream_slots.take(
        user, most=settings.event_streams_max, most_per_user=settings.event_streams_per_user
    )
    if slot is None:
        # Streams end every few seconds: a place is soon free again.
        raise ApiError(
            429,
            "TOO_MANY_STREAMS",
            "открыто слишком много страниц с обновлениями",
            retry_after=math.ceil(STREAM_SECONDS),
        )

    return StreamingResponse(
        _stream(events, slot, cursor, seen_by, consolidation_id, file_id),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


async def _stream(
    events: FileEvents,
    slot: StreamSlot,
    cursor: str | None,
    seen_by: Sight,
    consolidation_id: uuid.UUID | None,
    file_id: uuid.UUID | None,
) -> AsyncIterator[str]:
    try:
        with events.subscribe() as subscription:
            # Subscribed first, then the replay: nothing falls between the two, and what
            # arrives in both is skipped by its number.
            missed = events.since(cursor) if cursor else []
            head = f"retry: {RECONNECT_MS}\n: {events.cursor()}\n\n"
            if missed is None:
                text, seen = _message("resync", "1", events.cursor()), 0
            else:
                text, seen = _messages(missed, events, seen_by, consolidation_id, file_id)
            yield head + text
            loop_time = asyncio.get_running_loop().time
            deadline = loop_time() + STREAM_SECONDS
            while (left := deadline - loop_time()) > 0:
                items = await subscription.next(left)
                fresh = [item for item in items if item is RESYNC or item.seq > seen]
                text, last = _messages(fresh, events, seen_by, consolidation_id, file_id)
                seen = max(seen, last)
                if text:
                    yield text
    finally:
        slot.release()
