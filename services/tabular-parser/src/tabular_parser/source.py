"""The sheets as read, kept beside the result so that the core can show an analyst the cells a
row or a warning came from without parsing a workbook itself.

``sheets.json`` lists the sheets read and, for each, its chunks and merged ranges (``[first
row, first column, last row, last column]``, rows as numbered in the workbook, columns from 0 =
A); ``sheet-<s>-<k>.json`` holds
``CHUNK_ROWS`` rows of sheet ``s`` from chunk ``k`` on, each row as its number in the workbook
and its cells as text. A 100,000-row sheet is a hundred such chunks: the core reads the one a
row falls in, never the whole sheet.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping, Sequence
from decimal import Decimal

from document_extraction.accounts import render_code_format
from document_extraction.grid import CellValue, Grid

CHUNK_ROWS = 1000
INDEX = "sheets.json"


def cell_text(value: CellValue) -> str:
    """A cell as text: numbers without float noise, dates as DD.MM.YYYY."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "ИСТИНА" if value else "ЛОЖЬ"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return format(Decimal(repr(value)), "f")
    if isinstance(value, datetime.datetime):
        return (
            value.strftime("%d.%m.%Y %H:%M")
            if value.time() != datetime.time()
            else value.strftime("%d.%m.%Y")
        )
    if isinstance(value, datetime.date):
        return value.strftime("%d.%m.%Y")
    return str(value)


def _shown(grid: Grid, index: int, column: int, value: CellValue) -> str:
    """The cell as the workbook shows it: a code kept as a number with a format such as
    ``00`` shows as 01."""
    fmt = grid.number_formats.get((index, column)) if grid.number_formats else None
    if (
        fmt
        and isinstance(value, int | float)
        and not isinstance(value, bool)
        and float(value).is_integer()
    ):
        rendered = render_code_format(int(value), fmt)
        if rendered is not None:
            return rendered
    return cell_text(value)


def _chunk(grid: Grid, start: int, size: int) -> bytes:
    rows = [
        [
            grid.row_number(index),
            [_shown(grid, index, column, cell) for column, cell in enumerate(grid.rows[index])],
        ]
        for index in range(start, min(start + size, len(grid.rows)))
    ]
    return json.dumps({"sheet": grid.name, "rows": rows}, ensure_ascii=False).encode()


def source_files(
    grids: Sequence[Grid],
    merges: Mapping[str, Sequence[tuple[int, int, int, int]]] | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> dict[str, bytes]:
    """The raw files of a workbook's read sheets: the index and every chunk. ``merges``: each
    sheet's merged ranges, 0-based over the grid's rows and columns. ``chunk_rows``: rows of
    one chunk (a text file's one-cell lines make larger chunks the same size)."""
    files: dict[str, bytes] = {}
    sheets = []
    for number, grid in enumerate(grids):
        chunks = []
        for k, start in enumerate(range(0, len(grid.rows), chunk_rows)):
            name = f"sheet-{number}-{k}.json"
            files[name] = _chunk(grid, start, chunk_rows)
            last = min(start + chunk_rows, len(grid.rows)) - 1
            chunks.append(
                {"name": name, "first": grid.row_number(start), "last": grid.row_number(last)}
            )
        width = max((len(row) for row in grid.rows), default=0)
        merged = [
            [grid.row_number(r0), c0, grid.row_number(r1), c1]
            for r0, c0, r1, c1 in (merges or {}).get(grid.name, ())
            if 0 <= r0 <= r1 < len(grid.rows) and 0 <= c0 <= c1
        ]
        sheets.append(
            {
                "sheet": grid.name,
                "rows": len(grid.rows),
                "columns": width,
                "chunks": chunks,
                "merged": merged,
            }
        )
    files[INDEX] = json.dumps(
        {"chunk_rows": chunk_rows, "sheets": sheets}, ensure_ascii=False
    ).encode()
    return files
