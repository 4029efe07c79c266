"""The chaos suite's system: real PostgreSQL, nats-server and file storage, two ``arm-core``
processes and two ``tabular-parser`` processes from this environment, each with its own log.

``CHAOS=long`` selects the long form (``make chaos``); without it the short form runs, which
``make test`` collects like any other test. Every process is killed at teardown, whatever
happened, and the log paths are printed when the test fails. Logs go to the test's tmp_path,
or under ``CHAOS_LOGS`` when that is set.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.postgres import EmbeddedPostgres
from arm_ka_devstack.processes import Child, free_port, venv_command

# Starting a process is not governed by any exchange setting: a fresh interpreter importing
# the core or a recognizer's fork server on a loaded 2-core machine can take this long.
STARTUP_SECONDS = 120.0
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Timings:
    """The exchange settings every core gets; every wait of the suite is derived from them."""

    outbox_poll: float
    ack_timeout: float
    max_republish: int
    reply_timeout: float
    watchdog_period: float
    mapping_period: float
    max_attempts: int

    def env(self) -> dict[str, str]:
        return {
            "OUTBOX_POLL_SECONDS": str(self.outbox_poll),
            "ACK_TIMEOUT_SECONDS": str(self.ack_timeout),
            "OUTBOX_MAX_REPUBLISH": str(self.max_republish),
            "REPLY_TIMEOUT_SECONDS": str(self.reply_timeout),
            "WATCHDOG_PERIOD_SECONDS": str(self.watchdog_period),
            "MAPPING_PERIOD_SECONDS": str(self.mapping_period),
            "RECOGNITION_MAX_ATTEMPTS": str(self.max_attempts),
        }

    @property
    def settle(self) -> float:
        """From the end of the last fault until everything is final or legitimately in
        flight: a job queued during the fault is published within a poll, answered or timed
        out by its deadline, seen by the watchdog within a period, mapped within another."""
        return (
            self.outbox_poll + self.reply_timeout + self.watchdog_period + 2 * self.mapping_period
        )


@dataclass(frozen=True)
class ChaosPlan:
    form: str
    tabular_files: int
    image_files: int
    upload_seconds: float
    """Uploads are spread over this long, so that every fault meets files in flight."""
    upload_concurrency: int
    nats_restarts: int
    nats_outage: float
    nats_freezes: int
    nats_freeze: float
    """A stalled server (SIGSTOP): connections stay open, flushes time out, and what clients
    wrote in the meantime arrives when it resumes."""
    pg_outage: float
    pg_burst: int
    """Uploads sent at once as PostgreSQL stops, so that some are committing at that moment."""
    core_outage: float
    parser_outage: float
    timings: Timings
    parser_concurrency: int = 1
    seed: int = 20240601

    @property
    def files(self) -> int:
        return self.tabular_files + self.image_files


SHORT = ChaosPlan(
    form="short",
    tabular_files=200,
    image_files=100,
    upload_seconds=25.0,
    upload_concurrency=6,
    nats_restarts=3,
    nats_outage=1.5,
    nats_freezes=1,
    nats_freeze=6.0,
    pg_outage=4.0,
    pg_burst=40,
    core_outage=2.0,
    parser_outage=2.0,
    timings=Timings(
        outbox_poll=0.5,
        ack_timeout=2.0,
        max_republish=3,
        reply_timeout=15.0,
        watchdog_period=0.5,
        mapping_period=0.5,
        max_attempts=3,
    ),
)

LONG = ChaosPlan(
    form="long",
    tabular_files=2000,
    image_files=1200,
    upload_seconds=240.0,
    upload_concurrency=8,
    nats_restarts=6,
    nats_outage=3.0,
    nats_freezes=2,
    nats_freeze=8.0,
    pg_outage=15.0,
    pg_burst=80,
    core_outage=5.0,
    parser_outage=5.0,
    timings=Timings(
        outbox_poll=0.5,
        ack_timeout=3.0,
        max_republish=3,
        reply_timeout=40.0,
        watchdog_period=1.0,
        mapping_period=1.0,
        max_attempts=3,
    ),
)


def selected_plan() -> ChaosPlan:
    form = os.environ.get("CHAOS", "short").strip().lower() or "short"
    if form not in ("short", "long"):
        raise pytest.UsageError(f"CHAOS must be short or long, not {form!r}")
    return LONG if form == "long" else SHORT


@pytest.fixture(scope="session")
def chaos_plan() -> ChaosPlan:
    return selected_plan()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A failsafe only: startup, the paced uploads and two settle periods per phase, so that a
    hung run ends with its logs instead of holding the whole suite."""
    plan = selected_plan()
    budget = 2 * STARTUP_SECONDS + plan.upload_seconds + 6 * plan.timings.settle
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.timeout(budget))


@dataclass
class Service:
    """One named process of the system; each start is a new incarnation with its own log."""

    name: str
    command: list[str]
    env: dict[str, str]
    log_dir: Path
    port: int | None = None
    child: Child | None = None
    incarnations: int = 0
    logs: list[Path] = field(default_factory=list)

    @property
    def log(self) -> Path:
        return self.logs[-1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.incarnations += 1
        path = self.log_dir / f"{self.name}.{self.incarnations}.log"
        self.logs.append(path)
        self.child = Child(self.name, self.command, env=self.env, log_path=path)

    def running(self) -> bool:
        return self.child is not None and self.child.running()

    def kill(self) -> None:
        """SIGKILL to the whole process group: a recognizer's fork server and its job
        children die with the service, as on a crashed host."""
        if self.child is not None:
            self.child.kill()

    def events(self) -> Iterator[dict[str, Any]]:
        """The JSON log lines of the current incarnation (a line cut at the end is skipped)."""
        if not self.logs or not self.log.exists():
            return
        with self.log.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith("{"):
                    with contextlib.suppress(json.JSONDecodeError):
                        yield json.loads(line)


class Cluster:
    """PostgreSQL, nats-server, storage and the processes; faults are methods of it."""

    def __init__(self, plan: ChaosPlan, root: Path, log_dir: Path) -> None:
        self.plan = plan
        self.root = root
        self.log_dir = log_dir
        # Durable (fsync, synchronous commit): the restart is a crash, and a crash must not
        # take back a commit the server has acknowledged.
        self.postgres = EmbeddedPostgres(root / "pg", fast=False)
        self.nats = NatsServer(workdir=log_dir / "nats")
        self.storage_dir = root / "storage"
        self.database_url = ""
        self.services: dict[str, Service] = {}

    @property
    def storage_url(self) -> str:
        return f"file://{self.storage_dir}"

    def base_env(self) -> dict[str, str]:
        # Nothing of the caller's own configuration may leak into the system under test.
        own = ("OPENBAO__", "DATABASE_", "NATS_", "STORAGE_", "S3_", "HTTP_", "WORKER_", "LOG_")
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith(own)}
        env.update(
            DATABASE_URL=self.database_url,
            NATS_URL=self.nats.url,
            STORAGE_URL=self.storage_url,
            LOG_JSON="true",
        )
        return env

    def start_infrastructure(self) -> None:
        self.storage_dir.mkdir(parents=True, exist_ok=True)
        self.postgres.start()
        self.database_url = self.postgres.ensure_database("arm_ka")
        self.nats.start()
        with (self.log_dir / "migrate.log").open("wb") as log:
            subprocess.run(
                [venv_command("arm-core"), "migrate"],
                env=self.base_env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                check=True,
                timeout=STARTUP_SECONDS,
            )

    def add_core(self, name: str) -> Service:
        port = free_port()
        env = {
            **self.base_env(),
            **self.plan.timings.env(),
            "HTTP_PORT": str(port),
            "DATABASE_POOL_SIZE": "8",
            # The development identity: the suite is about the exchange, not sign-in.
            "DEBUG": "true",
        }
        service = Service(name, [venv_command("arm-core")], env, self.log_dir, port=port)
        self.services[name] = service
        return service

    def add_parser(self, name: str) -> Service:
        env = {
            **self.base_env(),
            "WORKER_CONCURRENCY": str(self.plan.parser_concurrency),
            "PUBLISH_RETRY_SECONDS": str(self.plan.timings.ack_timeout / 4),
            "SHUTDOWN_GRACE_SECONDS": "1",
        }
        service = Service(name, [venv_command("tabular-parser")], env, self.log_dir)
        self.services[name] = service
        return service

    @property
    def cores(self) -> list[Service]:
        return [s for s in self.services.values() if s.port is not None]

    @property
    def parsers(self) -> list[Service]:
        return [s for s in self.services.values() if s.port is None]

    def wait_ready(self, service: Service) -> None:
        """A core answers its healthcheck with database and NATS up; a parser has logged
        its NATS connection (its queue subscription is made before that line)."""
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if not service.running():
                raise RuntimeError(f"{service.name} exited; see {service.log}")
            if service.port is not None:
                with contextlib.suppress(httpx.HTTPError, ValueError):
                    body = httpx.get(f"{service.url}/healthcheck", timeout=2).json()
                    if body.get("db") == "ok" and body.get("nats") == "ok":
                        return
            elif any(e.get("event") == "nats_connected" for e in service.events()):
                return
            time.sleep(POLL_SECONDS * 4)
        raise TimeoutError(f"{service.name} not ready within {STARTUP_SECONDS}s; see {service.log}")

    def all_up(self) -> bool:
        return (
            self.postgres.running()
            and self.nats.running()
            and all(s.running() for s in self.services.values())
        )

    def teardown(self) -> None:
        for service in self.services.values():
            service.kill()
        self.nats.stop(kill=True)
        with contextlib.suppress(Exception):
            self.postgres.stop("immediate")
        server_log = self.postgres.datadir / "server.log"
        if server_log.exists():
            shutil.copyfile(server_log, self.log_dir / "postgres.log")

    def log_paths(self) -> list[Path]:
        paths = [p for s in self.services.values() for p in s.logs]
        paths += [self.log_dir / "migrate.log", self.log_dir / "nats" / "nats-server.log"]
        paths.append(self.log_dir / "postgres.log")
        return paths


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    setattr(item, f"chaos_report_{report.when}", report)
    return report


@pytest.fixture
def cluster(
    request: pytest.FixtureRequest, chaos_plan: ChaosPlan, tmp_path: Path
) -> Iterator[Cluster]:
    # Data and storage live outside pytest's basetemp, which another pytest run on the machine
    # may prune; the logs stay under the test's tmp_path, where a failure points to them.
    root = Path(tempfile.mkdtemp(prefix="arm-ka-chaos-"))
    log_dir = tmp_path / "logs"
    if keep := os.environ.get("CHAOS_LOGS"):
        # A long run is expensive to repeat: its logs can be kept where no pruning reaches.
        log_dir = Path(keep).resolve() / f"{chaos_plan.form}-{time.strftime('%Y%m%d-%H%M%S')}"
    log_dir.mkdir(parents=True)
    system = Cluster(chaos_plan, root, log_dir)
    try:
        system.start_infrastructure()
        for name in ("core-a", "core-b"):
            system.add_core(name).start()
        for name in ("parser-1", "parser-2"):
            system.add_parser(name).start()
        for service in system.services.values():
            system.wait_ready(service)
        yield system
    finally:
        system.teardown()
        shutil.rmtree(root, ignore_errors=True)
        call = getattr(request.node, "chaos_report_call", None)
        if call is None or call.failed:
            print("\nchaos logs:\n  " + "\n  ".join(str(p) for p in system.log_paths()))
