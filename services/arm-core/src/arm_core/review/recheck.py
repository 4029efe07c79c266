"""The checks of a corrected document, made again on its corrected values by the very
functions the recognition made them with (``document_extraction.checks``); the warnings that
do not come from arithmetic (a tax id's check digit, a row without a parent) stay as
recognised."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal

from document_extraction.checks import (
    StatementLine,
    balance_mismatch,
    check_statement,
    osv_outliers,
    row_balances,
    sum_warnings,
)
from recognition_contract import (
    MONEY_FIELDS,
    Document,
    Locator,
    Statement,
    Totals,
    TrialBalance,
    TrialBalanceRow,
    Warning,
    amount,
)

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

    def __init__(self, where: Locator, rows: Sequence[Locator | None]) -> None:
        self._where = where
        self._rows = rows

    def where(self) -> Locator:
        return self._where

    def row(self, index: int, column: int | None = None) -> Locator:
        found = self._rows[index] if 0 <= index < len(self._rows) else None
        # A stored locator that names nothing points at the document, as none at all does.
        return found if found is not None and any(v is not None for v in found) else self._where


def _cents(value: str | None) -> int:
    return 0 if value is None else int(Decimal(value) * 100)


def _written(values: TrialBalanceRow | Totals) -> list[int | None]:
    amounts = [getattr(values, key) for key in MONEY_FIELDS]
    return [None if value is None else _cents(value) for value in amounts]


def _label(row: TrialBalanceRow) -> str:
    return row.code or row.name or ""


def _osv(doc: TrialBalance, where: Locator) -> list[Warning]:
    rows = doc.rows
    totals = doc.totals
    locate = _Stored(where, [*(row.locator for row in rows), totals.locator if totals else None])
    found: list[Warning] = []
    children: dict[int, list[int]] = defaultdict(lambda: [0] * 6)
    top = [0] * 6
    amounts = [[_cents(getattr(row, key)) for key in MONEY_FIELDS] for row in rows]
    for index, (row, cents) in enumerate(zip(rows, amounts, strict=True)):
        if not row_balances(cents):
            found.append(balance_mismatch(_label(row), cents, locate.row(index)))
        sums = top if row.parent is None else children[row.parent]
        for i, value in enumerate(cents):
            sums[i] += value
    by_id = {row.id: index for index, row in enumerate(rows)}
    parents = [
        (_label(rows[by_id[parent]]), by_id[parent], _written(rows[by_id[parent]]), sums)
        for parent, sums in children.items()
        if parent in by_id
    ]
    parents.sort(key=lambda item: item[1])
    found += osv_outliers(list(enumerate(amounts)), locate)
    found += sum_warnings(
        parents,
        top,
        _written(totals) if totals else None,
        len(rows) if totals else None,
        list(range(6)),
        locate,
        general=doc.variant == "general",
    )
    return found


def _statement(doc: Statement, where: Locator) -> list[Warning]:
    header = doc.header
    lines = doc.transactions
    locate = _Stored(where, [line.locator for line in lines])
    period = header.period
    return check_statement(
        [
            StatementLine(index, line.date, amount(line.debit), amount(line.credit))
            for index, line in enumerate(lines)
        ],
        amount(header.opening_balance),
        amount(header.closing_balance),
        amount(header.total_debit),
        amount(header.total_credit),
        where,
        (period.start, period.end) if period else None,
        locate,
        None,
    )


def rechecked(doc: Document) -> tuple[Warning, ...]:
    """The warnings of ``doc`` (a document with its corrections applied)."""
    kept = [w for w in doc.warnings if w.code not in ARITHMETIC]
    fresh = (
        _osv(doc, doc.locator) if isinstance(doc, TrialBalance) else _statement(doc, doc.locator)
    )
    return (*kept, *fresh)
