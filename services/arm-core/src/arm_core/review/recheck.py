"""The checks of a corrected document, made again on its corrected values by the very
functions the recognition made them with (``document_extraction.checks``); the warnings that
do not come from arithmetic (a tax id's check digit, a row without a parent) stay as
recognised."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from arm_core.db.tables import ROW_MONEY
from document_extraction.checks import (
    StatementLine,
    balance_mismatch,
    check_statement,
    osv_outliers,
    row_balances,
    sum_warnings,
)
from recognition_contract import Locator, Warning, locator_from_wire, warning_to_wire

# The warnings the arithmetic of a document raises, re-made from the corrected values.
ARITHMETIC = frozenset(
    {
        "ROW_BALANCE_MISMATCH",
        "PARENT_SUM_MISMATCH",
        "TOTALS_MISMATCH",
        "DEBIT_CREDIT_MISMATCH",
        "BALANCE_MISMATCH",
        "BALANCE_MISSING",
        "OPENING_BALANCE_NOT_PRINTED",
        "DATE_OUTSIDE_PERIOD",
        "AMOUNT_OUTLIER",
    }
)


class _Stored:
    """Where warnings point, from the locators the document keeps: row ``i`` is the
    document's i-th row or transaction (one past the last: its totals)."""

    def __init__(self, where: Locator, rows: list[Locator | None]) -> None:
        self._where = where
        self._rows = rows

    def where(self) -> Locator:
        return self._where

    def row(self, index: int, column: int | None = None) -> Locator:
        found = self._rows[index] if 0 <= index < len(self._rows) else None
        return found or self._where


def _locator(data: dict[str, Any] | None) -> Locator | None:
    return locator_from_wire(data) if data else None


def _cents(value: str | None) -> int:
    return 0 if value is None else int(Decimal(value) * 100)


def _written(values: dict[str, Any]) -> list[int | None]:
    return [None if values.get(key) is None else _cents(values[key]) for key in ROW_MONEY]


def _osv(doc: dict[str, Any], where: Locator) -> list[Warning]:
    rows = doc["rows"]
    totals = doc.get("totals")
    locate = _Stored(
        where,
        [_locator(row["locator"]) for row in rows] + [_locator((totals or {}).get("locator"))],
    )
    found: list[Warning] = []
    children: dict[Any, list[int]] = defaultdict(lambda: [0] * 6)
    top = [0] * 6
    for index, row in enumerate(rows):
        cents = [_cents(row[key]) for key in ROW_MONEY]
        if not row_balances(cents):
            found.append(
                balance_mismatch(row["account"] or row["name"] or "", cents, locate.row(index))
            )
        sums = top if row["parent"] is None else children[row["parent"]]
        for i, value in enumerate(cents):
            sums[i] += value
    by_id = {row["id"]: index for index, row in enumerate(rows)}
    parents = [
        (
            rows[by_id[parent]]["account"] or rows[by_id[parent]]["name"] or "",
            by_id[parent],
            _written(rows[by_id[parent]]),
            sums,
        )
        for parent, sums in children.items()
        if parent in by_id
    ]
    parents.sort(key=lambda item: item[1])
    found += osv_outliers(
        [(index, [_cents(row[key]) for key in ROW_MONEY]) for index, row in enumerate(rows)],
        locate,
    )
    found += sum_warnings(
        parents,
        top,
        _written(totals) if totals else None,
        len(rows) if totals else None,
        list(range(6)),
        locate,
        general=doc.get("variant") == "general",
    )
    return found


def _statement(doc: dict[str, Any], where: Locator) -> list[Warning]:
    header = doc.get("header") or {}
    lines = doc["transactions"]
    locate = _Stored(where, [_locator(line["locator"]) for line in lines])
    period = header.get("period") or {}

    def amount(value: str | None) -> Decimal | None:
        return None if value is None else Decimal(value)

    return check_statement(
        [
            StatementLine(index, line["date"], amount(line["debit"]), amount(line["credit"]))
            for index, line in enumerate(lines)
        ],
        amount(header.get("opening_balance")),
        amount(header.get("closing_balance")),
        amount(header.get("total_debit")),
        amount(header.get("total_credit")),
        where,
        (period.get("from"), period.get("to")) if period else None,
        locate,
        None,
    )


def rechecked(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The warnings of ``doc`` (a document view with its corrections applied)."""
    where = _locator(doc.get("locator")) or Locator()
    kept = [w for w in doc["warnings"] if w["code"] not in ARITHMETIC]
    fresh = _osv(doc, where) if doc["kind"] == "osv" else _statement(doc, where)
    return kept + [_wire(w) for w in fresh]


def _wire(warning: Warning) -> dict[str, Any]:
    wire = warning_to_wire(warning, 2)
    assert isinstance(wire, dict)
    return wire
