"""Recognition of a 100,000-row trial balance XLSX against python-calamine only reading it.

Each measurement runs in a fresh interpreter (peak RSS is per process), three times; the
median is reported. "read" is calamine opening the book and turning every sheet into Python
rows; "grids" is tabular-parser's reader (sniff, package checks, XLSX outline and format
scan, calamine, grids); "recognise" adds the extraction of documents from the grids; "job"
adds building, validating and encoding the result file, i.e. the whole work of the
sandboxed child. Targets: a 100,000-row trial balance recognised within 3x of read; a
5,000-row one (``ROWS=5000``) read and recognised in under 150 ms.

Every kind runs as tabular-parser's sandboxed child runs its job: without the cyclic garbage
collector (``Recognizer.cyclic_gc``), the bare read included, so that work is compared with
work. "recognise+gc" is the same recognition with the collector on, for reference.

Wall time is what the target is about; CPU time (all threads of the process) is printed
beside it because the reader scans the XLSX XML in a thread while calamine works, so on a
busy machine the wall time depends on a free second core, and the CPU time tells what the
work itself costs.

Run: ``.venv/bin/python -m bench tabular_recognition`` (``ROWS=...`` to change the size).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROWS = int(os.environ.get("ROWS", "100000"))
RUNS = int(os.environ.get("RUNS", "3"))
ACCOUNTS = 20
KINDS = ("read", "grids", "recognise", "recognise+gc", "job")


def _status_mib(field: str) -> float:
    # /proc rather than getrusage: ru_maxrss survives fork and exec, so a child of the big
    # process that built the workbook would report the parent's peak.
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # resets VmHWM to the current RSS


def _measure(kind: str, path: str) -> dict[str, Any]:
    import functools
    import gc
    import io
    import uuid

    import python_calamine

    from recognition_contract import FileType, ServiceInfo
    from recognition_worker import recognize_to_result
    from recognition_worker.results import count_rows
    from tabular_parser.limits import WorkbookLimits
    from tabular_parser.recognize import recognize
    from tabular_parser.sniff import sniff
    from tabular_parser.workbook import read_workbook

    data = Path(path).read_bytes()
    if kind != "recognise+gc":
        gc.disable()
    _reset_peak()
    baseline = _status_mib("VmRSS")
    started = time.perf_counter()
    cpu_started = time.process_time()
    extra: dict[str, Any] = {}
    if kind == "read":
        with python_calamine.CalamineWorkbook.from_filelike(io.BytesIO(data)) as book:
            rows = sum(
                len(book.get_sheet_by_name(name).to_python(skip_empty_area=False))
                for name in book.sheet_names
            )
        extra["rows"] = rows
    elif kind == "grids":
        grids = read_workbook(data, sniff(data), WorkbookLimits()).grids
        extra["rows"] = sum(len(grid.rows) for grid in grids)
    elif kind in ("recognise", "recognise+gc"):
        recognition = recognize(WorkbookLimits(), FileType.XLSX, data, "osv.xlsx")
        extra["rows"] = count_rows(recognition.documents)
        extra["status"] = recognition.status
        extra["warnings"] = len(recognition.warnings) + sum(
            len(d.warnings) for d in recognition.documents
        )
    else:
        result = recognize_to_result(
            functools.partial(recognize, WorkbookLimits()),
            FileType.XLSX,
            data,
            "osv.xlsx",
            job_id=uuid.uuid4(),
            file_id=uuid.uuid4(),
            service=ServiceInfo(name="tabular-parser", version="bench"),
            version="2.0",
        )
        extra["result_mib"] = round(len(result.body) / 1024**2, 1)
        extra["rows"] = result.metrics["rows"]
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": time.process_time() - cpu_started,
        "peak_mib": _status_mib("VmHWM"),
        "baseline_mib": baseline,
        **extra,
    }


def _build(path: Path) -> None:
    from tabular_parser import testing as books

    sheet = books.general_osv(accounts=ACCOUNTS, subaccounts=max(ROWS // ACCOUNTS - 1, 0))
    path.write_bytes(books.xlsx([sheet], capital_shared_strings=True))


def _run(kind: str, path: Path) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, "-m", "bench.tabular_recognition", "--measure", kind, str(path)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return result


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-tabular-") as directory:
        path = Path(directory) / "osv.xlsx"
        started = time.perf_counter()
        _build(path)
        print(
            f"workbook: {ROWS} body rows, {path.stat().st_size / 1024**2:.1f} MiB, "
            f"built in {time.perf_counter() - started:.1f} s",
            flush=True,
        )
        # Kinds take turns, run after run: a machine that speeds up or slows down meanwhile
        # (a shared host) then weighs on every kind alike, and each run gives a paired ratio.
        runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
        for _ in range(RUNS):
            for kind in KINDS:
                runs[kind].append(_run(kind, path))
        medians: dict[str, dict[str, Any]] = {}
        for kind in KINDS:
            done = runs[kind]
            seconds = statistics.median(r["seconds"] for r in done)
            cpu = statistics.median(r["cpu_seconds"] for r in done)
            peak = statistics.median(r["peak_mib"] for r in done)
            base = statistics.median(r["baseline_mib"] for r in done)
            medians[kind] = {"seconds": seconds, "cpu": cpu, "peak": peak, "above": peak - base}
            details = {
                k: v
                for k, v in done[0].items()
                if k not in ("seconds", "cpu_seconds", "peak_mib", "baseline_mib")
            }
            each = ", ".join(f"{r['seconds']:.2f}" for r in done)
            print(
                f"{kind:>12}: {seconds:6.2f} s (runs {each}), CPU {cpu:5.2f} s, "
                f"peak RSS {peak:6.0f} MiB ({peak - base:+.0f} MiB over the loaded interpreter) "
                f"{details}",
                flush=True,
            )
        read = medians["read"]
        for kind in ("grids", "recognise", "recognise+gc", "job"):
            paired = statistics.median(
                r["seconds"] / b["seconds"] for r, b in zip(runs[kind], runs["read"], strict=True)
            )
            print(
                f"{kind} / read: time {medians[kind]['seconds'] / read['seconds']:.2f}x "
                f"(median of paired runs {paired:.2f}x), "
                f"CPU {medians[kind]['cpu'] / read['cpu']:.2f}x, "
                f"memory over baseline {medians[kind]['above'] / max(read['above'], 1):.2f}x",
                flush=True,
            )
        print("target: recognise within 3x of read", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--measure":
        print(json.dumps(_measure(sys.argv[2], sys.argv[3])))
    else:
        main()
