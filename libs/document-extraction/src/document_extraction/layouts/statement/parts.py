"""Where statements start on a sheet: several accounts' statements one under the other, a
statement with no table caption, an account column no caption names."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from document_extraction.captions import MAX_COLUMNS
from document_extraction.grid import CellValue, Grid
from document_extraction.identifiers import (
    iban_valid,
    normalize_account,
)
from document_extraction.layouts.header_blocks import HEADER_SCAN_ROWS
from document_extraction.layouts.statement.head import CLOSING_LABEL, OPENING_LABEL
from document_extraction.layouts.statement.header import StatementHeader, find_statement_header
from document_extraction.parts import split_where
from document_extraction.text import line_of, norm


def statement_parts(grid: Grid) -> list[Grid]:
    """A sheet that holds the statements of several accounts one under the other, cut at each
    statement's title ("Выписка по счету …"), each part keeping its rows' numbers."""
    lines = {index: norm(line_of(list(row[:MAX_COLUMNS]))) for index, row in enumerate(grid.rows)}
    titles = [index for index, line in lines.items() if line.startswith("выписка")]
    # A title printed again at the top of each page of one statement is no new statement.
    if len({lines[index] for index in titles}) < 2:
        return [grid]
    return split_where(
        grid,
        titles[1:],
        lambda part: bool(
            find_statement_header(part.rows) or find_statement_without_table(part.rows)
        ),
    )


def find_statement_without_table(rows: Sequence[Sequence[CellValue]]) -> StatementHeader | None:
    """A statement of an account without operations: its title, and its opening and closing
    balances, but no table (one sheet per account, the quiet ones too)."""
    head = rows[:HEADER_SCAN_ROWS]
    lines = [norm(line_of(list(row[:MAX_COLUMNS]))) for row in head]
    if not any(line.startswith("выписка") for line in lines):
        return None
    if not any(OPENING_LABEL.match(line) for line in lines) or not any(
        CLOSING_LABEL.match(line) for line in lines
    ):
        return None
    return StatementHeader(row=len(rows) - 1, columns={}, confidence=100.0, first_row=len(rows))


# Body rows looked at to find the counterparty's account by its values.
_ACCOUNT_ROWS = 200


def account_column(rows: Sequence[Sequence[CellValue]], start: int, taken: set[int]) -> int | None:
    """The column of counterparties' accounts told by its values, where its caption was not
    read (an OCR «IBAN» read as «ВАМ»): most of its cells valid IBANs, and not one account
    over and over (the statement's own)."""
    best: tuple[int, int] | None = None
    counts: Counter[int] = Counter()
    seen: dict[int, set[str]] = {}
    filled: Counter[int] = Counter()
    for row in rows[start : start + _ACCOUNT_ROWS]:
        for col, cell in enumerate(row[:MAX_COLUMNS]):
            if col in taken or not isinstance(cell, str) or not cell.strip():
                continue
            filled[col] += 1
            account = normalize_account(cell)
            if account is not None and iban_valid(account):
                counts[col] += 1
                seen.setdefault(col, set()).add(account)
    for col, count in counts.items():
        plausible = count >= 2 and 2 * count >= filled[col] and len(seen[col]) > 1
        if plausible and (best is None or count > best[1]):
            best = (col, count)
    return best[0] if best is not None else None


# What check_statement says when the lines' amounts do not add up to the printed sums.
