"""Share of trial balance rows the C kernel writes, per corpus layout family (XLSX, XLS, XLSB).

The kernel (document_extraction/_osvbody.c) takes the common rows and leaves the rest to the
Python loop; a family with a low share is one whose large files recognise at Python speed.

Run: ``.venv/bin/python -m bench kernel_share`` (``PER_FAMILY=...`` layouts per family).
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import document_extraction.osv as osv
from recognition_contract import FileType
from recognition_corpus import FORMATS, generate
from recognition_corpus.writers import write
from recognition_worker import RecognitionError
from tabular_parser.limits import WorkbookLimits
from tabular_parser.recognize import recognize

PER_FAMILY = int(os.environ.get("PER_FAMILY", "5"))


def main() -> None:
    kernel = osv.plain_rows
    if kernel is None:
        print("the C kernel is not built: every row is written by Python")
        return
    taken = [0]

    def counting(*args: Any) -> tuple[int, int, int | None]:
        result = kernel(*args)
        taken[0] += result[0] - args[1]
        return result

    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    osv.plain_rows = counting
    try:
        with tempfile.TemporaryDirectory(prefix="bench-kernel-") as directory:
            for layout in generate(0, PER_FAMILY):
                for fmt in FORMATS:
                    path = Path(directory) / f"{layout.name}.{fmt}"
                    write(layout, path, fmt)
                    before = taken[0]
                    try:
                        recognition = recognize(
                            WorkbookLimits(), FileType(fmt.upper()), path.read_bytes(), path.name
                        )
                    except RecognitionError:
                        continue
                    finally:
                        path.unlink()
                    written = sum(len(d["rows"]) for d in recognition.documents if "rows" in d)
                    rows[layout.family][0] += taken[0] - before
                    rows[layout.family][1] += written
    finally:
        osv.plain_rows = kernel
    print("| layout family | rows by the kernel |")
    print("|---|---|")
    for family, (by_kernel, total) in sorted(rows.items()):
        if total:
            print(f"| {family} | {by_kernel}/{total} ({100 * by_kernel / total:.0f}%) |")
    by_kernel = sum(v[0] for v in rows.values())
    total = sum(v[1] for v in rows.values())
    print(f"| **all** | {by_kernel}/{total} ({100 * by_kernel / max(total, 1):.0f}%) |")


if __name__ == "__main__":
    main()
