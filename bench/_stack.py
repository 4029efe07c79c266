"""PostgreSQL and nats-server for a benchmark, in a folder of its own, stopped after."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.postgres import EmbeddedPostgres


@contextlib.contextmanager
def local_stack(workdir: Path) -> Iterator[tuple[EmbeddedPostgres, NatsServer]]:
    pg = EmbeddedPostgres(workdir / "pg")
    pg.start()
    server = NatsServer(workdir=workdir / "nats")
    try:
        server.start()
        yield pg, server
    finally:
        server.stop()
        pg.stop()
