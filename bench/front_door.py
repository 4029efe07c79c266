"""Through the front door: uploads over HTTP to arm-core, each service a process of its own
on durable PostgreSQL.

* accepted files/s for 2,000 small XLSX uploads from 16 concurrent clients (stub service),
  and upload -> every file ``RECOGNIZED`` for the same batch;
* on an idle system, upload -> ``RECOGNIZED`` of a 100-row XLSX through the real
  tabular-parser: p50/p90/p99 over 200 uploads one after another, and files/s with 20
  uploads in flight.

    python -m bench front_door
    python -m bench.front_door --uploads 2000 --clients 16 --sequential 200 --in-flight 20
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.full_path import BENCH_USER, profiled, system
from tabular_parser import testing as books

UPLOADS = 2000
CLIENTS = 16
SEQUENTIAL = 200
IN_FLIGHT = 20
# How often a waiting client asks for its file's status.
POLL_SECONDS = 0.005


def _book(accounts: int) -> bytes:
    return books.xlsx([books.general_osv(accounts=accounts, subaccounts=1)])


async def _upload(client: httpx.AsyncClient, content: bytes, number: int) -> str:
    answer = await client.post(
        "/api/v1/files",
        files={"file": (f"ОСВ {number}.xlsx", content)},
    )
    if answer.status_code != 201:
        raise RuntimeError(f"upload {number}: {answer.status_code} {answer.text[:200]}")
    return str(answer.json()["file_id"])


async def _recognised(client: httpx.AsyncClient, file_id: str, poll: float = POLL_SECONDS) -> None:
    while True:
        status = (await client.get(f"/api/v1/files/{file_id}")).json()["status"]
        if status == "RECOGNIZED":
            return
        if status in ("ERROR", "NEEDS_CHECK"):
            raise RuntimeError(f"file {file_id} ended {status}")
        await asyncio.sleep(poll)


async def accepted(url: str, uploads: int, clients: int) -> None:
    content = _book(3)
    numbers = iter(range(uploads))
    file_ids: list[str] = []
    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(
        base_url=url, timeout=60, limits=limits, headers=BENCH_USER
    ) as client:

        async def one_client() -> None:
            for number in numbers:
                file_ids.append(await _upload(client, content, number))

        started = time.perf_counter()
        await asyncio.gather(*(one_client() for _ in range(clients)))
        took = time.perf_counter() - started
        print(
            f"{uploads:,} uploads from {clients} clients accepted in {took:.1f} s:"
            f" {uploads / took:,.0f} files/s"
        )
        for file_id in file_ids:
            await _recognised(client, file_id, 0.05)
        took = time.perf_counter() - started
        print(f"  upload -> all RECOGNIZED: {took:.1f} s, {uploads / took:,.0f} files/s")


async def latency(url: str, sequential: int, in_flight: int) -> None:
    content = _book(50)
    async with httpx.AsyncClient(base_url=url, timeout=60, headers=BENCH_USER) as client:
        took: list[float] = []
        for number in range(sequential):
            started = time.perf_counter()
            await _recognised(client, await _upload(client, content, number))
            took.append((time.perf_counter() - started) * 1000)
        cuts = statistics.quantiles(took, n=100)
        print(
            f"upload -> RECOGNIZED of a 100-row XLSX, {sequential} one after another:"
            f" p50 {cuts[49]:.0f} ms, p90 {cuts[89]:.0f} ms, p99 {cuts[98]:.0f} ms"
        )
        total = in_flight * 5
        slots = asyncio.Semaphore(in_flight)

        async def one(number: int) -> None:
            async with slots:
                # Many waiting clients ask less often, not to load the core they measure.
                await _recognised(client, await _upload(client, content, number), 0.05)

        started = time.perf_counter()
        await asyncio.gather(*(one(n) for n in range(total)))
        took_all = time.perf_counter() - started
        print(
            f"  {in_flight} in flight: {total} files in {took_all:.1f} s,"
            f" {total / took_all:.1f} files/s"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.front_door")
    parser.add_argument("--uploads", type=int, default=UPLOADS)
    parser.add_argument("--clients", type=int, default=CLIENTS)
    parser.add_argument("--sequential", type=int, default=SEQUENTIAL)
    parser.add_argument("--in-flight", type=int, default=IN_FLIGHT)
    parser.add_argument("--profile", type=Path, help="py-spy's stacks of arm-core's uploads")
    args = parser.parse_args(argv if argv is not None else [])
    profile = args.profile.resolve() if args.profile else None
    with tempfile.TemporaryDirectory(prefix="bench-front-door-") as workdir:
        with (
            system(Path(workdir) / "stub") as running,
            profiled(running.watched.processes["arm-core"][0], profile),
        ):
            asyncio.run(accepted(running.url, args.uploads, args.clients))
        with system(Path(workdir) / "parser", "tabular-parser") as running:
            asyncio.run(latency(running.url, args.sequential, args.in_flight))


if __name__ == "__main__":
    main(sys.argv[1:])
