"""Layouts as data: the cells of each sheet with the 1C details that matter, and the documents a
correct recognition produces from them. Writers (XLSX, XLS, XLSB, later PDF/PNG) render the same
data."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

Cell = str | int | float | datetime.date | None

# Reader features a layout may need for its expected document to be reachable: without outline
# levels, nesting that the codes do not show (a contract under a counterparty) cannot be known.
OUTLINE_LEVELS = "outline_levels"
NUMBER_FORMATS = "number_formats"
MERGES = "merges"


@dataclass
class Sheet:
    name: str
    rows: list[list[Cell]] = field(default_factory=list)
    formats: dict[tuple[int, int], str] = field(default_factory=dict)
    outline: dict[int, int] = field(default_factory=dict)
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)  # r0, c0, r1, c1

    def add(
        self,
        cells: list[Cell],
        *,
        formats: dict[int, str] | None = None,
        level: int | None = None,
    ) -> int:
        """Append a row; returns its 0-based index (its Excel row number is index + 1)."""
        index = len(self.rows)
        self.rows.append(list(cells))
        for col, fmt in (formats or {}).items():
            self.formats[(index, col)] = fmt
        if level:
            self.outline[index] = level
        return index

    def blank(self) -> int:
        return self.add([])

    def merge(self, row0: int, col0: int, row1: int, col1: int) -> None:
        self.merges.append((row0, col0, row1, col1))

    @property
    def width(self) -> int:
        return max((len(r) for r in self.rows), default=0)


@dataclass
class Expected:
    """What extraction should return: ``error`` set means no document (RECOGNITION_FAILED)."""

    status: str
    group_schema: str
    documents: list[dict[str, Any]]
    warnings: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "group_schema": self.group_schema,
            "documents": self.documents,
            "warnings": self.warnings,
            "error": self.error,
        }


@dataclass
class Layout:
    """One generated source file. ``expected`` is what a reader that sees number formats and
    outline levels gets; ``expected_plain`` what a reader of bare values gets (codes without
    their formats cost confidence, hierarchy comes from codes)."""

    name: str
    family: str
    sheets: list[Sheet]
    expected: Expected
    expected_plain: Expected
    requires: frozenset[str] = frozenset()
    params: dict[str, Any] = field(default_factory=dict)

    def expected_for(self, *, formats: bool, outlines: bool) -> Expected | None:
        """The expected result for a reader with these features; None when the layout cannot be
        recognised exactly without a feature the reader lacks."""
        if OUTLINE_LEVELS in self.requires and not outlines:
            return None
        if NUMBER_FORMATS in self.requires and not formats:
            return None
        return self.expected if formats else self.expected_plain


def _column_index(letters: str) -> int:
    index = 0
    for ch in letters:
        index = index * 26 + ord(ch) - 64
    return index - 1


def column_letters(index: int) -> str:
    letters = ""
    number = index + 1
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def shift_columns(sheet: Sheet, documents: list[dict[str, Any]], columns: int) -> None:
    """Move a sheet's table ``columns`` to the right (hand-made files rarely start at column
    A), with the column letters of the expected documents' warnings."""
    if columns <= 0:
        return
    sheet.rows = [[None] * columns + row if row else row for row in sheet.rows]
    sheet.formats = {(r, c + columns): f for (r, c), f in sheet.formats.items()}
    sheet.merges = [(r0, c0 + columns, r1, c1 + columns) for r0, c0, r1, c1 in sheet.merges]
    for document in documents:
        for item in document["warnings"]:
            locator = item.get("locator") or {}
            if "column" in locator:
                locator["column"] = column_letters(_column_index(locator["column"]) + columns)
