"""Warnings and locators (the contract's typed values) that point an analyst at the source."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final, Protocol

from document_extraction.grid import Grid
from document_extraction.text import column_letters
from recognition_contract import BBox, Locator, Severity, Warning

# A broken file can fail a check on every row; past this many warnings of one code the
# document carries one summary line instead of a wall of identical messages.
MAX_WARNINGS_PER_CODE = 50

INFO: Final = Severity.INFO
WARNING: Final = Severity.WARNING
ERROR: Final = Severity.ERROR


def warning(
    code: str, message: str, locator: Locator | None, severity: Severity = WARNING
) -> Warning:
    return Warning(code, severity, message, locator)


class Locating(Protocol):
    """Where a check's warnings point: ``Locate`` on a grid being read, or the locators a
    stored document keeps (re-checking a corrected document)."""

    def where(self) -> Locator: ...

    def row(self, index: int, column: int | None = None) -> Locator: ...


class Locate:
    """Locators of one grid: sheet and row (and column) for workbooks, page and box for pages."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self.is_page = grid.kind == "page"
        self.page = grid.page or 1

    def where(self) -> Locator:
        return Locator(page=self.page) if self.is_page else Locator(sheet=self.grid.name)

    def span(self, first: int, last: int) -> Locator:
        if self.is_page:
            return Locator(page=self.page)
        start, end = self.grid.row_number(first), self.grid.row_number(last)
        return Locator(sheet=self.grid.name, row=start, row_end=end if end > start else None)

    def row(self, index: int, column: int | None = None) -> Locator:
        if self.is_page:
            return Locator(
                page=self.page, row=self.grid.row_number(index), bbox=self._row_box(index, column)
            )
        return Locator(
            sheet=self.grid.name,
            row=self.grid.row_number(index),
            column=column_letters(column) if column is not None else None,
        )

    def _row_box(self, index: int, column: int | None) -> BBox | None:
        boxes = self.grid.cell_boxes
        if boxes is None or index >= len(boxes):
            return None
        cells = boxes[index]
        chosen = [cells[column]] if column is not None and column < len(cells) else list(cells)
        present = [b for b in chosen if b is not None]
        if not present:
            return None
        return BBox(
            min(b.x0 for b in present),
            min(b.y0 for b in present),
            max(b.x1 for b in present),
            max(b.y1 for b in present),
        )


def capped(warnings: Sequence[Warning]) -> tuple[Warning, ...]:
    """Keep the first MAX_WARNINGS_PER_CODE warnings of each code, then one summary each."""
    counts = Counter(w.code for w in warnings)
    if all(n <= MAX_WARNINGS_PER_CODE for n in counts.values()):
        return tuple(warnings)
    kept: list[Warning] = []
    seen: Counter[str] = Counter()
    for item in warnings:
        seen[item.code] += 1
        if seen[item.code] <= MAX_WARNINGS_PER_CODE:
            kept.append(item)
        elif seen[item.code] == MAX_WARNINGS_PER_CODE + 1:
            rest = counts[item.code] - MAX_WARNINGS_PER_CODE
            kept.append(
                warning(
                    item.code,
                    f"И ещё {rest} таких же замечаний ({item.code}) в этом документе",
                    None,
                    item.severity,
                )
            )
    return tuple(kept)


def needs_check(warnings: Sequence[Warning]) -> bool:
    return any(w.severity is not INFO for w in warnings)
