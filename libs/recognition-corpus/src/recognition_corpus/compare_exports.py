"""A generated export read back and compared with the data it was built from."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from document_extraction.exchange import Refused, read_exchange
from recognition_contract import Statement
from recognition_corpus.exports import Export


def export_differences(item: Export) -> tuple[list[str], str]:
    """What the reader got wrong, and the status it gave (``error`` when it refused). Figures
    of a file whose data calls for a check are compared by operations only: its printed
    balances disagree on purpose."""
    try:
        read = read_exchange(item.data)
    except Refused as exc:
        return [f"refused: {exc.code.value} {exc.reason}"], "error"
    status = read.extraction.status
    found: list[str] = []
    expected = "needs_check" if any(t.status == "needs_check" for t in item.truth) else "done"
    if status != expected:
        found.append(f"status {status}, expected {expected}")
    documents = {d.header.account: d for d in read.extraction.documents if isinstance(d, Statement)}
    for truth in item.truth:
        document = documents.get(truth.account)
        if document is None:
            found.append(f"{truth.account}: no statement")
            continue
        got = statement_figures(document)
        if truth.status != "done":
            del got["opening"], got["closing"]
        found += [
            f"{truth.account}: {key} {value}, expected {getattr(truth, key)}"
            for key, value in got.items()
            if value != getattr(truth, key)
        ]
    return found, status


def statement_figures(document: Statement) -> dict[str, Any]:
    """What a statement's truth is written in: the number of operations, the debit and credit
    sums, the opening and closing balances."""
    lines = document.transactions
    return {
        "count": len(lines),
        "debits": sum((Decimal(t.debit) for t in lines if t.debit), Decimal(0)),
        "credits": sum((Decimal(t.credit) for t in lines if t.credit), Decimal(0)),
        "opening": _decimal(document.header.opening_balance),
        "closing": _decimal(document.header.closing_balance),
    }


def _decimal(text: str | None) -> Decimal | None:
    return Decimal(text) if text is not None else None
