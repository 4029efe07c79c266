"""PostgreSQL and nats-server for a benchmark, in a folder of its own, stopped after."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.postgres import EmbeddedPostgres


@contextlib.contextmanager
def local_stack(
    workdir: Path, *, durable: bool = False
) -> Iterator[tuple[EmbeddedPostgres, NatsServer]]:
    """``durable``: fsync and synchronous commit on, as a bank runs it (a commit costs a
    flush to disk); otherwise off, for benches of what happens between commits."""
    pg = EmbeddedPostgres(workdir / "pg", fast=not durable)
    pg.start()
    server = NatsServer(workdir=workdir / "nats")
    try:
        server.start()
        yield pg, server
    finally:
        server.stop()
        pg.stop()
