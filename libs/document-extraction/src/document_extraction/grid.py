"""The input of extraction: one sheet or one page as a grid of cells."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from recognition_contract import BBox

CellValue = str | int | float | bool | datetime.date | datetime.datetime | None


@dataclass(frozen=True)
class Grid:
    """One sheet of a workbook or one page of a PDF/scan, row-major, 0-based indices.

    ``row_numbers`` maps each row to its number in the source (Excel 1-based row, or line on a
    page); by default row ``i`` is number ``i + 1``. ``outline_levels`` and ``number_formats`` are
    given where the reader knows them; without them hierarchy and leading zeros are inferred from
    the codes. ``cell_confidence`` (0-100) comes from OCR; ``None`` means exact source cells.
    """

    name: str
    rows: Sequence[Sequence[CellValue]]
    kind: Literal["sheet", "page"] = "sheet"
    page: int | None = None
    row_numbers: Sequence[int] | None = None
    outline_levels: Mapping[int, int] = field(default_factory=dict)
    number_formats: Mapping[tuple[int, int], str] = field(default_factory=dict)
    cell_confidence: Sequence[Sequence[float | None]] | None = None
    cell_boxes: Sequence[Sequence[BBox | None]] | None = None

    def row_number(self, index: int) -> int:
        if self.row_numbers is not None and index < len(self.row_numbers):
            return self.row_numbers[index]
        return index + 1
