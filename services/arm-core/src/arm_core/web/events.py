"""Live file changes for the screens.

The database announces every change of a file's status (``stored_file_changed``); the
listener hands each announcement to ``FileEvents.receive``, which numbers it and fans it out
to every open event stream. The last changes are remembered, so that a browser reconnecting
with the number it saw last gets what it missed; when that is no longer possible (too old,
another core instance, notifications lost while the listener reconnected) it is told to
re-read everything instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import uuid
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

CHANNEL = "stored_file_changed"
MEMORY = 2000
# A stream this far behind is told to re-read everything rather than fed every change.
BACKLOG = 1000


@dataclass(frozen=True)
class FileChange:
    seq: int
    file_id: uuid.UUID
    status: str
    consolidation_id: uuid.UUID | None


# In a subscription's queue: "changes may have been lost; re-read what you show".
RESYNC = None

Item = FileChange | None


class Subscription:
    def __init__(self, backlog: int = BACKLOG) -> None:
        self._items: deque[Item] = deque()
        self._backlog = backlog
        self._ready = asyncio.Event()

    def push(self, item: Item) -> None:
        if len(self._items) >= self._backlog:
            self._items.clear()
            item = RESYNC
        self._items.append(item)
        self._ready.set()

    async def next(self, timeout: float) -> list[Item]:
        """What arrived since the last call, waiting up to ``timeout`` for something."""
        if not self._items:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), timeout)
        items = list(self._items)
        self._items.clear()
        self._ready.clear()
        return items


class FileEvents:
    def __init__(self, memory: int = MEMORY) -> None:
        # Tells this process's numbering from another's (or an earlier run's).
        self.epoch = secrets.token_hex(4)
        self._seq = 0
        self._recent: deque[FileChange] = deque(maxlen=memory)
        # Changes up to this number may have been lost.
        self._gap = 0
        self._subscriptions: set[Subscription] = set()

    def cursor(self) -> str:
        """Where a page rendered now stands; its event stream starts from here."""
        return f"{self.epoch}-{self._seq}"

    def receive(self, payload: str | None) -> None:
        """A notification's payload, or ``None`` when listening (re)started. Never raises: it
        runs inside the listener, which must go on."""
        if payload is None:
            self._seq += 1
            self._gap = self._seq
            for subscription in self._subscriptions:
                subscription.push(RESYNC)
            return
        try:
            data = json.loads(payload)
            consolidation = data.get("consolidation_id")
            change = FileChange(
                seq=self._seq + 1,
                file_id=uuid.UUID(data["id"]),
                status=str(data["status"]),
                consolidation_id=uuid.UUID(consolidation) if consolidation else None,
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("file_event_unreadable", payload=payload[:200])
            return
        self._seq = change.seq
        self._recent.append(change)
        for subscription in self._subscriptions:
            subscription.push(change)

    def since(self, cursor: str | None) -> list[FileChange] | None:
        """The changes after ``cursor``; ``None`` when they cannot all be told."""
        if not cursor:
            return None
        epoch, _, number = cursor.partition("-")
        if epoch != self.epoch or not number.isdigit():
            return None
        seen = int(number)
        if seen > self._seq or seen < self._gap:
            return None
        oldest = self._recent[0].seq if self._recent else self._seq + 1
        if seen < oldest - 1:
            return None
        return [change for change in self._recent if change.seq > seen]

    @contextlib.contextmanager
    def subscribe(self, backlog: int = BACKLOG) -> Iterator[Subscription]:
        subscription = Subscription(backlog)
        self._subscriptions.add(subscription)
        try:
            yield subscription
        finally:
            self._subscriptions.discard(subscription)

    @property
    def subscribers(self) -> int:
        return len(self._subscriptions)
