"""How long a large recognised document takes to reach the analyst: the documents page (first
and a middle page), the API's documents, and the XLSX export of a 100,000-row trial balance,
through the real core on embedded PostgreSQL.

    uv run python -m bench documents_page

Prints the median and the slowest of ``RUNS`` requests each; nothing is asserted.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
import structlog

from arm_core.db.migrate import upgrade
from arm_core.settings import CoreSettings
from arm_core.testing import mapped_file, run_core
from arm_ka_devstack.processes import free_port
from bench._stack import local_stack

ROWS = 100_000
RUNS = 5
EXAMPLE = "result-2.0-done-osv-general.json"


def _large(count: int) -> Any:
    def edit(data: dict[str, Any]) -> None:
        doc = data["documents"][0]
        doc["rows"] = [
            {
                "id": n,
                "parent": None if n % 10 == 1 else n - (n - 1) % 10,
                "kind": "account",
                "level": 0 if n % 10 == 1 else 1,
                "code": f"{n:06d}",
                "name": f"Счёт {n}",
                "opening_debit": "9.00" if n % 10 == 1 else "1.00",
                "opening_credit": None,
                "turnover_debit": None,
                "turnover_credit": None,
                "closing_debit": "9.00" if n % 10 == 1 else "1.00",
                "closing_credit": None,
                "confidence": 99,
                "locator": {"sheet": "TDSheet", "row": 8 + n},
            }
            for n in range(1, count + 1)
        ]
        doc["totals"] = None

    return edit


async def _timed(client: Any, path: str) -> tuple[float, float, int]:
    seconds = []
    size = 0
    for _ in range(RUNS):
        started = time.perf_counter()
        answer = await client.get(path, timeout=120)
        seconds.append(time.perf_counter() - started)
        answer.raise_for_status()
        size = len(answer.content)
    return statistics.median(seconds), max(seconds), size


async def run(workdir: Path) -> None:
    with local_stack(workdir) as (pg, server):
        url = pg.ensure_database(f"b_{uuid.uuid4().hex[:8]}")
        upgrade(url)
        settings = CoreSettings(
            database_url=url,  # type: ignore[arg-type]
            nats_url=server.url,
            storage_url=f"file://{workdir / 'storage'}",
            http_port=free_port(),
            debug=True,
            log_json=True,
            mapping_period_seconds=0.2,
        )
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
        file_id = await mapped_file(settings, EXAMPLE, _large(ROWS))
        async with run_core(settings) as core:
            started = time.perf_counter()
            while True:
                async with await psycopg.AsyncConnection.connect(url) as conn:
                    row = await (
                        await conn.execute(
                            "SELECT status FROM stored_file WHERE id = %s", (file_id,)
                        )
                    ).fetchone()
                if row and row[0] in ("RECOGNIZED", "NEEDS_CHECK"):
                    break
                await asyncio.sleep(0.2)
            print(f"mapped {ROWS:,} rows in {time.perf_counter() - started:.1f} s")
            for label, path in (
                ("documents page, first page", f"/ui/files/{file_id}/documents"),
                ("documents page, page 50", f"/ui/files/{file_id}/documents?doc=1&page=50"),
                ("API documents (JSON)", f"/api/v1/files/{file_id}/documents"),
                ("XLSX export", f"/api/v1/files/{file_id}/export?format=xlsx"),
            ):
                median, slowest, size = await _timed(core.client, path)
                print(
                    f"{label}: median {median:.2f} s, slowest {slowest:.2f} s, "
                    f"{size / 1e6:.1f} MB ({RUNS} requests)"
                )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-documents-") as workdir:
        asyncio.run(run(Path(workdir)))


if __name__ == "__main__":
    main()
