"""The whole path through mapping, with arm-core, a stub service, PostgreSQL and nats-server
each a process of its own, and real file storage:

    queued -> published -> processing -> done -> mapped (documents written, file RECOGNIZED)

N files are registered with their jobs in one statement; the stub acks each request at once
and answers ``done`` with a small valid trial balance written to storage; arm-core maps it.
Printed: jobs/s end to end, p50/p90/p99 of each stage, CPU seconds per 1,000 jobs of each
process (PostgreSQL: every backend), peak and final RSS. Batches run one after another in the
same database, so the cost's growth with history shows; ``--history`` first adds that many
finished, mapped files (with a document each) in bulk.

    python -m bench full_path                      # 10,000 jobs, durable PostgreSQL
    python -m bench.full_path --jobs 100000 --batches 2 --history 1000000
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import httpx
import psutil
import psycopg

from arm_core.db.ids import first_id_of
from arm_core.db.migrate import upgrade
from arm_core.settings import CoreSettings
from arm_core.testing import QUEUED_FILES, RECOGNISED_FILES
from arm_ka_devstack.postgres import EmbeddedPostgres
from arm_ka_devstack.processes import Child, free_port, venv_command
from bench._stack import local_stack
from bench._stub import READY

JOBS = 10_000
SAMPLE_SECONDS = 0.5
START_SECONDS = 60.0


STAGES = """
SELECT stage,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY ms) AS p90,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
  FROM recognition_job j,
       LATERAL (VALUES
           (1, 'queued -> published', j.published_at - j.requested_at),
           (2, 'published -> processing', j.started_at - j.published_at),
           (3, 'processing -> done', j.finished_at - j.started_at),
           (4, 'done -> mapped', j.mapped_at - j.finished_at),
           (5, 'queued -> mapped', j.mapped_at - j.requested_at)
       ) AS s(n, stage, took),
       LATERAL (SELECT extract(epoch FROM took) * 1000 AS ms) AS m
 WHERE j.id >= %(first)s
 GROUP BY n, stage
 ORDER BY n
"""


@dataclass
class Usage:
    """CPU seconds and resident memory of one process (or of a PostgreSQL and its backends)."""

    cpu_start: float = 0.0
    cpu: float = 0.0
    rss_start: int = 0
    rss_peak: int = 0
    rss: int = 0
    rss_samples: list[int] = field(default_factory=list)


def _cpu_and_rss(pids: list[int], reaped_of: int | None) -> tuple[float, int]:
    """CPU seconds and memory of the processes; memory as PSS, so that the shared memory of
    PostgreSQL's backends is counted once, not once per backend."""
    cpu, rss = 0.0, 0
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            process = psutil.Process(pid)
            times = process.cpu_times()
            cpu += times.user + times.system
            rss += process.memory_full_info().pss
    if reaped_of is not None:
        # Backends that ended are counted in their postmaster's children times.
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            times = psutil.Process(reaped_of).cpu_times()
            cpu += times.children_user + times.children_system
    return cpu, rss


class Watched:
    """The processes of the run, sampled: each name's pids, and the postmaster's reaped."""

    def __init__(self, processes: dict[str, list[int]], postmaster: int) -> None:
        self.processes = processes
        self.postmaster = postmaster
        self.usage = {name: Usage() for name in [*processes, "postgres"]}

    def _pids(self, name: str) -> tuple[list[int], int | None]:
        if name == "postgres":
            root = psutil.Process(self.postmaster)
            return [self.postmaster, *(c.pid for c in root.children())], self.postmaster
        return self.processes[name], None

    def sample(self, *, start: bool = False) -> None:
        for name, usage in self.usage.items():
            cpu, rss = _cpu_and_rss(*self._pids(name))
            if start:
                usage.cpu_start = cpu
                usage.rss_start = rss
                usage.rss_peak = rss
            usage.cpu = cpu - usage.cpu_start
            usage.rss = rss
            usage.rss_peak = max(usage.rss_peak, rss)
            usage.rss_samples.append(rss)


def _postmaster(pg: EmbeddedPostgres) -> int:
    return int((pg.datadir / "postmaster.pid").read_text().split()[0])


def _wait_for_line(path: Path, line: str, child: Child) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if not child.running():
            raise RuntimeError(f"{child.name} exited: see {path}")
        if path.exists() and line in path.read_text(errors="replace"):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{child.name} did not start in {START_SECONDS:.0f} s: see {path}")


def _wait_healthy(url: str, child: Child, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if not child.running():
            raise RuntimeError(f"arm-core exited: see {log}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/healthcheck", timeout=1.0).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"arm-core was not healthy in {START_SECONDS:.0f} s: see {log}")


# Who the benches' requests come from: arm-core trusts this header as behind a proxy.
USER_HEADER = "X-Remote-User"
BENCH_USER = {USER_HEADER: "bench"}


@dataclass
class System:
    pg: EmbeddedPostgres
    dsn: str
    url: str
    """arm-core's HTTP address."""
    watched: Watched


@contextlib.contextmanager
def system(
    workdir: Path, service: Literal["stub", "tabular-parser"] = "stub", cores: int = 1
) -> Iterator[System]:
    """PostgreSQL (durable), nats-server, a recognition service (the stub, or the real
    tabular-parser) and ``cores`` arm-core processes on the one database, each a process
    of its own, started and ready (``url``: the first core's)."""
    with local_stack(workdir, durable=True) as (pg, server):
        dsn = pg.ensure_database("arm_ka")
        upgrade(dsn)
        storage_url = f"file://{workdir / 'storage'}"
        settings = CoreSettings(database_url=dsn, nats_url=server.url, storage_url=storage_url)  # type: ignore[arg-type]
        subjects = settings.subjects
        logs = workdir / "logs"
        logs.mkdir()
        own = ("OPENBAO__", "DATABASE_", "NATS_", "STORAGE_", "S3_", "HTTP_", "LOG_", "MAPPING_")
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith(own)}
        env.update(NATS_URL=server.url, STORAGE_URL=storage_url, LOG_JSON="true")
        if service == "stub":
            argv = [
                sys.executable,
                "-m",
                "bench._stub",
                server.url,
                storage_url,
                settings.storage_bucket,
                subjects.tabular_request,
                subjects.result,
            ]
            ready = READY
        else:
            argv, ready = [venv_command("tabular-parser")], '"nats_connected"'
            # A job per core of the machine, as a deployment would run it.
            env["WORKER_CONCURRENCY"] = str(os.cpu_count() or 1)
        recognizer = Child(service, argv, env=env, log_path=logs / f"{service}.log")
        ports = [free_port() for _ in range(cores)]
        instances = [
            Child(
                "arm-core",
                [venv_command("arm-core")],
                # Signed in as behind a proxy, logging at INFO, as deployed: the development
                # identity (DEBUG) would also write every job's debug lines.
                env={
                    **env,
                    "DATABASE_URL": dsn,
                    "HTTP_PORT": str(port),
                    "AUTH_USER_HEADER": USER_HEADER,
                    "AUTH_TRUSTED_PROXIES": '["127.0.0.1"]',
                },
                log_path=logs / f"core-{number}.log",
            )
            for number, port in enumerate(ports, start=1)
        ]
        try:
            _wait_for_line(logs / f"{service}.log", ready, recognizer)
            for number, (port, core) in enumerate(zip(ports, instances, strict=True), start=1):
                _wait_healthy(f"http://127.0.0.1:{port}", core, logs / f"core-{number}.log")
            nats_pid = server.pid
            assert nats_pid is not None
            watched = Watched(
                {
                    "arm-core": [core.pid for core in instances],
                    service: [recognizer.pid],
                    "nats-server": [nats_pid],
                },
                _postmaster(pg),
            )
            yield System(pg, dsn, f"http://127.0.0.1:{ports[0]}", watched)
        finally:
            for core in instances:
                core.stop()
            recognizer.stop()


def _history(dsn: str, count: int) -> None:
    step = 100_000
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("ALTER TABLE recognition_job DISABLE TRIGGER recognition_job_queued")
        try:
            for done in range(0, count, step):
                conn.execute(RECOGNISED_FILES, {"n": min(step, count - done)})
        finally:
            conn.execute("ALTER TABLE recognition_job ENABLE TRIGGER recognition_job_queued")
        conn.execute("VACUUM ANALYZE")


# What the server wrote and read, whoever for: counts that do not depend on how busy the
# machine is, unlike its CPU seconds.
SERVER_IO = """
SELECT w.wal_records, w.wal_fpi, w.wal_bytes, d.blks_read, d.blks_hit
  FROM pg_stat_wal w,
       (SELECT sum(blks_read) AS blks_read, sum(blks_hit) AS blks_hit FROM pg_stat_database) d
"""


def batch(dsn: str, watched: Watched, jobs: int) -> float:
    """Register ``jobs`` files and wait for every one to be RECOGNIZED; print the figures."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        # The batch's files and jobs are those with ids from this millisecond on: the bench's
        # own queries read them off the primary keys, so they cost the same however much
        # history the tables hold (counting every RECOGNIZED file twice a second did not).
        millis = conn.execute(
            "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
        ).fetchone()[0]  # type: ignore[index]
        batch_ids = {"first": first_id_of(millis)}
        io_before = conn.execute(SERVER_IO).fetchone()
        watched.sample(start=True)
        started = time.perf_counter()
        conn.execute(QUEUED_FILES, {"n": jobs})
        while True:
            time.sleep(SAMPLE_SECONDS)
            watched.sample()
            done = conn.execute(
                "SELECT count(*) FROM stored_file WHERE id >= %(first)s AND status = 'RECOGNIZED'",
                batch_ids,
            ).fetchone()[0]  # type: ignore[index]
            if done >= jobs:
                break
        elapsed = time.perf_counter() - started
        watched.sample()
        io_after = conn.execute(SERVER_IO).fetchone()
        stages = conn.execute(STAGES, batch_ids).fetchall()
        republished = conn.execute(
            "SELECT count(*) FROM recognition_job WHERE id >= %(first)s AND republish_count > 0",
            batch_ids,
        ).fetchone()[0]  # type: ignore[index]
    rate = jobs / elapsed
    print(
        f"{jobs:,} jobs through mapping: {elapsed:.1f} s, {rate:,.0f} jobs/s;"
        f" requests sent again for want of an ack: {republished}"
    )
    for _, stage, p50, p90, p99 in ((None, *row) for row in stages):
        print(f"  {stage:<24} p50 {p50:8.1f} ms  p90 {p90:8.1f} ms  p99 {p99:8.1f} ms")
    assert io_before is not None
    assert io_after is not None
    records, images, wal, read, found = (
        (after - before) / jobs for before, after in zip(io_before, io_after, strict=True)
    )
    print(
        f"  PostgreSQL per job: {records:.1f} WAL records, {wal:,.0f} WAL bytes,"
        f" {images:.2f} whole-page images; {read:.1f} pages read into its buffers,"
        f" {found:.0f} found there"
    )
    for name, usage in watched.usage.items():
        per_thousand = usage.cpu / jobs * 1000
        print(
            f"  {name:<12} {per_thousand:6.2f} CPU s / 1,000 jobs;"
            f" memory (PSS) {usage.rss_start / 2**20:6.1f} MiB at the start,"
            f" peak {usage.rss_peak / 2**20:6.1f}, at the end {usage.rss / 2**20:6.1f}"
        )
    return rate


@contextlib.contextmanager
def profiled(pid: int, out: Path | None) -> Iterator[None]:
    """py-spy samples the process into ``out`` (collapsed stacks) while the block runs."""
    if out is None:
        yield
        return
    spy = Child(
        "py-spy",
        [venv_command("py-spy"), "record", "--pid", str(pid), "--format", "raw", "-o", str(out)],
        log_path=out.with_suffix(".log"),
    )
    try:
        yield
    finally:
        spy.stop(sig=signal.SIGINT, timeout=30)
        print(f"profile of arm-core: {out}")


def run(
    workdir: Path,
    jobs: int,
    batches: int,
    history: int,
    profile: Path | None = None,
    cores: int = 1,
) -> list[float]:
    with system(workdir, cores=cores) as running:
        if history:
            started = time.perf_counter()
            _history(running.dsn, history)
            print(
                f"history: {history:,} mapped files added in {time.perf_counter() - started:.0f} s"
            )
        with profiled(running.watched.processes["arm-core"][0], profile):
            return [batch(running.dsn, running.watched, jobs) for _ in range(batches)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.full_path")
    parser.add_argument("--jobs", type=int, default=JOBS)
    parser.add_argument("--batches", type=int, default=2)
    parser.add_argument("--history", type=int, default=0)
    parser.add_argument("--profile", type=Path, help="py-spy's collapsed stacks of arm-core")
    parser.add_argument("--cores", type=int, default=1, help="arm-core processes")
    args = parser.parse_args(argv if argv is not None else [])
    profile = args.profile.resolve() if args.profile else None
    with tempfile.TemporaryDirectory(prefix="bench-full-path-") as workdir:
        rates = run(Path(workdir), args.jobs, args.batches, args.history, profile, args.cores)
    print("batches: " + ", ".join(f"{rate:,.0f}" for rate in rates) + " jobs/s")


if __name__ == "__main__":
    main(sys.argv[1:])
