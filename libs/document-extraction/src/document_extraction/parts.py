"""A sheet holding several documents one under the other, cut into one grid each. Each part
keeps its rows' numbers in the sheet (its locators point where the analyst looks) and only
the outline levels and number formats of its own rows."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from document_extraction.grid import CellValue, Grid
from document_extraction.text import is_empty

# Lines above a title that belong to it (the organisation, the program's line): at most this
# many, up to the blank line that parts it from the document before.
TITLE_BLOCK_LINES = 4


def part_of(grid: Grid, start: int, end: int) -> Grid:
    """Rows ``start`` to ``end`` (exclusive) of the grid as a grid of their own."""
    return Grid(
        grid.name,
        grid.rows[start:end],
        row_numbers=[grid.row_number(i) for i in range(start, end)],
        outline_levels={
            i - start: level for i, level in grid.outline_levels.items() if start <= i < end
        },
        number_formats={
            (r - start, c): f for (r, c), f in grid.number_formats.items() if start <= r < end
        },
    )


def cut_at(grid: Grid, cuts: Sequence[int]) -> list[Grid]:
    """The parts between the cuts (the first part from row 0, the last to the end)."""
    bounds = [0, *cuts, len(grid.rows)]
    return [part_of(grid, start, end) for start, end in itertools.pairwise(bounds)]


def title_block_start(rows: Sequence[Sequence[CellValue]], title: int) -> int:
    """Where the block of lines of a title starts: the first of the non-empty lines right
    above it, up to TITLE_BLOCK_LINES."""
    start = title
    while start > 0 and title - start < TITLE_BLOCK_LINES:
        if all(is_empty(c) for c in rows[start - 1]):
            break
        start -= 1
    return start


def split_where(
    grid: Grid,
    cuts: Sequence[int],
    is_document: Callable[[Grid], bool],
) -> list[Grid]:
    """The parts at ``cuts`` when every part is a document of its own, else the whole grid:
    only a sheet of exact cells is cut (a page's lines are not those of a sheet)."""
    if not cuts or grid.kind != "sheet" or grid.cell_confidence is not None:
        return [grid]
    parts = cut_at(grid, cuts)
    return parts if all(is_document(part) for part in parts) else [grid]
