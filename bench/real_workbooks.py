"""Real trial balances and statements as workbooks, from public repositories, against the
truth written for them by hand (``bench/real/workbooks.json``; the files stay out of this
repository).

    python -m bench.real_workbooks [--mirror /work/.mirror] [--show]

Each file goes through tabular-parser's recognizer as a job would. A trial balance is right
when its Итого and its number of rows are the file's (where the manifest's number of rows is
null the layout has no one count of rows, and its Итого alone is compared); a statement when
its operations (count, debit and credit sums) and the balances the file prints are. A file is
"flagged" when a figure is off but the file needs a check; "done while wrong" when it is marked
done. Numbers are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from bench.real_documents import DEFAULT_MIRROR, MANIFESTS, git_show
from recognition_contract import FileType, Statement, TrialBalance
from recognition_corpus.compare_exports import statement_figures
from recognition_worker import RecognitionError
from tabular_parser.limits import WorkbookLimits
from tabular_parser.recognize import recognize

MONEY = (
    "opening_debit", "opening_credit", "turnover_debit",
    "turnover_credit", "closing_debit", "closing_credit",
)  # fmt: skip


def _d(value: Any) -> Decimal | None:
    return Decimal(str(value)) if value is not None else None


def judge(item: dict[str, Any], data: bytes) -> tuple[str, list[str]]:
    file_type = FileType.XLS if item["path"].lower().endswith(".xls") else FileType.XLSX
    try:
        recognition = recognize(WorkbookLimits(), file_type, data, Path(item["path"]).name)
    except RecognitionError as exc:
        return f"error {exc.code.value}", [exc.message]
    on_sheet = [d for d in recognition.documents if d.locator.sheet == item["sheet"]]
    if item["kind"] == "osv":
        found = [d for d in on_sheet if isinstance(d, TrialBalance)]
        return recognition.status, _osv_diffs(item, found[0]) if found else ["no trial balance"]
    statements = [d for d in on_sheet if isinstance(d, Statement)]
    return recognition.status, _statement_diffs(item, statements[0]) if statements else [
        "no statement"
    ]


def _osv_diffs(item: dict[str, Any], document: TrialBalance) -> list[str]:
    diffs = []
    if item["rows"] is not None and len(document.rows) != item["rows"]:
        diffs.append(f"rows {len(document.rows)}, truth {item['rows']}")
    truth = item.get("totals")
    got = document.totals
    if truth is not None:
        for key in MONEY:
            value = _d(getattr(got, key)) if got is not None else None
            if (value or 0) != (_d(truth[key]) or 0):
                diffs.append(f"totals {key} {value}, truth {truth[key]}")
    return diffs


def _statement_diffs(item: dict[str, Any], document: Statement) -> list[str]:
    got = statement_figures(document)
    truth = {
        "count": item["operations"],
        "debits": _d(item["debits"]),
        "credits": _d(item["credits"]),
        "opening": _d(item.get("opening")),
        "closing": _d(item.get("closing")),
    }
    return [
        f"{key} {got[key]}, truth {value}"
        for key, value in truth.items()
        if value is not None and got[key] != value
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mirror", default=os.environ.get("REAL_DOCUMENTS_MIRROR", DEFAULT_MIRROR))
    parser.add_argument("--show", action="store_true", help="print every difference")
    args = parser.parse_args(argv if argv is not None else [])
    items = json.loads((MANIFESTS / "workbooks.json").read_text())["files"]
    right = flagged = done_wrong = read = 0
    for item in items:
        data = git_show(Path(args.mirror), item["repo"], item["commit"], item["path"])
        if data is None:
            print(f"  (not in the mirror) {item['repo']} {item['path']}")
            continue
        read += 1
        started = time.perf_counter()
        status, diffs = judge(item, data)
        seconds = time.perf_counter() - started
        right += not diffs
        flagged += bool(diffs) and status != "done"
        done_wrong += bool(diffs) and status == "done"
        mark = "ok " if not diffs else ("BAD" if status == "done" else "chk")
        print(f"  {mark} {status:<18} {seconds * 1000:6.0f} ms  {item['repo']} {item['path']}")
        for line in diffs if args.show else diffs[:3]:
            print(f"        {line}")
    print(
        f"{right} of {read} real workbooks right, {flagged} flagged for a check; "
        f"marked done while wrong: {done_wrong}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
