"""PostgreSQL 16 from the pgserver wheel's binaries, on a TCP port of our choosing.

pgserver's own launcher only offers a Unix socket and process-wide cleanup hooks; the system
and the tests need a port, server options (tests trade durability for speed) and an explicit
stop, so this drives the same binaries with pg_ctl. As root, PostgreSQL refuses to run, so the
server runs as the unprivileged ``pgserver`` user, as pgserver itself does.
"""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
from pathlib import Path
from typing import Literal

import psycopg
from psycopg import sql

from arm_ka_devstack.processes import free_port, port_is_free

_FAST = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")
_SYSTEM_USER = "pgserver"

StopMode = Literal["smart", "fast", "immediate"]


def _bin_dir() -> Path:
    from pgserver._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH)


class EmbeddedPostgres:
    def __init__(
        self,
        datadir: Path,
        *,
        port: int | None = None,
        fast: bool = False,
        max_connections: int = 200,
    ) -> None:
        self.datadir = datadir
        self.port = port or free_port()
        self.fast = fast
        self.max_connections = max_connections
        self._user = _SYSTEM_USER if os.geteuid() == 0 else None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def __repr__(self) -> str:
        return f"EmbeddedPostgres(datadir={str(self.datadir)!r}, port={self.port})"

    def _run(self, tool: str, *args: str, timeout: float = 60) -> None:
        subprocess.run(
            [str(_bin_dir() / tool), *args],
            check=True,
            user=self._user,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
        )

    def _prepare(self) -> None:
        self.datadir.mkdir(parents=True, exist_ok=True)
        if self._user is None:
            return
        from pgserver.utils import (
            ensure_folder_permissions,
            ensure_prefix_permissions,
            ensure_user_exists,
        )

        entry = ensure_user_exists(self._user)
        assert entry is not None
        ensure_prefix_permissions(self.datadir)
        ensure_prefix_permissions(_bin_dir())
        ensure_folder_permissions(
            _bin_dir(), stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH
        )
        ensure_folder_permissions(_bin_dir().parent / "lib", stat.S_IRGRP | stat.S_IROTH)
        for path in [self.datadir, *self.datadir.rglob("*")]:
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def start(self) -> str:
        self._prepare()
        if not (self.datadir / "PG_VERSION").exists():
            self._run(
                "initdb",
                "-D", str(self.datadir),
                "-U", "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
            )  # fmt: skip
        if not port_is_free(self.port):
            raise RuntimeError(f"port {self.port} is taken; PostgreSQL cannot listen there")
        options = [
            f"-p {self.port}",
            "-h 127.0.0.1",
            f"-k {self.datadir}",
            f"-c max_connections={self.max_connections}",
        ]
        if self.fast:
            options += [f"-c {option}" for option in _FAST]
        self._run(
            "pg_ctl",
            "-D", str(self.datadir),
            "-l", str(self.datadir / "server.log"),
            "-w", "-t", "60",
            "-o", " ".join(options),
            "start",
        )  # fmt: skip
        return self.url()

    def running(self) -> bool:
        pid_file = self.datadir / "postmaster.pid"
        return pid_file.exists()

    def stop(self, mode: StopMode = "fast") -> None:
        """``fast`` ends sessions and checkpoints; ``immediate`` is an outage as sudden as a
        crash (the next start recovers from the WAL)."""
        if self.running():
            self._run("pg_ctl", "-D", str(self.datadir), "-m", mode, "-w", "stop")

    def restart(self, mode: StopMode = "fast") -> str:
        """Stop and start again on the same port with the same data."""
        self.stop(mode)
        return self.start()

    def ensure_database(self, name: str, *, template: str | None = None) -> str:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
            ).fetchone()
            if not exists:
                query = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
                if template:
                    query += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
                conn.execute(query)
        return self.url(name)

    def drop_database(self, name: str) -> None:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def owner_of(path: Path) -> str:
    return pwd.getpwuid(path.stat().st_uid).pw_name
