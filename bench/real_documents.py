"""Real statements exported by banks, from public repositories, against the truth written for
them by hand (``bench/real/*.json``: repository, commit, path, truth; the files stay out of this
repository).

    python -m bench.real_documents [--mirror /work/.mirror] [--show]

Each file is read from a local snapshot of its repository (``<mirror>/<owner>+<name>/repo``, a
bare git directory; ``REAL_DOCUMENTS_MIRROR`` overrides the default) at the manifest's commit.
Per file: the status given, and per account whether the operations (count, debit and credit
sums) and the balances (opening and closing) are the file's. A file is right when every figure
is; "done while wrong" counts files marked done with any figure off. Numbers are reported, never
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from document_extraction.exchange import Refused, exchange_format, read_exchange
from recognition_contract import Statement
from recognition_corpus.compare_exports import statement_figures

MANIFESTS = Path(__file__).with_name("real")
DEFAULT_MIRROR = "/work/.mirror"


@dataclass
class Account:
    """What a statement of one account must say, from a manifest."""

    account: str
    count: int
    debits: Decimal
    credits: Decimal
    opening: Decimal | None
    closing: Decimal | None


@dataclass
class Case:
    repo: str
    commit: str
    path: str
    accounts: list[Account]
    refused: bool = False
    """The file is no statement (empty, garbage, keys destroyed): an error is right."""
    notes: list[str] = field(default_factory=list)


def cases() -> list[Case]:
    found: list[Case] = []
    for path in sorted(MANIFESTS.glob("*.json")):
        if path.name == "workbooks.json":  # bench.real_workbooks reads those
            continue
        for item in json.loads(path.read_text())["files"]:
            found.append(_onec_case(item) if "accounts" in item else _swift_case(item))
    return found


def _d(value: Any) -> Decimal | None:
    return Decimal(value) if value is not None else None


def _onec_case(item: dict[str, Any]) -> Case:
    accounts = [
        Account(
            a["account"],
            a["credit_count"] + a["debit_count"],
            Decimal(a["debits_documents"]),
            Decimal(a["credits_documents"]),
            _d(a.get("opening")),
            _d(a.get("closing")),
        )
        for a in item["accounts"]
    ]
    refused = item.get("expected") == "refused"
    return Case(item["repo"], item["commit"], item["path"], accounts, refused)


def _swift_case(item: dict[str, Any]) -> Case:
    merged: dict[str, Account] = {}
    for s in item["statements"]:
        account = s["account"].split()[0].replace(" ", "").upper()
        known = merged.get(account)
        if known is None:
            merged[account] = Account(
                account,
                s["credit_count"] + s["debit_count"],
                Decimal(s["debits"]),
                Decimal(s["credits"]),
                _d(s["opening"]),
                _d(s["closing"]),
            )
        else:
            known.count += s["credit_count"] + s["debit_count"]
            known.debits += Decimal(s["debits"])
            known.credits += Decimal(s["credits"])
            known.closing = _d(s["closing"])
    return Case(item["repo"], item["commit"], item["path"], list(merged.values()))


def source(case: Case, mirror: Path) -> bytes | None:
    return git_show(mirror, case.repo, case.commit, case.path)


def git_show(mirror: Path, repo: str, commit: str, path: str) -> bytes | None:
    """A file of a repository's snapshot in the mirror, or None when it is not there."""
    git = mirror / repo.replace("/", "+") / "repo"
    if not git.exists():
        return None
    shown = subprocess.run(
        ["git", "--git-dir", str(git), "show", f"{commit}:{path}"],
        capture_output=True,
        check=False,
    )
    return shown.stdout if shown.returncode == 0 else None


def judge(case: Case, data: bytes) -> tuple[str, list[str]]:
    """The status given and what differs from the truth."""
    if exchange_format(data[:1024]) is None:
        return "refused at upload", [] if case.refused else ["refused at upload"]
    try:
        read = read_exchange(data)
    except Refused as exc:
        return f"error {exc.code.value}", [] if case.refused else [exc.reason]
    if case.refused:
        return read.extraction.status, ["read a file that is no statement"]
    documents = {d.header.account: d for d in read.extraction.documents if isinstance(d, Statement)}
    diffs: list[str] = []
    for truth in case.accounts:
        document = documents.get(truth.account) or _by_suffix(documents, truth.account)
        if document is None:
            diffs.append(f"{truth.account}: no statement")
            continue
        got = statement_figures(document)
        diffs += [
            f"{truth.account}: {key} {value}, truth {getattr(truth, key)}"
            for key, value in got.items()
            if value != getattr(truth, key)
        ]
    return read.extraction.status, diffs


def _by_suffix(documents: dict[str | None, Statement], account: str) -> Statement | None:
    return next((d for a, d in documents.items() if a and a.endswith(account)), None)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mirror", default=os.environ.get("REAL_DOCUMENTS_MIRROR", DEFAULT_MIRROR))
    parser.add_argument("--show", action="store_true", help="print every difference")
    args = parser.parse_args(argv if argv is not None else [])
    right = wrong_done = missing = 0
    every = cases()
    for case in every:
        data = source(case, Path(args.mirror))
        if data is None:
            missing += 1
            print(f"  (not in the mirror) {case.repo} {case.path}")
            continue
        started = time.perf_counter()
        status, diffs = judge(case, data)
        seconds = time.perf_counter() - started
        right += not diffs
        wrong_done += bool(diffs) and status == "done"
        mark = "ok " if not diffs else "BAD"
        print(f"  {mark} {status:<18} {seconds * 1000:6.0f} ms  {case.repo} {case.path}")
        for line in diffs if args.show else diffs[:2]:
            print(f"        {line}")
    read = len(every) - missing
    print(f"{right} of {read} real files right; marked done while wrong: {wrong_done}")


if __name__ == "__main__":
    main(sys.argv[1:])
