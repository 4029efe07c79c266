"""Warnings (contract 2.0 objects) and locators that point an analyst at the source."""

from __future__ import annotations

from collections import Counter
from typing import Any

from document_extraction.grid import Grid
from document_extraction.text import column_letters

# A broken file can fail a check on every row; past this many warnings of one code the
# document carries one summary line instead of a wall of identical messages.
MAX_WARNINGS_PER_CODE = 50

INFO = "info"
WARNING = "warning"
ERROR = "error"


def warning(
    code: str, message: str, locator: dict[str, Any] | None, severity: str = WARNING
) -> dict[str, Any]:
    return {"code": code, "severity": severity, "message": message, "locator": locator}


class Locate:
    """Locators of one grid: sheet and row (and column) for workbooks, page and box for pages."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self.is_page = grid.kind == "page"
        self.page = grid.page or 1

    def where(self) -> dict[str, Any]:
        return {"page": self.page} if self.is_page else {"sheet": self.grid.name}

    def span(self, first: int, last: int) -> dict[str, Any]:
        if self.is_page:
            return {"page": self.page}
        start, end = self.grid.row_number(first), self.grid.row_number(last)
        locator: dict[str, Any] = {"sheet": self.grid.name, "row": start}
        if end > start:
            locator["row_end"] = end
        return locator

    def row(self, index: int, column: int | None = None) -> dict[str, Any]:
        if self.is_page:
            locator: dict[str, Any] = {"page": self.page, "row": self.grid.row_number(index)}
            box = self._row_box(index, column)
            if box is not None:
                locator["bbox"] = box
            return locator
        locator = {"sheet": self.grid.name, "row": self.grid.row_number(index)}
        if column is not None:
            locator["column"] = column_letters(column)
        return locator

    def _row_box(self, index: int, column: int | None) -> dict[str, float] | None:
        boxes = self.grid.cell_boxes
        if boxes is None or index >= len(boxes):
            return None
        cells = boxes[index]
        chosen = [cells[column]] if column is not None and column < len(cells) else list(cells)
        present = [b for b in chosen if b is not None]
        if not present:
            return None
        return {
            "x0": min(b.x0 for b in present),
            "y0": min(b.y0 for b in present),
            "x1": max(b.x1 for b in present),
            "y1": max(b.y1 for b in present),
        }


def capped(warnings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep the first MAX_WARNINGS_PER_CODE warnings of each code, then one summary each."""
    counts = Counter(w["code"] for w in warnings)
    if all(n <= MAX_WARNINGS_PER_CODE for n in counts.values()):
        return warnings
    kept: list[dict[str, Any]] = []
    seen: Counter[str] = Counter()
    for item in warnings:
        seen[item["code"]] += 1
        if seen[item["code"]] <= MAX_WARNINGS_PER_CODE:
            kept.append(item)
        elif seen[item["code"]] == MAX_WARNINGS_PER_CODE + 1:
            rest = counts[item["code"]] - MAX_WARNINGS_PER_CODE
            kept.append(
                warning(
                    item["code"],
                    f"И ещё {rest} таких же замечаний ({item['code']}) в этом документе",
                    None,
                    item["severity"],
                )
            )
    return kept


def needs_check(warnings: list[dict[str, Any]]) -> bool:
    return any(w["severity"] != INFO for w in warnings)
