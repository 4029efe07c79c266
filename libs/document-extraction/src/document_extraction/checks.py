"""Accounting checks. A failure is a warning pointing at the row; numbers are never changed."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from document_extraction.findings import INFO, Locating, warning
from document_extraction.identifiers import (
    iban_valid,
    looks_like_iban,
    tax_id_kind,
    tax_id_valid,
)
from document_extraction.numbers import format_cents, format_money
from recognition_contract import Locator, Warning

ZERO = Decimal(0)
_COLUMN_NAMES = (
    "сальдо на начало Дт",
    "сальдо на начало Кт",
    "обороты за период Дт",
    "обороты за период Кт",
    "сальдо на конец Дт",
    "сальдо на конец Кт",
)


def _z(value: Decimal | None) -> Decimal:
    return ZERO if value is None else value


def _m(value: Decimal) -> str:
    return format_money(value) or "0.00"


def _c(cents: int) -> str:
    return format_cents(cents) or "0.00"


def _cents_or_none(value: Decimal | None) -> int | None:
    return None if value is None else int(value * 100)


def row_balances(v: Sequence[int]) -> bool:
    """Whether a trial balance row's closing balance is its opening balance plus its turnover
    (``v``: the six amounts in cents, empty as 0)."""
    return v[0] - v[1] + v[2] - v[3] == v[4] - v[5]


def balance_mismatch(label: str, v: Sequence[int], locator: Locator) -> Warning:
    """The warning for a trial balance row whose closing balance is not its opening balance
    plus its turnover; ``v`` holds the six amounts in cents, empty as 0."""
    expected = v[0] - v[1] + v[2] - v[3]
    return warning(
        "ROW_BALANCE_MISMATCH",
        f"{label}: сальдо на конец {_c(v[4] - v[5])} не равно сальдо на начало "
        f"{_c(v[0] - v[1])} + оборот Дт {_c(v[2])} − оборот Кт {_c(v[3])} = {_c(expected)}",
        locator,
    )


def sum_warnings(
    parents: Iterable[tuple[str, int, Sequence[int | None], Sequence[int]]],
    top: Sequence[int],
    totals: Sequence[int | None] | None,
    totals_index: int | None,
    money_cols: Sequence[int],
    locate: Locating,
    *,
    general: bool,
) -> list[Warning]:
    """Parents against their children, Итого against the top level, and for a general ОСВ
    debit against credit. ``parents`` are (label, grid row index, amounts, sums of the
    children) in the order of the rows; amounts are whole cents."""
    found: list[Warning] = []
    for label, index, values, sums in parents:
        for i in _mismatched(values, sums):
            found.append(
                warning(
                    "PARENT_SUM_MISMATCH",
                    f"{label}: {_COLUMN_NAMES[i]} {_c(values[i] or 0)} не равно сумме "
                    f"вложенных строк {_c(sums[i])}",
                    locate.row(index, money_cols[i]),
                )
            )
    if totals is not None and totals_index is not None:
        # Итого may show a balance collapsed to one side, as a parent may.
        for i in _mismatched(totals, top):
            found.append(
                warning(
                    "TOTALS_MISMATCH",
                    f"Итого не равно сумме строк верхнего уровня: {_COLUMN_NAMES[i]} "
                    f"{_c(totals[i] or 0)} ≠ {_c(top[i])}",
                    locate.row(totals_index, money_cols[i]),
                )
            )
    if general:
        balance = [x or 0 for x in totals] if totals is not None else top
        where = locate.row(totals_index) if totals_index is not None else locate.where()
        for i, what in ((0, "сальдо на начало"), (2, "обороты за период"), (4, "сальдо на конец")):
            if balance[i] != balance[i + 1]:
                found.append(
                    warning(
                        "DEBIT_CREDIT_MISMATCH",
                        f"Итог по дебету не равен итогу по кредиту: {what} Дт "
                        f"{_c(balance[i])} ≠ Кт {_c(balance[i + 1])}",
                        where,
                    )
                )
    return found


def _mismatched(parent: Sequence[int | None], sums: Sequence[int]) -> list[int]:
    p = [x or 0 for x in parent]
    if p == list(sums):
        return []
    bad: list[int] = []
    for i in (0, 4):
        if p[i] == sums[i] and p[i + 1] == sums[i + 1]:
            continue
        # A parent may show its balance collapsed to one side while children show both.
        collapsed = p[i] == 0 or p[i + 1] == 0
        if collapsed and p[i] - p[i + 1] == sums[i] - sums[i + 1]:
            continue
        bad.extend(j for j in (i, i + 1) if p[j] != sums[j])
    bad.extend(j for j in (2, 3) if p[j] != sums[j])
    return sorted(bad)


# An amount a million times the document's typical one, and of a billion or more, is no amount
# of this document: a misread exponent (2.0E+16), a date or an account number taken for a sum.
OUTLIER_RATIO = 1_000_000
OUTLIER_FLOOR_CENTS = 10**9 * 100


@dataclass(frozen=True)
class AmountCell:
    """One amount of a document: its row (as ``Locating.row`` takes it), which of the
    document's amount columns it stands in, and its value in cents."""

    index: int
    column: int
    cents: int


def amount_outliers(
    cells: Sequence[AmountCell],
    totals: Sequence[int | None],
    names: Sequence[str],
    locate: Locating,
) -> list[Warning]:
    """Amounts beyond what their document allows, each flagged on its row and never changed:
    larger than the printed total of their column (``totals``, by column; None where the total
    is no plain sum of the column: not printed, or a trial balance's, whose rows nest), where
    no amount of the column is negative; or far beyond the document's typical amount."""
    sizes = sorted(abs(cell.cents) for cell in cells if cell.cents)
    if not sizes:
        return []
    typical = sizes[len(sizes) // 2]
    signed = {cell.column for cell in cells if cell.cents < 0}
    found: list[Warning] = []
    for cell in cells:
        size, total = abs(cell.cents), totals[cell.column]
        if total and cell.column not in signed and size > abs(total):
            why = f"больше итога по этой графе {_c(total)}"
        elif size >= OUTLIER_FLOOR_CENTS and size >= typical * OUTLIER_RATIO:
            times = f"{size // typical:,}".replace(",", " ")
            why = f"в {times} раз больше типичной суммы документа {_c(typical)}"
        else:
            continue
        found.append(
            warning(
                "AMOUNT_OUTLIER",
                f"{names[cell.column]}: сумма {_c(cell.cents)} {why}; сверьте с оригиналом",
                locate.row(cell.index),
            )
        )
    return found


def osv_amount_cells(rows: Sequence[tuple[int, Sequence[int | None]]]) -> list[AmountCell]:
    """The amounts of trial balance rows, given as (row index, six amounts in cents)."""
    return [
        AmountCell(index, column, cents)
        for index, values in rows
        for column, cents in enumerate(values)
        if cents
    ]


def osv_outliers(
    rows: Sequence[tuple[int, Sequence[int | None]]], locate: Locating
) -> list[Warning]:
    """A trial balance's amounts far beyond its scale. Its printed totals bound no single row:
    subconto rows repeat their account's amounts and storno rows let one row exceed its
    column's sum, so a total is no ceiling here (the sum checks compare totals)."""
    return amount_outliers(osv_amount_cells(rows), [None] * 6, _COLUMN_NAMES, locate)


@dataclass(frozen=True, slots=True)
class StatementLine:
    index: int
    date: datetime.date | None
    debit: Decimal | None
    credit: Decimal | None


def check_statement(
    lines: Sequence[StatementLine],
    opening: Decimal | None,
    closing: Decimal | None,
    total_debit: Decimal | None,
    total_credit: Decimal | None,
    totals_where: Locator,
    period: tuple[datetime.date | None, datetime.date | None] | None,
    locate: Locating,
    date_col: int | None,
) -> list[Warning]:
    found: list[Warning] = []
    debits = sum((_z(line.debit) for line in lines), ZERO)
    credits = sum((_z(line.credit) for line in lines), ZERO)
    totals_hold = (
        total_debit is not None
        and total_credit is not None
        and total_debit == debits
        and total_credit == credits
    )
    if opening is None and closing is not None and totals_hold:
        # Exports of a whole account history print the turnovers and the closing balance
        # only: the lines are checked against the printed totals, and the opening balance
        # they imply is said, not written into the document.
        found.append(
            warning(
                "OPENING_BALANCE_NOT_PRINTED",
                f"Входящий остаток не указан; по итогам оборотов он равен "
                f"{_m(closing - credits + debits)}",
                locate.where(),
                INFO,
            )
        )
    elif opening is None or closing is None:
        missing = "входящий" if opening is None else "исходящий"
        found.append(
            warning(
                "BALANCE_MISSING",
                f"Не найден {missing} остаток: сверка оборотов невозможна",
                locate.where(),
            )
        )
    elif opening + credits - debits != closing:
        found.append(
            warning(
                "BALANCE_MISMATCH",
                f"Входящий остаток {_m(opening)} + поступления {_m(credits)} − списания "
                f"{_m(debits)} = {_m(opening + credits - debits)} не равно исходящему остатку "
                f"{_m(closing)}",
                totals_where,
            )
        )
    if total_debit is not None and total_debit != debits:
        found.append(
            warning(
                "TOTALS_MISMATCH",
                f"Сумма строк по дебету {_m(debits)} не равна итогу выписки {_m(total_debit)}",
                totals_where,
            )
        )
    if total_credit is not None and total_credit != credits:
        found.append(
            warning(
                "TOTALS_MISMATCH",
                f"Сумма строк по кредиту {_m(credits)} не равна итогу выписки {_m(total_credit)}",
                totals_where,
            )
        )
    found += amount_outliers(
        [
            AmountCell(line.index, column, int(amount * 100))
            for line in lines
            for column, amount in enumerate((line.debit, line.credit))
            if amount
        ],
        [_cents_or_none(total_debit), _cents_or_none(total_credit)],
        ("Дебет", "Кредит"),
        locate,
    )
    if period is not None:
        start, end = period
        for line in lines:
            if line.date is None:
                continue
            if (start is not None and line.date < start) or (end is not None and line.date > end):
                found.append(
                    warning(
                        "DATE_OUTSIDE_PERIOD",
                        f"Дата операции {line.date:%d.%m.%Y} вне периода выписки",
                        locate.row(line.index, date_col),
                    )
                )
    return found


def check_tax_id(tax_id: str | None, where: Locator, whose: str) -> list[Warning]:
    if tax_id is None or tax_id_valid(tax_id):
        return []
    kind = tax_id_kind(tax_id)
    return [
        warning(
            "TAX_ID_CHECK_FAILED",
            f"Контрольная цифра {kind} {tax_id} ({whose}) не сходится",
            where,
        )
    ]


def check_account(account: str | None, where: Locator, whose: str) -> list[Warning]:
    if account is None or not looks_like_iban(account) or iban_valid(account):
        return []
    return [
        warning(
            "IBAN_CHECK_FAILED",
            f"Счет {account} ({whose}) не проходит проверку контрольных цифр IBAN",
            where,
        )
    ]
