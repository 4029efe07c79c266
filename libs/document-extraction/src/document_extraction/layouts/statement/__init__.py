"""The bank statement: a table of operations (a date, amounts on a side or signed, the
counterparty, the purpose) under title lines naming the account, its holder, bank and period,
with balances and totals around it."""

from __future__ import annotations

from typing import Final

from document_extraction.grid import Grid
from document_extraction.layouts.protocol import Found, Rows
from document_extraction.layouts.statement.build import build_statement
from document_extraction.layouts.statement.header import StatementHeader, find_statement_header
from document_extraction.layouts.statement.parts import (
    find_statement_without_table,
    statement_parts,
)
from recognition_contract import Document


class StatementLayout:
    name = "statement"

    def find(self, rows: Rows) -> StatementHeader | None:
        """The operations' table header, or a quiet account's title and balances alone."""
        return find_statement_header(rows) or find_statement_without_table(rows)

    def documents(self, grid: Grid, found: Found) -> list[Document]:
        """One document per account's statement of the sheet, each from its own part's header."""
        documents: list[Document] = []
        for part in statement_parts(grid):
            header = found if part is grid else self.find(part.rows)
            if isinstance(header, StatementHeader):
                documents.append(build_statement(part, header))
        return documents


STATEMENT: Final = StatementLayout()
