"""Which jobs this process has taken, so that a repeated request is not recognised twice.

Bounded: the oldest finished jobs are forgotten first. A job still running is never forgotten
(at most ``concurrency`` plus the backlog of one process), because forgetting it would start
a second recognition of the same job.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from uuid import UUID


@dataclass(frozen=True)
class Outgoing:
    """A message ready to go out again: body, ``Nats-Msg-Id``."""

    body: bytes
    msg_id: str


@dataclass
class JobEntry:
    final: Outgoing | None = None
    """The outcome envelope once the job is over; ``None`` while it runs."""

    @property
    def running(self) -> bool:
        return self.final is None


class JobLedger:
    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._jobs: OrderedDict[UUID, JobEntry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._jobs)

    def claim(self, job_id: UUID) -> JobEntry | None:
        """Take ``job_id``: ``None`` when it is new (now running here), else its entry."""
        entry = self._jobs.get(job_id)
        if entry is not None:
            self._jobs.move_to_end(job_id)
            return entry
        self._jobs[job_id] = JobEntry()
        self._evict()
        return None

    def finish(self, job_id: UUID, final: Outgoing) -> None:
        entry = self._jobs.get(job_id)
        if entry is None:
            entry = self._jobs[job_id] = JobEntry()
        entry.final = final
        self._evict()

    def _evict(self) -> None:
        excess = len(self._jobs) - self._capacity
        if excess <= 0:
            return
        victims: list[UUID] = []
        for job_id, entry in self._jobs.items():
            if not entry.running:
                victims.append(job_id)
                if len(victims) == excess:
                    break
        for job_id in victims:
            del self._jobs[job_id]
