"""The trial balance (ОСВ): six money columns (opening, turnovers, closing; debit and credit)
beside account codes or names, one row per account, subaccount or subconto."""

from __future__ import annotations

from typing import Final

from document_extraction.grid import Grid
from document_extraction.layouts.protocol import Found, Rows
from document_extraction.layouts.trial_balance.build import build_osv
from document_extraction.layouts.trial_balance.header import OsvHeader, find_osv_header
from document_extraction.layouts.trial_balance.parts import osv_parts
from document_extraction.titles import read_titles
from recognition_contract import Document


class TrialBalanceLayout:
    name = "trial_balance"

    def find(self, rows: Rows) -> OsvHeader | None:
        return find_osv_header(rows)

    def documents(self, grid: Grid, found: Found) -> list[Document]:
        """One document per trial balance of the sheet (two periods may stand one under the
        other), each from the header found in its own part."""
        documents: list[Document] = []
        for part in osv_parts(grid):
            header = found if part is grid else find_osv_header(part.rows)
            if isinstance(header, OsvHeader):  # osv_parts keeps only parts with a header
                documents.append(build_osv(part, header, read_titles(part.rows, header.first_row)))
        return documents


TRIAL_BALANCE: Final = TrialBalanceLayout()
