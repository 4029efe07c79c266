"""The writers produce the 1C quirks the corpus promises, and the readers see them."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from python_calamine import CalamineWorkbook

from recognition_corpus import (
    NUMBER_FORMATS,
    OUTLINE_LEVELS,
    UNSUPPORTED,
    generate,
    read_grids,
    write_xls,
    write_xlsb,
    write_xlsx,
    xlsx_details,
)


def _general_with_numeric_codes() -> object:
    for layout in generate(seed=3, per_family=6, families=["osv-general-bp"]):
        sheet = layout.sheets[0]
        if any(isinstance(row[0], int) for row in sheet.rows if row) and sheet.outline:
            return layout
    raise AssertionError("no variant with numeric codes and outline levels")


def test_xlsx_has_capital_shared_strings_and_stays_readable(tmp_path: Path) -> None:
    layout = _general_with_numeric_codes()
    path = tmp_path / "osv.xlsx"
    write_xlsx(layout, path)  # type: ignore[arg-type]
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        content_types = archive.read("[Content_Types].xml").decode()
        rels = archive.read("xl/_rels/workbook.xml.rels").decode()
    assert "xl/SharedStrings.xml" in names
    assert "xl/sharedStrings.xml" not in names
    assert "/xl/SharedStrings.xml" in content_types
    assert re.search(r'Target="SharedStrings\.xml"', rels)
    sheet = CalamineWorkbook.from_path(str(path)).get_sheet_by_index(0).to_python()
    assert any("Оборотно-сальдовая ведомость" in str(cell) for row in sheet for cell in row)


def test_xlsx_keeps_code_formats_outline_levels_and_merges(tmp_path: Path) -> None:
    layout = _general_with_numeric_codes()
    sheet = layout.sheets[0]  # type: ignore[attr-defined]
    path = tmp_path / "osv.xlsx"
    write_xlsx(layout, path)  # type: ignore[arg-type]
    outline, formats = xlsx_details(path)[sheet.name]
    assert outline == sheet.outline
    code_cells = [(r, 0) for r, row in enumerate(sheet.rows) if row and isinstance(row[0], int)]
    assert code_cells
    assert all(formats[cell] == "00" for cell in code_cells)
    with zipfile.ZipFile(path) as archive:
        xml = archive.read("xl/worksheets/sheet1.xml").decode()
    assert len(re.findall(r"<mergeCell ", xml)) == len(sheet.merges)
    grid = read_grids(path)[0]
    r0, c0, _r1, c1 = next(m for m in sheet.merges if m[3] > m[1])  # a caption over two columns
    assert grid.rows[r0][c0] == sheet.rows[r0][c0]
    assert grid.rows[r0][c1] is None  # the value sits in the top-left cell only


def test_xls_and_xlsb_carry_the_values(tmp_path: Path) -> None:
    layout = _general_with_numeric_codes()
    sheet = layout.sheets[0]  # type: ignore[attr-defined]
    for writer, suffix in ((write_xls, "xls"), (write_xlsb, "xlsb")):
        path = tmp_path / f"osv.{suffix}"
        writer(layout, path)  # type: ignore[operator]
        grid = read_grids(path)[0]
        assert grid.name == sheet.name
        title = next(r for r, row in enumerate(sheet.rows) if row and "ведомость" in str(row[0]))
        assert grid.rows[title][0] == sheet.rows[title][0]
        code_row = next(r for r, row in enumerate(sheet.rows) if row and isinstance(row[0], int))
        # calamine gives numbers as floats and no formats: the leading zero is for extraction.
        assert grid.rows[code_row][0] == float(sheet.rows[code_row][0])  # type: ignore[arg-type]
        assert grid.number_formats == {}


def test_xlsb_limits_are_declared() -> None:
    assert {NUMBER_FORMATS, OUTLINE_LEVELS} <= UNSUPPORTED["xlsb"]
    assert UNSUPPORTED["xlsx"] == frozenset()


def test_text_amounts_keep_their_separators(tmp_path: Path) -> None:
    layout = generate(seed=1, per_family=1, families=["osv-text-amounts"])[0]
    path = tmp_path / "text.xlsx"
    write_xlsx(layout, path)
    cells = [c for row in read_grids(path)[0].rows for c in row if isinstance(c, str)]
    assert any(re.fullmatch(r"\d{1,3}([\u00a0\u202f ]\d{3})+,\d{2}", c) for c in cells)
