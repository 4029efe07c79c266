"""An export as CSV for other systems: a ZIP with one CSV per document and one of the
warnings. UTF-8 with a byte-order mark (so a spreadsheet opens it right), commas, amounts with
a decimal point and two decimals, dates as YYYY-MM-DD."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from decimal import Decimal
from typing import IO

from arm_core.export.tables import Cell, Export, Table


def write_csv_zip(export: Export, target: IO[bytes]) -> None:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for table in export.all_tables():
            archive.writestr(f"{table.name}.csv", _csv(table))


def _csv(table: Table) -> bytes:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\r\n")
    for label, value in table.about:
        writer.writerow(["#", label, _text(value)])
    writer.writerow(table.columns)
    for values in table.rows:
        writer.writerow([_text(value) for value in values])
    if table.totals is not None:
        writer.writerow([_text(value) for value in table.totals])
    return ("\ufeff" + text.getvalue()).encode("utf-8")


def _text(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)
