"""Trial balances one under the other on a sheet (two periods of a company, or the accounts of
a report one after another): cut at each title, when every part is a trial balance."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from document_extraction.captions import MAX_COLUMNS
from document_extraction.grid import CellValue, Grid
from document_extraction.layouts.trial_balance.header import find_osv_header
from document_extraction.parts import split_where, title_block_start
from document_extraction.text import line_of
from document_extraction.titles import is_osv_title

# Stems every title of a trial balance holds: a row without any is no title, and is passed
# over without the cost of reading it as one (a sheet has 100,000 account rows).
_TITLE_STEM: Final = re.compile("ведом|оборот|анализ", re.IGNORECASE)
# A title stands in the first cells of its row.
TITLE_CELLS: Final = 8


def osv_parts(grid: Grid) -> list[Grid]:
    """One grid per trial balance of the sheet; the sheet itself when it holds one (a title
    printed again at the top of each page is not a second one)."""
    titles = [
        (index, line)
        for index, row in enumerate(grid.rows)
        if _may_be_title(row) and is_osv_title(line := line_of(list(row[:MAX_COLUMNS])))
    ]
    if len({line for _, line in titles}) < 2:
        return [grid]
    cuts = [title_block_start(grid.rows, index) for index, _ in titles[1:]]
    return split_where(grid, cuts, lambda part: find_osv_header(part.rows) is not None)


def _may_be_title(row: Sequence[CellValue]) -> bool:
    texts = [cell for cell in row[:TITLE_CELLS] if type(cell) is str]
    return bool(texts) and _TITLE_STEM.search(" ".join(texts)) is not None
