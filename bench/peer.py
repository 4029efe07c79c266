"""arm-core's whole path against a general PostgreSQL job queue, on the same server: rounds of
``full_path`` (N files through mapping) interleaved with procrastinate draining N no-op jobs
with as many concurrent workers as the core has database connections. Printed: both rates
in each round and their ratio.

    python -m bench peer                  # 10,000 jobs, three rounds
    python -m bench.peer --jobs 100000 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path

import procrastinate

from arm_core.settings import CoreSettings
from bench.full_path import JOBS, batch, system

ROUNDS = 3


async def drain(dsn: str, jobs: int, concurrency: int) -> float:
    """Defer ``jobs`` no-op jobs, then time one worker draining them; jobs/s."""
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=dsn))

    @app.task(name="noop")
    async def noop() -> None:
        return None

    async with app.open_async():
        step = 10_000
        for done in range(0, jobs, step):
            await noop.batch_defer_async(*({} for _ in range(min(step, jobs - done))))
        started = time.perf_counter()
        await app.run_worker_async(
            concurrency=concurrency, wait=False, install_signal_handlers=False
        )
        return jobs / (time.perf_counter() - started)


async def _schema(dsn: str) -> None:
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=dsn))
    async with app.open_async():
        await app.schema_manager.apply_schema_async()


def run(workdir: Path, jobs: int, rounds: int) -> None:
    concurrency = CoreSettings.model_fields["database_pool_size"].default
    logging.getLogger("procrastinate").setLevel(logging.WARNING)
    with system(workdir) as running:
        peer_dsn = running.pg.ensure_database("procrastinate")
        asyncio.run(_schema(peer_dsn))
        ratios = []
        for number in range(1, rounds + 1):
            print(f"-- round {number}")
            ours = batch(running.dsn, running.watched, jobs)
            theirs = asyncio.run(drain(peer_dsn, jobs, concurrency))
            ratios.append(ours / theirs)
            print(
                f"procrastinate ({concurrency} workers): {jobs:,} no-op jobs at"
                f" {theirs:,.0f} jobs/s; arm-core's whole path {ours / theirs:.1f}x that"
            )
    print("ratios: " + ", ".join(f"{r:.1f}x" for r in ratios))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.peer")
    parser.add_argument("--jobs", type=int, default=JOBS)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv if argv is not None else [])
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as workdir:
        run(Path(workdir), args.jobs, args.rounds)


if __name__ == "__main__":
    main(sys.argv[1:])
