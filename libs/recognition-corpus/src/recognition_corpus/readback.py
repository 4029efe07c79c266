"""Reading written files back into grids, as the services do: python-calamine for values, and
for XLSX the sheet XML for what calamine does not expose (outline levels, number formats).

Only for the corpus's own files: the XML is parsed with the standard library, without the
limits a reader of hostile uploads needs (that reader lives in the tabular-parser service)."""

from __future__ import annotations

import datetime
import posixpath
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from python_calamine import CalamineWorkbook

from document_extraction import CellValue, Grid

_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_NS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_BUILTIN_FORMATS = {1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 14: "dd.mm.yyyy"}


def read_grids(path: Path, *, xml_details: bool = True) -> list[Grid]:
    workbook = CalamineWorkbook.from_path(str(path))
    details: dict[str, tuple[dict[int, int], dict[tuple[int, int], str]]] = {}
    if xml_details and path.suffix.lower() == ".xlsx":
        details = xlsx_details(path)
    grids = []
    for name in workbook.sheet_names:
        sheet = workbook.get_sheet_by_name(name)
        rows: list[list[CellValue]] = [
            [_value(cell) for cell in row] for row in sheet.to_python(skip_empty_area=False)
        ]
        outline, formats = details.get(name, ({}, {}))
        grids.append(Grid(name=name, rows=rows, outline_levels=outline, number_formats=formats))
    return grids


def _value(cell: Any) -> CellValue:
    """calamine's cell as a grid cell: "" is empty; times and durations become text."""
    if cell == "":
        return None
    if isinstance(cell, str | int | float | bool | datetime.date):
        return cell
    return str(cell)


def _cell_ref(ref: str) -> tuple[int, int]:
    col = 0
    index = 0
    while index < len(ref) and ref[index].isalpha():
        col = col * 26 + (ord(ref[index].upper()) - 64)
        index += 1
    return int(ref[index:]) - 1, col - 1


def _sheet_paths(archive: zipfile.ZipFile) -> Iterator[tuple[str, str]]:
    workbook = ET.fromstring(archive.read("xl/workbook.xml"))  # noqa: S314
    rels = ET.fromstring(archive.read("xl/_rels/workbook.xml.rels"))  # noqa: S314
    targets = {rel.get("Id"): rel.get("Target", "") for rel in rels.iter(f"{_PKG_NS}Relationship")}
    for sheet in workbook.iter(f"{_NS}sheet"):
        target = targets.get(sheet.get(f"{_REL_NS}id"), "")
        path = (
            target.lstrip("/")
            if target.startswith("/")
            else posixpath.normpath(posixpath.join("xl", target))
        )
        yield sheet.get("name", ""), path


def _styles(archive: zipfile.ZipFile) -> list[str | None]:
    try:
        root = ET.fromstring(archive.read("xl/styles.xml"))  # noqa: S314
    except KeyError:
        return []
    custom = {
        int(f.get("numFmtId", "0")): f.get("formatCode", "") for f in root.iter(f"{_NS}numFmt")
    }
    xfs = root.find(f"{_NS}cellXfs")
    out: list[str | None] = []
    for xf in xfs if xfs is not None else []:
        fmt_id = int(xf.get("numFmtId", "0"))
        out.append(custom.get(fmt_id) or _BUILTIN_FORMATS.get(fmt_id))
    return out


def xlsx_details(path: Path) -> dict[str, tuple[dict[int, int], dict[tuple[int, int], str]]]:
    """Row outline levels and non-general number formats of every sheet, streamed."""
    out: dict[str, tuple[dict[int, int], dict[tuple[int, int], str]]] = {}
    with zipfile.ZipFile(path) as archive:
        styles = _styles(archive)
        for name, sheet_path in _sheet_paths(archive):
            outline: dict[int, int] = {}
            formats: dict[tuple[int, int], str] = {}
            with archive.open(sheet_path) as stream:
                for _, element in ET.iterparse(stream, events=("end",)):  # noqa: S314
                    tag = element.tag
                    if tag == f"{_NS}c":
                        style = element.get("s")
                        if style is not None and element.get("t") != "s":
                            index = int(style)
                            fmt = styles[index] if index < len(styles) else None
                            if fmt:
                                formats[_cell_ref(element.get("r", "A1"))] = fmt
                        element.clear()
                    elif tag == f"{_NS}row":
                        level = element.get("outlineLevel")
                        if level and level != "0":
                            outline[int(element.get("r", "1")) - 1] = int(level)
                        element.clear()
            out[name] = (outline, formats)
    return out
