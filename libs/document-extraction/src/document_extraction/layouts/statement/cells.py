"""A statement line's cells: its date (Excel serial numbers too), a counterparty's tax id stored as
a number, a status that says the operation was not executed, the cells whose own check digits
vouch for them."""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal

from document_extraction.captions import MAX_COLUMNS
from document_extraction.dates import parse_date_cell
from document_extraction.grid import CellValue
from document_extraction.identifiers import (
    bic_serves,
    iban_valid,
    inn_valid,
    normalize_tax_id,
    tax_id_valid,
    unp_valid,
)
from document_extraction.numbers import (
    parse_amount,
)
from document_extraction.text import as_text, norm

_NOT_EXECUTED = re.compile(
    r"^(?:failed|declined|rejected|cancel+ed|отклонен\w*|отменен\w*|ошибка|не проведен\w*|"
    r"не исполнен\w*)$"
)


def is_not_executed(cell: CellValue) -> bool:
    """An operation the bank lists but did not carry out (a declined card payment)."""
    return isinstance(cell, str) and _NOT_EXECUTED.match(norm(cell)) is not None


def two_amounts_after_label(row: Sequence[CellValue]) -> tuple[Decimal, Decimal] | None:
    """The debit and credit totals printed next to their label, as the first two amounts."""
    amounts = [
        amount.value
        for cell in row[:MAX_COLUMNS]
        if not isinstance(cell, str) or not cell.strip()[:1].isalpha()
        if (amount := parse_amount(cell)).value is not None and amount.problem is None
    ]
    return (amounts[0], amounts[1]) if len(amounts) >= 2 else None


def tax_id_of(cell: CellValue) -> str | None:
    text = as_text(cell)
    if text is None:
        return None
    candidate = normalize_tax_id(text)
    # A taxpayer number stored as a number loses its leading zero (ИНН 0278...).
    if isinstance(cell, int | float) and text.isdigit():
        if len(text) == 9 and not unp_valid(text) and inn_valid("0" + text):
            return "0" + text
        if len(text) == 11 and inn_valid("0" + text):
            return "0" + text
    return candidate


# Certainty of a statement whose sheet never says "выписка".
UNTITLED_CONFIDENCE = 90.0
# A date column whose cells lost their date format holds Excel serial numbers.
_SERIAL_DATE_PENALTY = 2
_EXCEL_EPOCH = datetime.date(1899, 12, 30)


def date_of(cell: CellValue) -> tuple[datetime.date | None, int]:
    date, penalty = parse_date_cell(cell)
    if (
        date is None
        and isinstance(cell, int | float)
        and not isinstance(cell, bool)
        and 30000 <= cell <= 80000
        and float(cell).is_integer()
    ):
        return _EXCEL_EPOCH + datetime.timedelta(days=int(cell)), _SERIAL_DATE_PENALTY
    return date, penalty


SUMS_FAILED = frozenset({"BALANCE_MISMATCH", "TOTALS_MISMATCH", "BALANCE_MISSING"})


def vouched_columns(
    cols: Mapping[str, int], account: str | None, tax_id: str | None, bic: str | None
) -> set[int]:
    """A line's cells whose own check digits vouch for what was read: an IBAN, an УНП/ИНН,
    and a BIC that names the valid IBAN's bank."""
    checks = {
        "account": account is not None and iban_valid(account),
        "tax_id": tax_id is not None and tax_id_valid(tax_id),
        "bic": bic is not None and account is not None and bic_serves(bic, account),
    }
    return {cols[name] for name, holds in checks.items() if holds and name in cols}
