"""Grids of cells (workbook sheets, PDF or scan pages) into checked documents of the contract.

Pure: no I/O. A reader (tabular-parser, scan-gateway) turns a file into ``Grid`` objects and
calls ``extract``; the result's documents and warnings are the contract's typed values
(``recognition_contract.TrialBalance`` / ``Statement``, ``Warning``), which the services write
with the contract's serialiser.

    extract(grids: Sequence[Grid]) -> Extraction
        Extraction(documents, warnings, group_schema, status)
        raises NoDocumentFound(reason) when no grid holds a trial balance or a statement.

    Grid(name, rows, kind="sheet"|"page", page=None, row_numbers=None, outline_levels={},
         number_formats={}, cell_confidence=None, cell_boxes=None);  BBox(x0, y0, x1, y1)
         (the contract's box)

Helpers the readers and tests use: ``parse_amount``, ``format_money``, ``code_from_cell``,
``parse_period``, ``unp_valid``, ``inn_valid``, ``iban_valid``.
"""

from document_extraction.accounts import code_from_cell, detect_chart
from document_extraction.dates import parse_date_cell, parse_period
from document_extraction.extract import Extraction, NoDocumentFound, extract
from document_extraction.grid import CellValue, Grid
from document_extraction.identifiers import iban_valid, inn_valid, unp_valid
from document_extraction.numbers import format_money, parse_amount
from recognition_contract import BBox

__all__ = [
    "BBox",
    "CellValue",
    "Extraction",
    "Grid",
    "NoDocumentFound",
    "code_from_cell",
    "detect_chart",
    "extract",
    "format_money",
    "iban_valid",
    "inn_valid",
    "parse_amount",
    "parse_date_cell",
    "parse_period",
    "unp_valid",
]
