"""Layouts into workbooks: XLSX (xlsxwriter, plus the 1C SharedStrings quirk), XLS (xlwt),
XLSB (pyxlsbwriter)."""

from __future__ import annotations

import datetime
import os
import re
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import xlsxwriter  # type: ignore[import-untyped]
import xlwt
from pyxlsbwriter import XlsbWriter

from recognition_corpus.layout import MERGES, NUMBER_FORMATS, OUTLINE_LEVELS, Layout

# What each writer cannot put into its file. XLSB: pyxlsbwriter writes values only (strings,
# numbers, dates), with no number formats, row outline levels or merged cells.
UNSUPPORTED: dict[str, frozenset[str]] = {
    "xlsx": frozenset(),
    "xls": frozenset(),
    "xlsb": frozenset({NUMBER_FORMATS, OUTLINE_LEVELS, MERGES}),
}
FORMATS = ("xlsx", "xls", "xlsb")


def write(layout: Layout, path: Path, fmt: str) -> None:
    {"xlsx": write_xlsx, "xls": write_xls, "xlsb": write_xlsb}[fmt](layout, path)


def write_xlsx(layout: Layout, path: Path, *, capital_shared_strings: bool = True) -> None:
    """An XLSX as 1C writes it: numeric codes with format 00, outline levels, merged captions
    with the value in the top-left cell, and ``xl/SharedStrings.xml`` with a capital S."""
    workbook = xlsxwriter.Workbook(
        str(path), {"strings_to_numbers": False, "strings_to_urls": False}
    )
    cache: dict[str, Any] = {}

    def style(fmt: str | None) -> Any:
        if fmt is None:
            return None
        if fmt not in cache:
            cache[fmt] = workbook.add_format({"num_format": fmt})
        return cache[fmt]

    for sheet in layout.sheets:
        ws = workbook.add_worksheet(sheet.name)
        for r, row in enumerate(sheet.rows):
            for c, value in enumerate(row):
                if value is None:
                    continue
                fmt = style(sheet.formats.get((r, c)))
                if isinstance(value, str):
                    ws.write_string(r, c, value, fmt)
                elif isinstance(value, datetime.date):
                    ws.write_datetime(r, c, value, fmt or style("dd.mm.yyyy"))
                else:
                    ws.write_number(r, c, value, fmt)
        for r, level in sheet.outline.items():
            ws.set_row(r, None, None, {"level": level})
        for r0, c0, r1, c1 in sheet.merges:
            value = sheet.rows[r0][c0] if c0 < len(sheet.rows[r0]) else None
            ws.merge_range(
                r0, c0, r1, c1, "" if value is None else value, style(sheet.formats.get((r0, c0)))
            )
        # Outline summary rows above the detail, as 1C exports them.
        ws.outline_settings(True, False, True, False)
    if not layout.sheets:
        workbook.add_worksheet("Лист1")
    workbook.close()
    if capital_shared_strings:
        capitalise_shared_strings(path)


def capitalise_shared_strings(path: Path) -> None:
    """Rename xl/sharedStrings.xml to xl/SharedStrings.xml and fix the references to it, which
    is what 1C's own XLSX writer produces (openpyxl cannot open such a file)."""
    with zipfile.ZipFile(path) as source:
        names = source.namelist()
        if "xl/sharedStrings.xml" not in names:
            return
        fd, tmp_name = tempfile.mkstemp(suffix=".xlsx", dir=path.parent)
        os.close(fd)
        with zipfile.ZipFile(tmp_name, "w", zipfile.ZIP_DEFLATED) as target:
            for name in names:
                data = source.read(name)
                if name == "xl/sharedStrings.xml":
                    name = "xl/SharedStrings.xml"
                elif name in ("[Content_Types].xml", "xl/_rels/workbook.xml.rels"):
                    data = re.sub(rb"sharedStrings\.xml", b"SharedStrings.xml", data)
                target.writestr(name, data)
    shutil.move(tmp_name, path)


def write_xls(layout: Layout, path: Path) -> None:
    workbook = xlwt.Workbook(encoding="utf-8")
    cache: dict[str, Any] = {}

    def style(fmt: str | None) -> Any:
        key = fmt or "General"
        if key not in cache:
            cache[key] = xlwt.easyxf(num_format_str=key)
        return cache[key]

    for sheet in layout.sheets:
        ws = workbook.add_sheet(sheet.name[:31], cell_overwrite_ok=True)
        merged = {(r0, c0): (r1, c1) for r0, c0, r1, c1 in sheet.merges}
        covered = {
            (r, c)
            for (r0, c0), (r1, c1) in merged.items()
            for r in range(r0, r1 + 1)
            for c in range(c0, c1 + 1)
        }
        for r, row in enumerate(sheet.rows):
            for c, value in enumerate(row):
                if (r, c) in merged:
                    r1, c1 = merged[(r, c)]
                    ws.write_merge(
                        r,
                        r1,
                        c,
                        c1,
                        "" if value is None else value,
                        style(sheet.formats.get((r, c))),
                    )
                    continue
                if value is None or (r, c) in covered:
                    continue
                fmt = sheet.formats.get((r, c))
                if isinstance(value, datetime.date) and fmt is None:
                    fmt = "dd.mm.yyyy"
                ws.write(r, c, value, style(fmt))
        for r, level in sheet.outline.items():
            ws.row(r).level = level
    if not layout.sheets:
        workbook.add_sheet("Лист1")
    workbook.save(str(path))


def write_xlsb(layout: Layout, path: Path) -> None:
    """Values only: see UNSUPPORTED."""
    with XlsbWriter(str(path)) as writer:
        sheets = layout.sheets or []
        if not sheets:
            writer.add_sheet("Лист1")
            writer.write_sheet([[None]])
        for sheet in sheets:
            writer.add_sheet(sheet.name)
            width = max(sheet.width, 1)
            writer.write_sheet(
                [list(row) + [None] * (width - len(row)) for row in sheet.rows] or [[None]]
            )
