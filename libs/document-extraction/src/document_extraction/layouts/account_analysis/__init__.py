"""1C «Анализ счета»: a trial balance whose balances and turnovers are rows under each object,
marked in the correspondent-account column (see ``build``)."""

from __future__ import annotations

from typing import Final

from document_extraction.grid import Grid
from document_extraction.layouts.account_analysis.build import (
    AnalysisHeader,
    build_analysis,
    find_analysis_header,
)
from document_extraction.layouts.protocol import Found, Rows
from document_extraction.titles import read_titles
from recognition_contract import Document


class AccountAnalysisLayout:
    name = "account_analysis"

    def find(self, rows: Rows) -> AnalysisHeader | None:
        return find_analysis_header(rows)

    def documents(self, grid: Grid, found: Found) -> list[Document]:
        if not isinstance(found, AnalysisHeader):
            return []
        return [build_analysis(grid, found, read_titles(grid.rows, found.first_row))]


ACCOUNT_ANALYSIS: Final = AccountAnalysisLayout()
