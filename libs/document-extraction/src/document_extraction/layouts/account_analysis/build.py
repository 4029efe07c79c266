"""1C «Анализ счета»: a trial balance whose balances and turnovers are rows, not columns.

Each object (the account, a sub-account, a counterparty, a contract, an item) opens with its
label and «Начальное сальдо» in the correspondent-account column, lists its turnovers per
correspondent account, and closes with an «Оборот» row and a «Конечное сальдо» row; objects
nest inside each other, and a label-less «Нач.сальдо» before the first object opens the grand
totals. There are only two amount columns (Дебет | Кредит, or УПП's «С кред. счетов» |
«В дебет счетов»), so each object's six amounts come from its three marker rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from document_extraction.accounts import code_from_cell
from document_extraction.captions import Column, compose, words_of
from document_extraction.checks import balance_mismatch, row_balances
from document_extraction.findings import INFO, Locate, warning
from document_extraction.grid import CellValue, Grid
from document_extraction.layouts.header_blocks import HEADER_SCAN_ROWS, MAX_HEADER_ROWS
from document_extraction.layouts.protocol import TableHeader
from document_extraction.layouts.trial_balance.document import OsvBody, osv_document, osv_row
from document_extraction.layouts.trial_balance.labels import is_other_indicator
from document_extraction.nesting import written_cents_of
from document_extraction.numbers import read_cents
from document_extraction.text import as_text, is_empty, norm
from document_extraction.titles import Titles
from recognition_contract import RowKind, TrialBalance, TrialBalanceRow, Warning

# Rows under a header looked at for the marker rows that make it an account analysis.
_MARKER_SCAN_ROWS = 40
# «С кред. счетов» is the analysed account's debit turnover, «В дебет счетов» its credit.
_FROM_CREDIT = re.compile(r"^с\s*кред")
_TO_DEBIT = re.compile(r"^в\s*дебет")

OPENING, TURNOVER, CLOSING = "opening", "turnover", "closing"
EMPTY_VALUE = "<...>"


@dataclass(frozen=True)
class AnalysisHeader:
    first_row: int
    last_row: int
    label_col: int
    marker_col: int  # the correspondent-account column, where the marker words stand
    debit_col: int
    credit_col: int
    indicator_col: int | None

    @property
    def table(self) -> TableHeader:
        columns = {
            "label": self.label_col,
            "marker": self.marker_col,
            "debit": self.debit_col,
            "credit": self.credit_col,
        }
        if self.indicator_col is not None:
            columns["indicator"] = self.indicator_col
        return TableHeader(self.first_row, self.last_row, columns)


def marker_of(cell: CellValue) -> str | None:
    """«Начальное сальдо» / «Нач.сальдо», «Оборот», «Конечное сальдо» / «Кон.сальдо»."""
    if not isinstance(cell, str):
        return None
    words = words_of(norm(cell))
    if words == {"оборот"}:
        return TURNOVER
    if words == {"сальдо", "начало"}:
        return OPENING
    if words == {"сальдо", "конец"}:
        return CLOSING
    return None


def _side(column: Column) -> str | None:
    if _FROM_CREDIT.match(column.text):
        return "debit"
    if _TO_DEBIT.match(column.text):
        return "credit"
    if column.own == {"дебет"}:
        return "debit"
    if column.own == {"кредит"}:
        return "credit"
    return None


def find_analysis_header(rows: Sequence[Sequence[CellValue]]) -> AnalysisHeader | None:
    for last in range(min(len(rows), HEADER_SCAN_ROWS)):
        for first in range(last, max(-1, last - MAX_HEADER_ROWS), -1):
            header = _header(rows, first, last)
            if header is not None:
                return header
    return None


def _header(rows: Sequence[Sequence[CellValue]], first: int, last: int) -> AnalysisHeader | None:
    columns = compose(rows, first, last)
    sides: dict[str, int] = {}
    label_col = marker_col = indicator_col = None
    for column in columns:
        side = _side(column)
        if side is not None:
            sides.setdefault(side, column.index)  # the first pair: «В валюте» repeats it
        elif "корр" in column.own:
            marker_col = marker_col if marker_col is not None else column.index
        elif "показатели" in column.own:
            indicator_col = column.index
        elif column.own & {"счет", "субконто"} and label_col is None:
            label_col = column.index
    if label_col is None or marker_col is None or set(sides) != {"debit", "credit"}:
        return None
    body = rows[last + 1 : last + 1 + _MARKER_SCAN_ROWS]
    markers = {m for row in body if marker_col < len(row) if (m := marker_of(row[marker_col]))}
    if markers != {OPENING, TURNOVER, CLOSING}:
        return None
    return AnalysisHeader(
        first, last, label_col, marker_col, sides["debit"], sides["credit"], indicator_col
    )


@dataclass
class _Open:
    """An object whose closing rows have not come yet."""

    number: int | None  # its row id; None for the grand totals
    index: int  # grid row of its label
    label: CellValue
    level: int
    parent: int | None
    amounts: list[int | None] = field(default_factory=lambda: [None] * 6)


def build_analysis(grid: Grid, header: AnalysisHeader, titles: Titles) -> TrialBalance:
    """Objects as rows: opening, turnovers and closing from their marker rows; each object is
    under the one it opened inside of."""
    locate = Locate(grid)
    rows = grid.rows
    money_cols = (
        header.debit_col,
        header.credit_col,
        header.debit_col,
        header.credit_col,
        header.debit_col,
        header.credit_col,
    )
    stack: list[_Open] = []
    written: dict[int, TrialBalanceRow] = {}
    grid_rows: dict[int, int] = {}
    turnover_only_children: set[int | None] = set()
    children: dict[int, list[int]] = {}
    top_sums = [0] * 6
    warnings: list[Warning] = []
    balance_warnings: list[Warning] = []
    totals_values: list[int | None] | None = None
    totals_index: int | None = None
    last_index = header.last_row
    number = 0
    for index in range(header.last_row + 1, len(rows)):
        row = rows[index]
        if header.indicator_col is not None and header.indicator_col < len(row):
            indicator = row[header.indicator_col]
            if isinstance(indicator, str) and is_other_indicator(norm(indicator)):
                continue  # the quantity of the row above
        marker = marker_of(row[header.marker_col] if header.marker_col < len(row) else None)
        if marker is None:
            continue  # a correspondent account's turnover: detail of the object above
        last_index = index
        debit, credit = (
            read_cents(row[c] if c < len(row) else None).value
            for c in (header.debit_col, header.credit_col)
        )
        if marker == OPENING:
            label = row[header.label_col] if header.label_col < len(row) else None
            parent = stack[-1].number if stack else None
            if is_empty(label) and not stack:
                stack.append(_Open(None, index, None, -1, None))  # the grand totals
            else:
                if is_empty(label):
                    # An object without a value (1C writes «<...>» on screen, nothing in the
                    # export): still a row, so that its parent adds up.
                    label = EMPTY_VALUE
                    warnings.append(
                        warning(
                            "EMPTY_SUBCONTO",
                            f"Субконто без значения показано как «{EMPTY_VALUE}»",
                            locate.row(index),
                            INFO,
                        )
                    )
                number += 1
                level = len([o for o in stack if o.number is not None])
                stack.append(_Open(number, index, label, level, parent))
            stack[-1].amounts[0:2] = [debit, credit]
            continue
        if not stack:
            continue
        current = stack[-1]
        if marker == TURNOVER:
            current.amounts[2:4] = [debit, credit]
            continue
        current.amounts[4:6] = [debit, credit]
        stack.pop()
        if current.number is None:
            totals_values, totals_index = current.amounts, index
            continue
        cents = [v or 0 for v in current.amounts]
        code = code_from_cell(current.label)
        kind: RowKind = "account" if code is not None else "subconto"
        name = (code.name if code is not None else as_text(current.label)) or None
        grid_rows[current.number] = current.index
        written[current.number] = osv_row(
            current.number,
            current.parent,
            kind,
            current.level,
            code.code if code is not None else None,
            name,
            current.amounts,
            100 - (code.penalty if code is not None else 0),
            locate.row(current.index),
        )
        # Cash-flow items and the like keep turnovers only: no balance is printed at all.
        turnover_only = all(v is None for v in current.amounts[0:2] + current.amounts[4:6])
        if turnover_only:
            turnover_only_children.add(current.parent)
        elif not row_balances(cents):
            balance_warnings.append(
                balance_mismatch(
                    written[current.number].code or name or "", cents, locate.row(current.index)
                )
            )
        sums = top_sums if current.parent is None else children.setdefault(current.parent, [0] * 6)
        for column, value in enumerate(cents):
            sums[column] += value
    for parent in turnover_only_children - {None}:
        if parent in written and parent in children:
            # Children without balances say nothing of their parent's balances.
            own = [v or 0 for v in written_cents_of(written[parent])]
            for column in (0, 1, 4, 5):
                children[parent][column] = own[column]
    order = sorted(written)
    # Ids in the order the objects opened, without gaps: an object never closed is left out.
    renumber = {old: new for new, old in enumerate(order, start=1)}
    out_rows = []
    for old in order:
        out = written[old]
        parent = renumber.get(out.parent) if out.parent is not None else None
        out_rows.append(out._replace(id=renumber[old], parent=parent))
    children = {renumber[p]: s for p, s in children.items() if p in renumber}
    return osv_document(
        grid,
        titles,
        OsvBody(
            out_rows,
            [grid_rows[i] for i in order],
            [row.confidence for row in out_rows],
            children,
            top_sums,
            totals_values,
            totals_index,
            warnings,
            balance_warnings,
        ),
        money_cols,
        100.0,
        (header.first_row, last_index),
    )
