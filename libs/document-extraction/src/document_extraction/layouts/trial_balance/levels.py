"""Where a trial balance row stands in the hierarchy: from a level column, from the workbook's
outline levels, or from the codes themselves (60.1 under 60, subconto under its account)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from document_extraction.accounts import parent_codes
from document_extraction.grid import CellValue
from document_extraction.layouts.trial_balance.labels import LEAST_CAPTION
from document_extraction.text import is_empty

_MAX_LEVEL = 9


def _level(cell: CellValue) -> int | None:
    """A small whole number: a workbook's number, or a page's one digit (with a speck OCR
    read as a stop or a comma after it: "0.", "2,")."""
    if isinstance(cell, str):
        text = cell.strip().rstrip(".,")
        return int(text) if len(text) == 1 and text.isdigit() else None
    if (
        isinstance(cell, int | float)
        and not isinstance(cell, bool)
        and float(cell).is_integer()
        and 0 <= cell <= _MAX_LEVEL
    ):
        return int(cell)
    return None


def level_column(rows: Sequence[Sequence[CellValue]], start: int, before: int) -> dict[int, int]:
    """Outline levels printed as a column of numbers left of the table (1C's «Уровень», or a
    column a tool added), for readers that see no outline: {row index: level}, or empty."""
    return find_level_column(rows, start, before)[1]


def find_level_column(
    rows: Sequence[Sequence[CellValue]], start: int, before: int
) -> tuple[int | None, dict[int, int]]:
    """The level column's index and its levels by row (see ``level_column``)."""
    for col in range(before):
        levels: dict[int, int] = {}
        other: int | None = None  # the first row with anything else there
        misread: list[int] = []
        for index in range(start, len(rows)):
            row = rows[index]
            cell = row[col] if col < len(row) else None
            if is_empty(cell):
                continue
            level = _level(cell)
            if level is None:
                if is_misread_level(cell):
                    misread.append(index)
                    continue
                other = index if other is None else other
            else:
                levels[index] = level
                # A level OCR misread is most likely the next one's: a subaccount's or a
                # subconto's first item is followed by its siblings.
                for before in misread:
                    levels.setdefault(before, level)
                misread.clear()
        if other is not None and any(index > other for index in levels):
            continue  # text below the table (a signature line) may stand there, not inside it
        distinct = len(set(levels.values()))
        # Levels repeat; a row-number column (1, 2, 3 …) never does.
        if 1 < distinct < len(levels) and len(levels) * 2 > len(rows) - start:
            return col, levels
    return None, {}


def is_misread_level(cell: CellValue) -> bool:
    """A page's level digit OCR read as a mark or two ("ie}", "|"): a short text of no word."""
    if not isinstance(cell, str):
        return False
    text = cell.strip()
    return 0 < len(text) <= LEAST_CAPTION and not text.isalpha()


class OutlineTree:
    """Parents from outline levels: the parent is the last row above with a lower level."""

    def __init__(self, outline: dict[int, int] | Any) -> None:
        self.outline = outline
        self.stack: list[tuple[int, int]] = []  # (outline level, id)
        self.base: int | None = None  # the shallowest level among the rows

    def place(self, number: int, index: int) -> tuple[int | None, int]:
        level = self.outline.get(index, 0)
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        parent = self.stack[-1][1] if self.stack else None
        self.stack.append((level, number))
        if self.base is None or level < self.base:
            self.base = level
        return parent, level


class CodeTree:
    """Levels and parents from the codes (60.1 under 60) and the kind of row: subconto rows
    under the account above them, or, when the table starts with subconto, each one a group
    of the accounts below it."""

    def __init__(self) -> None:
        self.subconto_first: bool | None = None
        self.codes: dict[str, tuple[int, int]] = {}  # code -> (id, level)
        self.last_account: tuple[int, int] | None = None
        self.group: tuple[int, int] | None = None
        # (indent, id, level) of the subconto rows under the last account: a deeper indented
        # one (a contract under its counterparty) is the child of the one above it.
        self.subconto: list[tuple[int, int, int]] = []

    def place(
        self, number: int, kind: str, code: str | None, indent: int = 0
    ) -> tuple[int | None, int]:
        if self.subconto_first is None:
            self.subconto_first = kind == "subconto"
        if kind == "subconto" or code is None:
            if self.subconto_first:
                self.codes.clear()
                self.group = (number, 0)
                return None, 0
            if self.last_account is None:
                return None, 0
            while self.subconto and self.subconto[-1][0] >= indent:
                self.subconto.pop()
            above, depth = self.subconto[-1][1:] if self.subconto else self.last_account
            self.subconto.append((indent, number, depth + 1))
            return above, depth + 1
        found = None
        for prefix in parent_codes(code):
            found = self.codes.get(prefix)
            if found is not None:
                break
        if found is None:
            found = self.group
        parent, level = (found[0], found[1] + 1) if found is not None else (None, 0)
        self.codes[code] = (number, level)
        self.last_account = (number, level)
        self.subconto.clear()
        return parent, level
