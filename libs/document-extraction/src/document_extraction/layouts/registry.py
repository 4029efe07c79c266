"""The layouts, registered once, in the order a grid is tried against them: a trial balance's
header is the most specific (six money columns), an account analysis's next (marker words in the
correspondent-account column), a statement's the most general (dates and amounts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from document_extraction.grid import CellValue
from document_extraction.layouts.account_analysis import ACCOUNT_ANALYSIS
from document_extraction.layouts.protocol import Found, Layout, TableHeader
from document_extraction.layouts.statement import STATEMENT
from document_extraction.layouts.trial_balance import TRIAL_BALANCE

LAYOUTS: Final[tuple[Layout, ...]] = (TRIAL_BALANCE, ACCOUNT_ANALYSIS, STATEMENT)


def find_layout(rows: Sequence[Sequence[CellValue]]) -> tuple[Layout, Found] | None:
    """The first registered layout whose header the rows hold, with the header found."""
    for layout in LAYOUTS:
        found = layout.find(rows)
        if found is not None:
            return layout, found
    return None


def table_header(rows: Sequence[Sequence[CellValue]]) -> TableHeader | None:
    """Where the table header of whatever document the rows hold stands, and its columns; None
    where there is no table (a quiet account's statement: its title and balances alone)."""
    located = find_layout(rows)
    table = None if located is None else located[1].table
    return table if table is not None and table.columns else None
