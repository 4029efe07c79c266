"""The rows under a statement's header: its operations, and the totals and balance lines among
and below them (day sections close each day with a balance)."""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from document_extraction.captions import MAX_COLUMNS
from document_extraction.checks import ZERO
from document_extraction.grid import CellValue
from document_extraction.header_repeats import HeaderRepeats
from document_extraction.layouts.statement.cells import (
    date_of,
    is_not_executed,
    two_amounts_after_label,
)
from document_extraction.layouts.statement.head import (
    TOTAL_CREDIT,
    TOTAL_DEBIT,
    Head,
    line_labels,
    read_head_line,
)
from document_extraction.layouts.statement.header import StatementHeader
from document_extraction.layouts.statement.lines import CellReader, Operation, read_operation
from document_extraction.numbers import find_amount_in_text
from document_extraction.text import as_text, is_empty, line_of, norm
from document_extraction.vocabulary import DAY_TOTALS_WORDS

# Confidence an operation loses for a date it does not print (its day block's).
DAY_DATE_PENALTY = 1


@dataclass
class Body:
    operations: list[Operation] = field(default_factory=list)
    total_debit: Decimal | None = None
    total_credit: Decimal | None = None
    totals_index: int | None = None
    # "ИТОГО: | 495 000 | 500 000" beside its label, left of the amount columns: which of the
    # two the totals are, the lines' sums tell.
    totals_beside_label: tuple[Decimal, Decimal] | None = None
    last_index: int = 0  # the last row the statement takes
    not_executed: Counter[str] = field(default_factory=Counter)
    # The date of the day block being read: a row of a date and an opening balance opens it,
    # the operations under it print no date of their own.
    day: datetime.date | None = None


def read_body(reader: CellReader, header: StatementHeader, head: Head) -> Body:
    """Every row under the header once: an operation, a totals or balance line (which may also
    carry the closing balance into ``head``), a declined operation, or nothing."""
    rows = reader.grid.rows
    body = Body(last_index=header.row)
    repeats = HeaderRepeats(rows, header.first_row, header.row)
    date_col = reader.columns.date
    for index in range(header.row + 1, len(rows)):
        row = rows[index]
        if row in repeats:
            continue
        date_cell = row[date_col] if date_col < len(row) else None
        date, date_penalty = date_of(date_cell)
        labels = line_labels(row)
        if date is not None and "opening" in labels:
            body.day = date
        elif body.day is not None and is_empty(date_cell) and not labels and reader.amount_in(row):
            date, date_penalty = body.day, DAY_DATE_PENALTY
        if date is None or labels:
            # A balance or totals line, even where a date stands in the date column
            # ("Исходящий остаток на: | 18.06.2022 | 23 535.36 | Итого обороты | … | …").
            _read_labelled_line(reader, body, head, row, index, labels)
            continue
        status = reader.cell(row, "status")
        if is_not_executed(status):
            body.not_executed[as_text(status) or ""] += 1
            continue
        body.operations.append(read_operation(reader, row, index, date, date_penalty))
        body.last_index = index
    return body


def _read_labelled_line(
    reader: CellReader,
    body: Body,
    head: Head,
    row: Sequence[CellValue],
    index: int,
    labels: dict[str, str],
) -> None:
    if not line_of(list(row[:MAX_COLUMNS])):
        return
    if "totals" in labels and is_day_totals(labels["totals"]):
        body.last_index = index  # a day's turnovers: the statement's are its lines' sums
    elif "totals" in labels:
        body.totals_index = body.last_index = index
        _read_totals(reader, body, row, index, labels["totals"])
        if "opening" not in labels and "closing" not in labels:
            return
    before = (head.opening, head.closing)
    # Day sections close each day: the last closing balance is the statement's.
    read_head_line(head, row, index, reader.locate, reader.warnings, in_body=True)
    if (head.opening, head.closing) != before:
        body.last_index = index


def _read_totals(
    reader: CellReader, body: Body, row: Sequence[CellValue], index: int, text: str
) -> None:
    by_role = reader.columns.by_role
    if reader.columns.signed:
        # One total per line, its side told by its words ("Итого списано: 1 000,00").
        value = find_amount_in_text(text).value
        lowered = norm(text)
        if value is not None and TOTAL_DEBIT.search(lowered):
            body.total_debit = abs(value)
        elif value is not None and TOTAL_CREDIT.search(lowered):
            body.total_credit = abs(value)
        return
    debit, _ = reader.money(row, by_role.get("debit"), index)
    credit, _ = reader.money(row, by_role.get("credit"), index)
    body.total_debit, body.total_credit = empty_total_is_zero(debit, credit)
    body.totals_beside_label = two_amounts_after_label(row)


def empty_total_is_zero(
    debit: Decimal | None, credit: Decimal | None
) -> tuple[Decimal | None, Decimal | None]:
    """A totals line leaves the side without operations empty: its total is 0."""
    if (debit is None) != (credit is None):
        return debit if debit is not None else ZERO, credit if credit is not None else ZERO
    return debit, credit


def is_day_totals(text: str) -> bool:
    """A day block's turnovers («Обороты за день»), no totals of the statement."""
    lowered = norm(text)
    return any(words in lowered for words in DAY_TOTALS_WORDS)
