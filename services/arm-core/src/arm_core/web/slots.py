"""Open event streams, counted in total and per user: a browser tab holds one, and nobody may
hold the core's connections open by the hundred."""

from __future__ import annotations

from collections import Counter


class StreamSlot:
    """One open stream's place; given back once, when the stream ends (or, for a stream
    that never started, when the slot is dropped)."""

    def __init__(self, slots: StreamSlots, user: str) -> None:
        self._slots: StreamSlots | None = slots
        self.user = user

    def release(self) -> None:
        if self._slots is not None:
            self._slots.give_back(self.user)
            self._slots = None

    def __del__(self) -> None:
        self.release()


class StreamSlots:
    def __init__(self) -> None:
        self.total = 0
        self._by_user: Counter[str] = Counter()

    def take(self, user: str, *, most: int, most_per_user: int) -> StreamSlot | None:
        """A slot for ``user``, or None when they, or everyone together, hold the most."""
        if self.total >= most or self._by_user[user] >= most_per_user:
            return None
        self.total += 1
        self._by_user[user] += 1
        return StreamSlot(self, user)

    def held_by(self, user: str) -> int:
        return self._by_user[user]

    def give_back(self, user: str) -> None:
        self.total -= 1
        self._by_user[user] -= 1
        if self._by_user[user] <= 0:
            del self._by_user[user]
