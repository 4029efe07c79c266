"""Session fixtures with real infrastructure: PostgreSQL, nats-server, an S3 peer.

Each fixture stops what it started in its finalizer, which pytest runs on failures and on
Ctrl-C as well; an ``atexit`` hook covers an interpreter that exits some other way.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.postgres import EmbeddedPostgres
from arm_ka_devstack.s3peer import S3Peer


@pytest.fixture(scope="session")
def postgres() -> Iterator[EmbeddedPostgres]:
    # Not under pytest's basetemp: a second pytest run on the machine prunes old basetemps,
    # which would pull the data directory from under a running server.
    root = Path(tempfile.mkdtemp(prefix="arm-ka-postgres-"))
    server = EmbeddedPostgres(root / "data", fast=True)
    server.start()
    atexit.register(server.stop)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def nats_server() -> Iterator[NatsServer]:
    root = Path(tempfile.mkdtemp(prefix="arm-ka-nats-"))
    # Larger than the 1 MiB default, so that tests can send the oversized messages a
    # misbehaving peer could send to a server configured like this.
    server = NatsServer(workdir=root, config="max_payload: 8388608\n")
    server.start()
    atexit.register(server.stop)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def nats_server_factory(tmp_path: Path) -> Iterator[Callable[..., NatsServer]]:
    """Private servers for tests that stop NATS or need authentication."""
    started: list[NatsServer] = []

    def make(config: str | None = None, port: int | None = None) -> NatsServer:
        server = NatsServer(config=config, port=port, workdir=tmp_path / f"nats-{len(started)}")
        server.start()
        started.append(server)
        return server

    try:
        yield make
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="session")
def s3_peer() -> Iterator[S3Peer]:
    peer = S3Peer()
    peer.start()
    atexit.register(peer.stop)
    try:
        yield peer
    finally:
        peer.stop()
