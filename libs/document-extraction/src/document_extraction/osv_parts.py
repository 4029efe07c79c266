"""Trial balances one under the other on a sheet (two periods of a company, or the accounts of
a report one after another): cut at each title, when every part is a trial balance."""

from __future__ import annotations

from document_extraction.captions import MAX_COLUMNS
from document_extraction.grid import Grid
from document_extraction.headers import find_osv_header
from document_extraction.parts import split_where, title_block_start
from document_extraction.text import line_of
from document_extraction.titles import is_osv_title


def osv_parts(grid: Grid) -> list[Grid]:
    """One grid per trial balance of the sheet; the sheet itself when it holds one (a title
    printed again at the top of each page is not a second one)."""
    titles = [
        (index, line)
        for index, row in enumerate(grid.rows)
        if is_osv_title(line := line_of(list(row[:MAX_COLUMNS])))
    ]
    if len({line for _, line in titles}) < 2:
        return [grid]
    cuts = [title_block_start(grid.rows, index) for index, _ in titles[1:]]
    return split_where(grid, cuts, lambda part: find_osv_header(part.rows) is not None)
