"""Ids of the rows the core adds: UUID version 7, whose leading 48 bits are the time of
making in milliseconds.

Ids made one after another sort one after another, so a new file's, job's or document's index
entries land on the few index pages written last, wherever a table's history has grown to.
With random (version 4) ids every insert and every status change touched a page anywhere in
indexes of millions of entries: pages read back from disk and whole-page images in the WAL,
a cost per job that grew with history. The same layout is made in SQL by ``uuid_v7()``
(migration 0012) for the rows whose ids the database assigns.
"""

from __future__ import annotations

import os
import time
import uuid

_VERSION = 0x7 << 76
_VERSION_MASK = 0xF << 76
_VARIANT = 0x2 << 62  # RFC 9562: the two leading bits of the ninth byte are 10
_VARIANT_MASK = 0x3 << 62


def new_id() -> uuid.UUID:
    """A new version-7 id: 48 bits of Unix milliseconds, then 74 random bits."""
    millis = time.time_ns() // 1_000_000
    value = (millis & 0xFFFF_FFFF_FFFF) << 80 | int.from_bytes(os.urandom(10), "big")
    value = (value & ~_VERSION_MASK) | _VERSION
    value = (value & ~_VARIANT_MASK) | _VARIANT
    return uuid.UUID(int=value)


def made_at_millis(value: uuid.UUID) -> int:
    """The Unix milliseconds a version-7 id was made at."""
    return value.int >> 80


def first_id_of(millis: int) -> uuid.UUID:
    """The smallest version-7 id of that millisecond: every id made then or later sorts at or
    after it, so ``id >= first_id_of(t)`` reads the rows made since ``t`` off the primary key."""
    return uuid.UUID(int=(millis & 0xFFFF_FFFF_FFFF) << 80 | _VERSION | _VARIANT)
