"""Requests per user per minute on the routes that start work (uploads, retries): a bucket
of a minute's requests per user, refilled as the minute goes by. Counted per instance."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

# Users whose bucket is full again are forgotten past this many, so the table stays small.
_FORGET_AFTER = 10_000


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class RateLimits:
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[tuple[str, str], _Bucket] = field(default_factory=dict)

    def take(self, kind: str, user: str, per_minute: int) -> int | None:
        """None when ``user`` may make one more ``kind`` request now; else the whole seconds
        until they may."""
        now = self.clock()
        rate = per_minute / 60.0
        bucket = self._buckets.get((kind, user))
        if bucket is None:
            if len(self._buckets) >= _FORGET_AFTER:
                self._forget_full(now, rate, per_minute)
            bucket = self._buckets[(kind, user)] = _Bucket(float(per_minute), now)
        bucket.tokens = min(per_minute, bucket.tokens + (now - bucket.at) * rate)
        bucket.at = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return None
        return max(1, math.ceil((1 - bucket.tokens) / rate))

    def _forget_full(self, now: float, rate: float, per_minute: int) -> None:
        full = [
            key
            for key, bucket in self._buckets.items()
            if bucket.tokens + (now - bucket.at) * rate >= per_minute
        ]
        for key in full:
            del self._buckets[key]
