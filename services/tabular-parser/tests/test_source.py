"""The sheets as read, kept for the source view: chunked so that a row of a 100,000-row sheet
is found by reading one chunk, cells as the analyst reads them."""

from __future__ import annotations

import datetime
import json

from document_extraction.grid import Grid
from tabular_parser import testing as books
from tabular_parser.limits import WorkbookLimits
from tabular_parser.sniff import Container
from tabular_parser.source import CHUNK_ROWS, INDEX, cell_text, source_files
from tabular_parser.workbook import read_workbook


def test_a_long_sheet_is_kept_in_chunks_listed_by_their_row_numbers() -> None:
    rows = [[f"{n}", n * 1.5] for n in range(CHUNK_ROWS * 2 + 10)]
    numbers = [n + 5 for n in range(len(rows))]  # the sheet's data starts on row 6
    files = source_files([Grid("ОСВ", rows, row_numbers=numbers), Grid("Пустой", [])])
    index = json.loads(files[INDEX])
    long, empty = index["sheets"]
    assert [(c["first"], c["last"]) for c in long["chunks"]] == [
        (5, CHUNK_ROWS + 4),
        (CHUNK_ROWS + 5, 2 * CHUNK_ROWS + 4),
        (2 * CHUNK_ROWS + 5, 2 * CHUNK_ROWS + 14),
    ]
    assert (long["rows"], long["columns"], empty["chunks"]) == (len(rows), 2, [])
    last = json.loads(files[long["chunks"][2]["name"]])
    assert last["rows"][-1] == [2 * CHUNK_ROWS + 14, [f"{len(rows) - 1}", "3013.5"]]
    assert set(files) == {INDEX, *(c["name"] for c in long["chunks"])}


def test_cells_read_as_the_analyst_sees_them() -> None:
    assert [
        cell_text(v)
        for v in (
            None,
            1234.0,
            0.1 + 0.2,
            True,
            datetime.date(2024, 3, 31),
            datetime.datetime(2024, 3, 31, 0, 0),
            "Итого",
        )
    ] == ["", "1234", "0.30000000000000004", "ИСТИНА", "31.03.2024", "31.03.2024", "Итого"]


def test_merged_captions_are_kept_by_workbook_row_number() -> None:
    book = books.xlsx([books.general_osv(accounts=3, subaccounts=1)])
    read = read_workbook(book, Container.XLSX, WorkbookLimits())
    index = json.loads(source_files(read.grids, read.merges)[INDEX])
    # «Сальдо на начало периода» and its neighbours over two columns each, on row 5.
    assert index["sheets"][0]["merged"] == [[5, 2, 5, 3], [5, 4, 5, 5], [5, 6, 5, 7]]
    # Ranges outside the rows read are not kept.
    grid = Grid("Лист", [["a", None], [None, None]], row_numbers=[10, 11])
    kept = json.loads(source_files([grid], {"Лист": [(0, 0, 1, 1), (1, 0, 5, 1)]})[INDEX])
    assert kept["sheets"][0]["merged"] == [[10, 0, 11, 1]]
