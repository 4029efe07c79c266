"""Settings every recognition service reads on top of the platform keys."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import Field, PositiveFloat, PositiveInt

from arm_ka_platform.settings import PlatformSettings

# More parallel recognitions than cores only adds memory pressure; the cap keeps a big host
# from starting dozens of children each allowed JOB_MEMORY_BYTES.
MAX_DEFAULT_CONCURRENCY = 8


def default_concurrency() -> int:
    """Cores this process may run on (cgroup and affinity aware where the OS says), capped."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_DEFAULT_CONCURRENCY))


class WorkerSettings(PlatformSettings):
    """``CONTRACT_VERSION``, concurrency, limits of one job, dedupe memory, publish retries."""

    contract_version: Literal["1.0", "2.0"] = "2.0"
    """The MAJOR this service writes; a 2.0 service also reads 1.x requests (same fields)."""
    worker_concurrency: int = Field(default_factory=default_concurrency, ge=1, le=64)
    max_source_bytes: PositiveInt = 100 * 1024 * 1024
    job_timeout_seconds: PositiveFloat = 300.0
    """Hard cap on one recognition; the child process is killed when it is over."""
    job_memory_bytes: int = Field(default=2 * 1024**3, ge=256 * 1024**2)
    """Address space (RLIMIT_AS) of the process that recognises one file."""
    dedupe_capacity: int = Field(default=10_000, ge=1, le=1_000_000)
    publish_retry_seconds: PositiveFloat = 1.0
    shutdown_grace_seconds: PositiveFloat = 25.0
    """How long a stopping service lets its jobs in flight finish and publish; those still
    running then are abandoned (the core times them out at their reply deadline). Below the
    30 s after which orchestrators commonly follow SIGTERM with SIGKILL, so the stop is the
    service's own, logged, rather than a kill."""
