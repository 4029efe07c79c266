"""``Nats-Msg-Id`` values. Core NATS does not deduplicate, so the receiver compares these ids
itself: the same id twice means the same message twice."""

from __future__ import annotations

from typing import Final
from uuid import UUID

NATS_MSG_ID: Final = "Nats-Msg-Id"


def _base(job_id: UUID | str, attempt: int) -> str:
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        raise ValueError(f"attempt must be an integer >= 1, got {attempt!r}")
    # Canonical form, so that an upper-case job id does not make a second identity.
    return f"{UUID(str(job_id))}:{attempt}"


def request_msg_id(job_id: UUID | str, attempt: int) -> str:
    """``<job_id>:<attempt>``; a republished request keeps it."""
    return _base(job_id, attempt)


def ack_msg_id(job_id: UUID | str, attempt: int) -> str:
    """``ack:<job_id>:<attempt>``, on the ``processing`` envelope."""
    return f"ack:{_base(job_id, attempt)}"


def result_msg_id(job_id: UUID | str, attempt: int) -> str:
    """``result:<job_id>:<attempt>``, on the ``done`` / ``needs_check`` / ``error`` envelope."""
    return f"result:{_base(job_id, attempt)}"
