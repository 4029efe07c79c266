"""An export as an XLSX workbook: one sheet per document, then the warnings. Money is written
as numbers with two decimals, dates as dates, so the analyst's formulas work on them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import IO, Any

import xlsxwriter  # type: ignore[import-untyped]

from arm_core.export.tables import Cell, Export, Table

MONEY_FORMAT = "#,##0.00"
DATE_FORMAT = "dd.mm.yyyy"


def write_xlsx(export: Export, target: IO[bytes]) -> None:
    # constant_memory: rows go to disk as they are written, so a 100,000-row trial balance
    # needs no more memory than a small one.
    book = xlsxwriter.Workbook(target, {"constant_memory": True})
    styles = {
        "money": book.add_format({"num_format": MONEY_FORMAT}),
        "date": book.add_format({"num_format": DATE_FORMAT}),
        "label": book.add_format({"bold": True}),
        "head": book.add_format({"bold": True, "bg_color": "#E8ECF1", "text_wrap": True}),
        "total": book.add_format({"bold": True}),
        "total_money": book.add_format({"bold": True, "num_format": MONEY_FORMAT}),
    }
    for table in export.all_tables():
        _sheet(book, table, styles)
    book.close()


def _sheet(book: Any, table: Table, styles: dict[str, Any]) -> None:
    sheet = book.add_worksheet(table.name)
    row = 0
    for label, value in table.about:
        sheet.write_string(row, 0, label, styles["label"])
        _cell(sheet, row, 1, value, styles, total=False)
        row += 1
    if table.about:
        row += 1
    for col, title in enumerate(table.columns):
        sheet.write_string(row, col, title, styles["head"])
    sheet.freeze_panes(row + 1, 0)
    row += 1
    for values in table.rows:
        for col, value in enumerate(values):
            _cell(sheet, row, col, value, styles, total=False)
        row += 1
    if table.totals is not None:
        for col, value in enumerate(table.totals):
            _cell(sheet, row, col, value, styles, total=True)
    sheet.set_column(0, 0, 14)
    sheet.set_column(1, 1, 40)
    sheet.set_column(2, len(table.columns) - 1, 16)


def _cell(
    sheet: Any, row: int, col: int, value: Cell, styles: dict[str, Any], *, total: bool
) -> None:
    plain = styles["total"] if total else None
    if value is None:
        return
    if isinstance(value, Decimal):
        # A float holds every amount of up to 15 digits exactly as two decimals show it.
        sheet.write_number(row, col, float(value), styles["total_money" if total else "money"])
    elif isinstance(value, dt.date):
        sheet.write_datetime(row, col, dt.datetime.combine(value, dt.time()), styles["date"])
    elif isinstance(value, int):
        sheet.write_number(row, col, value, plain)
    else:
        sheet.write_string(row, col, value, plain)
