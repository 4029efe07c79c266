"""Layouts printed the way an analyst's PDFs are made: a workbook with a page setup (A4, fitted
to the page width, landscape where wide, the table header repeated on every page, wrapped text
in narrow columns, a real font) printed to PDF by LibreOffice headless in a Russian locale.

    setup = print_setup(seed, index)           # the print axes of one layout
    write_print_xlsx(layout, setup, path)
    pdfs = print_to_pdf([path, ...], outdir)   # one LibreOffice run for many workbooks

The page setup varies along its own axes (PRINT_AXES), drawn independently of the layout's axes,
so that accuracy can be reported per font, border style, column width and orientation.
"""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from document_extraction.layouts.registry import table_header
from recognition_corpus.axes.draw import Axis, Draw, uniform
from recognition_corpus.layout import Cell, Layout, Sheet

PRINT_AXES: dict[str, Axis] = {
    # Carlito is metric-compatible with Calibri (Excel's default), Liberation Sans with Arial.
    "print_font": uniform("Carlito", "Liberation Sans", "DejaVu Sans", "Liberation Serif"),
    "print_size": uniform(8, 9, 10, 11),
    # all: a ruled grid; none: no lines at all; header: only the header is boxed.
    "print_borders": uniform("all", "none", "header"),
    # fit: text columns as wide as their text; wrap: long names wrap onto two or three lines.
    "print_text_width": uniform("fit", "wrap"),
    # auto: landscape where the table is wide; landscape: always.
    "print_orientation": (("auto", 0.8), ("landscape", 0.2)),
    "print_repeat_header": (("yes", 0.7), ("no", 0.3)),
}

# Column widths are in characters of the workbook's default font (11 pt).
_WRAP_WIDTH = 26
_MAX_TEXT_WIDTH = 60
_LABEL_WIDTH = 22
# Points a portrait A4 page holds between its margins; a wider table is printed landscape.
_PORTRAIT_WIDTH = 540
CONVERT_TIMEOUT_SECONDS = 600


@dataclass(frozen=True)
class PrintSetup:
    font: str = "Carlito"
    size: int = 10
    borders: str = "all"
    text_width: str = "fit"
    orientation: str = "auto"
    repeat_header: bool = True

    @property
    def params(self) -> dict[str, Any]:
        return {
            "print_font": self.font,
            "print_size": self.size,
            "print_borders": self.borders,
            "print_text_width": self.text_width,
            "print_orientation": self.orientation,
            "print_repeat_header": "yes" if self.repeat_header else "no",
        }


def print_setup(seed: int, index: int) -> PrintSetup:
    draw = Draw(seed, index, PRINT_AXES)
    return PrintSetup(
        font=draw["print_font"],
        size=draw["print_size"],
        borders=draw["print_borders"],
        text_width=draw["print_text_width"],
        orientation=draw["print_orientation"],
        repeat_header=draw["print_repeat_header"] == "yes",
    )


@dataclass(frozen=True)
class _Table:
    header_first: int
    header_last: int
    last: int


def _table(sheet: Sheet) -> _Table | None:
    rows = [[None if v is None else str(v) for v in row] for row in sheet.rows]
    table = table_header(rows)
    if table is None:
        return None
    found = table.first_row, table.last_row
    last = found[1]
    for index in range(found[1] + 1, len(sheet.rows)):
        if sum(v is not None and v != "" for v in sheet.rows[index]) >= 3:
            last = index
    return _Table(found[0], found[1], last)


def _shown(value: Cell, fmt: str | None) -> str:
    """Roughly what a cell shows, for its column's width."""
    if value is None:
        return ""
    if isinstance(value, datetime.date):
        return "00.00.0000 00:00:00" if fmt and "h" in fmt else "00.00.0000"
    if isinstance(value, int | float):
        if fmt and "0.00" in fmt:
            return f"({abs(value):,.2f})"
        return f"{value:.2f}" if value != int(value) else str(int(value))
    return str(value)


class _Metrics:
    """Text widths in points in the setup's real font (as LibreOffice will set it), for
    column widths that fit and row heights that hold every wrapped line."""

    def __init__(self, setup: PrintSetup) -> None:
        self.setup = setup
        self._fonts: dict[bool, Any] = {}

    def _font(self, bold: bool) -> Any:
        if bold not in self._fonts:
            from PIL import ImageFont

            style = "bold" if bold else "regular"
            found = subprocess.run(
                ["fc-match", "-f", "%{file}", f"{self.setup.font}:{style}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            # Measured at 10x the size: PIL rounds lengths to whole pixels.
            self._fonts[bold] = ImageFont.truetype(found, self.setup.size * 10)
        return self._fonts[bold]

    def width(self, text: str, *, bold: bool = False) -> float:
        return float(self._font(bold).getlength(text)) / 10

    def lines(self, text: str, width: float, *, bold: bool) -> int:
        """Lines a wrapped cell ``width`` points wide takes (greedy by words, a word wider
        than the cell broken where it must, as a spreadsheet wraps)."""
        room = max(width - 2 * _PADDING, 1.0)
        count = 0
        for paragraph in text.split("\n"):
            line = ""
            count += 1
            for word in paragraph.split():
                candidate = f"{line} {word}" if line else word
                if self.width(candidate, bold=bold) <= room:
                    line = candidate
                    continue
                if line:
                    count += 1
                line = word
                while len(line) > 1 and self.width(line, bold=bold) > room:
                    cut = len(line) - 1
                    while cut > 1 and self.width(line[:cut], bold=bold) > room:
                        cut -= 1
                    count += 1
                    line = line[cut:]
        return count


# Points of padding on each side of a cell's text; column widths in characters of the
# default font (Calibri 11: 7 px of 96 dpi per character plus 5 px).
_PADDING = 2.5


def _points(width: float) -> float:
    return (width * 7 + 5) * 0.75


def _characters(points: float) -> float:
    return max(0.0, (points / 0.75 - 5) / 7)


def _widths(
    sheet: Sheet, table: _Table | None, setup: PrintSetup, metrics: _Metrics
) -> list[float]:
    """Column widths (characters): the widest value of the body, text capped (it wraps),
    and at least the longest word of the header's captions."""
    first = table.header_last + 1 if table else 0
    last = table.last if table else len(sheet.rows) - 1
    above = table.header_first if table else 0
    header = range(table.header_first, table.header_last + 1) if table else range(0)
    cap = _WRAP_WIDTH if setup.text_width == "wrap" else _MAX_TEXT_WIDTH
    widths: list[float] = []
    for column in range(sheet.width):
        widest = 0.0
        for r in range(first, last + 1):
            row = sheet.rows[r]
            if column >= len(row) or row[column] is None:
                continue
            value = row[column]
            shown = _shown(value, sheet.formats.get((r, column)))
            width = max(metrics.width(line) for line in shown.split("\n"))
            if isinstance(value, str) and len(value.split()) > 1:
                # Words wrap; one long token (an IBAN, a code) is given its width.
                width = min(width, metrics.width("0") * cap)
            widest = max(widest, width)
        for r in header:
            row = sheet.rows[r]
            value = row[column] if column < len(row) else None
            if isinstance(value, str):
                words = value.split() or [""]
                widest = max(widest, *(metrics.width(w, bold=True) for w in words))
        for r in range(above):
            # A label of the title block beside its value ("Валюта:" | "933"): a form is
            # laid out so that its labels fit.
            row = sheet.rows[r]
            value = row[column] if column < len(row) else None
            beside = row[column + 1] if column + 1 < len(row) else None
            if isinstance(value, str) and beside not in (None, ""):
                widest = max(widest, min(metrics.width(value), metrics.width("0") * _LABEL_WIDTH))
        for r in (*range(above), *range(last + 1, len(sheet.rows))):
            # A balance above or below the table: a form shows its numbers, never "###".
            row = sheet.rows[r]
            value = row[column] if column < len(row) else None
            if isinstance(value, int | float) and not isinstance(value, bool):
                widest = max(widest, metrics.width(_shown(value, sheet.formats.get((r, column)))))
        widths.append(max(4.0, _characters(widest + 2 * _PADDING) + 0.5))
    return widths


class _Styles:
    """One xlsxwriter format per combination the page setup uses."""

    def __init__(self, workbook: Any, setup: PrintSetup) -> None:
        self.workbook = workbook
        self.setup = setup
        self.cache: dict[tuple[Any, ...], Any] = {}

    def __call__(self, fmt: str | None, *, wrap: bool, border: bool, bold: bool) -> Any:
        key = (fmt, wrap, border, bold)
        if key not in self.cache:
            props: dict[str, Any] = {
                "font_name": self.setup.font,
                "font_size": self.setup.size,
                "valign": "top",
            }
            if fmt:
                props["num_format"] = fmt
            if wrap:
                props["text_wrap"] = True
            if border:
                props["border"] = 1
            if bold:
                props["bold"] = True
            self.cache[key] = self.workbook.add_format(props)
        return self.cache[key]


@dataclass
class _SheetPrint:
    sheet: Sheet
    setup: PrintSetup
    styles: _Styles

    def __post_init__(self) -> None:
        self.table = _table(self.sheet)
        self.metrics = _Metrics(self.setup)
        self.widths = _widths(self.sheet, self.table, self.setup, self.metrics)
        self.merged = {(r0, c0): (r1, c1) for r0, c0, r1, c1 in self.sheet.merges}

    def in_header(self, r: int) -> bool:
        return self.table is not None and self.table.header_first <= r <= self.table.header_last

    def wraps(self, r: int, c: int, row: Sequence[Cell]) -> bool:
        table = self.table
        # A line of the table with one text ("Остаток на конец дня ...") runs on over the
        # empty cells beside it, as a merged row of a bank's form does.
        alone = sum(v not in (None, "") for v in row) == 1
        inside = table is not None and table.header_first <= r <= table.last and not alone
        # A title line overflows into the empty cells to its right, as in the sheet; text
        # with a neighbour to its right would be cut off, so it wraps instead.
        neighbour = c + 1 < len(row) and row[c + 1] not in (None, "")
        return inside or neighbour

    def style(self, r: int, c: int, value: Cell, row: Sequence[Cell]) -> Any:
        fmt = self.sheet.formats.get((r, c))
        if isinstance(value, datetime.date) and fmt is None:
            fmt = "dd.mm.yyyy"
        table = self.table
        in_body = table is not None and table.header_last < r <= table.last
        border = (self.setup.borders == "all" and (self.in_header(r) or in_body)) or (
            self.setup.borders == "header" and self.in_header(r)
        )
        wrap = isinstance(value, str) and self.wraps(r, c, row)
        return self.styles(fmt, wrap=wrap, border=border, bold=self.in_header(r))

    def row_height(self, r: int, row: Sequence[Cell]) -> float:
        """A spreadsheet program stores each row's height and LibreOffice keeps what the file
        says: a row of wrapped text is as tall as its lines."""
        spans = {(r0, c0): c1 for (r0, c0), (_, c1) in self.merged.items()}
        lines = 1
        for c, value in enumerate(row):
            if isinstance(value, str) and value and self.wraps(r, c, row):
                width = sum(_points(w) for w in self.widths[c : spans.get((r, c), c) + 1])
                lines = max(lines, self.metrics.lines(value, width, bold=self.in_header(r)))
        return lines * self.setup.size * 1.2 + 4

    def write(self, ws: Any) -> None:
        for column, width in enumerate(self.widths):
            ws.set_column(column, column, width)
        table = self.table
        for r, row in enumerate(self.sheet.rows):
            ws.set_row(r, self.row_height(r, row))
            for c, value in enumerate(row):
                if (r, c) in self.merged:
                    continue
                fmt = self.style(r, c, value, row)
                if value is None:
                    if table is not None and table.header_first <= r:
                        ws.write_blank(r, c, None, fmt)
                elif isinstance(value, str):
                    ws.write_string(r, c, value, fmt)
                elif isinstance(value, datetime.date):
                    ws.write_datetime(r, c, value, fmt)
                else:
                    ws.write_number(r, c, value, fmt)
        for (r0, c0), (r1, c1) in self.merged.items():
            row = self.sheet.rows[r0]
            value = row[c0] if c0 < len(row) else None
            shown = "" if value is None else value
            ws.merge_range(r0, c0, r1, c1, shown, self.style(r0, c0, value, row))
        ws.set_paper(9)  # A4
        ws.set_margins(left=0.4, right=0.4, top=0.5, bottom=0.5)
        ws.fit_to_pages(1, 0)
        wide = sum(map(_points, self.widths)) > _PORTRAIT_WIDTH
        if self.setup.orientation == "landscape" or wide:
            ws.set_landscape()
        else:
            ws.set_portrait()
        if table is not None and self.setup.repeat_header:
            ws.repeat_rows(table.header_first, table.header_last)


def write_print_xlsx(layout: Layout, setup: PrintSetup, path: Path) -> None:
    """The layout's sheets as a print-ready workbook (values as the layout holds them, with
    their number formats; merges kept)."""
    import xlsxwriter  # type: ignore[import-untyped]

    workbook = xlsxwriter.Workbook(
        str(path), {"strings_to_numbers": False, "strings_to_urls": False}
    )
    styles = _Styles(workbook, setup)
    for sheet in layout.sheets:
        _SheetPrint(sheet, setup, styles).write(workbook.add_worksheet(sheet.name))
    if not layout.sheets:
        workbook.add_worksheet("Лист1")
    workbook.close()


def print_to_pdf(workbooks: Sequence[Path], outdir: Path) -> dict[Path, Path]:
    """Each workbook printed to ``outdir/<stem>.pdf`` by one LibreOffice run, in a Russian
    locale (digit groups by a space, a decimal comma). Returns the PDFs that were made."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise RuntimeError("LibreOffice (soffice) is not installed: scripts/install-system-deps.sh")
    outdir.mkdir(parents=True, exist_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="lo-profile-"))
    env = {
        **os.environ,
        "LANG": "ru_RU.UTF-8",
        "LC_ALL": "ru_RU.UTF-8",
        "SAL_USE_VCLPLUGIN": "svp",
        "HOME": str(profile),
    }
    try:
        subprocess.run(
            [
                soffice,
                f"-env:UserInstallation={profile.as_uri()}",
                "--headless",
                "--norestore",
                "--nolockcheck",
                "--convert-to",
                "pdf:calc_pdf_Export",
                "--outdir",
                str(outdir),
                *map(str, workbooks),
            ],
            env=env,
            check=True,
            capture_output=True,
            timeout=CONVERT_TIMEOUT_SECONDS,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    made = {path: outdir / f"{path.stem}.pdf" for path in workbooks}
    return {source: pdf for source, pdf in made.items() if pdf.exists()}
