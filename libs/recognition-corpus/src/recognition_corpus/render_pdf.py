"""Layouts into text-layer PDFs, as a spreadsheet prints them: one sheet from a new page,
columns as wide as their widest table cell, numbers right-aligned, merged captions centred over
their columns, long text wrapped inside its cell, and the table ruled or not.

Each rendering keeps where every sheet row landed (page, line on the page), so the layout's
expected documents can be restated with page locators (``page_expected``).
"""

from __future__ import annotations

import copy
import datetime
import io
import itertools
from dataclasses import dataclass, field
from typing import Any

from recognition_corpus.layout import Cell, Expected, Layout, Sheet

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONT_NAME = "DejaVuSans"
# A4 landscape, in points.
PAGE_WIDTH = 842.0
PAGE_HEIGHT = 595.0
MARGIN = 28.0
MAX_FONT = 9.0
MIN_FONT = 6.0
# Space inside a cell on each side, in units of the font size.
PADDING = 0.45
# Height of one text line and of the extra space of a table row, in units of the font size.
LEADING = 1.15
ROW_EXTRA = 0.7
# Text cells wider than this many font sizes wrap inside their column.
WRAP_AT = 16.0
THIN_SPACE = "\u00a0"


@dataclass(frozen=True)
class Placed:
    """Where one sheet row was drawn: its page (1-based) and line on that page (the 1-based
    index among the page's non-empty rows, the way a reader numbers the rows it sees)."""

    page: int
    line: int


@dataclass
class PdfRendering:
    pdf: bytes
    pages: int
    ruled: bool
    rows: dict[tuple[int, int], Placed] = field(default_factory=dict)
    """(sheet index, row index) -> where it was drawn; empty rows are absent."""
    sheet_pages: dict[int, tuple[int, int]] = field(default_factory=dict)
    """sheet index -> first and last page."""


def display(value: Cell, fmt: str | None) -> str:
    """A cell as a spreadsheet shows it (Russian locale: space thousands, comma decimals)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, datetime.datetime | datetime.date):
        return f"{value:%d.%m.%Y}"
    if isinstance(value, bool):
        return "ИСТИНА" if value else "ЛОЖЬ"
    if fmt is not None and set(fmt) <= {"0"} and float(value).is_integer():
        return f"{int(value):0{len(fmt)}d}"
    if fmt is not None and "#,##0" in fmt:
        decimals = len(fmt.split(".")[1]) if "." in fmt else 0
        text = f"{abs(float(value)):,.{decimals}f}".replace(",", THIN_SPACE).replace(".", ",")
        return ("-" if float(value) < 0 else "") + text
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return format(float(value), ".15g").replace(".", ",")


def _numeric(value: Cell) -> bool:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return True
    if isinstance(value, str):
        stripped = value.strip().replace("\u202f", "").replace("\u00a0", "").replace(" ", "")
        body = stripped.strip("()").lstrip("-")
        # Digits alone (a document number, a taxpayer number) are text in these files.
        return "," in body and all(ch.isdigit() or ch in ",." for ch in body)
    return False


@dataclass
class _Fonts:
    registered: bool = False


_FONTS = _Fonts()


def _register() -> None:
    if _FONTS.registered:
        return
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont(FONT_NAME, f"{FONT_DIR}/DejaVuSans.ttf"))
    _FONTS.registered = True


def _width(text: str, size: float) -> float:
    from reportlab.pdfbase import pdfmetrics

    return float(pdfmetrics.stringWidth(text, FONT_NAME, size))


def _wrap(text: str, limit: float, size: float) -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        current = ""
        for word in paragraph.split(" "):
            candidate = f"{current} {word}" if current else word
            if current and _width(candidate, size) > limit:
                lines.append(current)
                current = word
            else:
                current = candidate
        lines.append(current)
    return lines


def _table_rows(sheet: Sheet) -> set[int]:
    """Rows of the table: from the first row with three or more cells to the last one (and
    the header rows in between, which may hold fewer)."""
    dense = [i for i, row in enumerate(sheet.rows) if sum(c is not None for c in row) >= 3]
    if not dense:
        return set()
    # A signature line below the table has three cells too, but no amount.
    last = max(
        (i for i in dense if any(_numeric(c) or isinstance(c, int | float) for c in sheet.rows[i])),
        default=dense[-1],
    )
    return set(range(dense[0], last + 1))


def _merged(sheet: Sheet) -> tuple[dict[tuple[int, int], tuple[int, int, int, int]], set[Any]]:
    """Top-left cell -> its merge, and every cell covered by a merge but not its top-left."""
    anchors: dict[tuple[int, int], tuple[int, int, int, int]] = {}
    covered: set[tuple[int, int]] = set()
    for r0, c0, r1, c1 in sheet.merges:
        anchors[(r0, c0)] = (r0, c0, r1, c1)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                if (r, c) != (r0, c0):
                    covered.add((r, c))
    return anchors, covered


@dataclass
class _SheetPlan:
    texts: list[list[str]]
    numeric: list[list[bool]]
    table: set[int]
    widths: list[float]  # per column, at font size 1


def _plan(sheet: Sheet) -> _SheetPlan:
    width = sheet.width
    texts = [
        [display(row[c] if c < len(row) else None, sheet.formats.get((r, c))) for c in range(width)]
        for r, row in enumerate(sheet.rows)
    ]
    numeric = [
        [_numeric(row[c]) if c < len(row) else False for c in range(width)]
        for r, row in enumerate(sheet.rows)
    ]
    table = _table_rows(sheet)
    anchors, covered = _merged(sheet)
    widths = [2.0] * width
    for r in table:
        for c in range(width):
            text = texts[r][c]
            if not text or (r, c) in covered:
                continue
            merge = anchors.get((r, c))
            if merge is not None and merge[3] > merge[1]:
                continue  # a caption over several columns does not widen the first one
            longest = max(_width(line, 1.0) for line in text.split("\n"))
            word = max(_width(w, 1.0) for w in text.split())
            widths[c] = max(widths[c], min(longest, max(WRAP_AT, word)))
    # A label beside its value above the table ("Входящий остаток: | | 1 234,56") may run
    # over empty cells up to the value; the last of them widens until the label fits.
    for r, row_texts in enumerate(texts):
        if r in table:
            continue
        filled = [c for c, text in enumerate(row_texts) if text]
        for c, following in itertools.pairwise(filled):
            need = max(_width(line, 1.0) for line in row_texts[c].split("\n"))
            have = sum(widths[c:following]) + 2 * PADDING * (following - c - 1)
            if need > have:
                widths[following - 1] += need - have + 0.5
    return _SheetPlan(texts, numeric, table, widths)


def render_pdf(layout: Layout, *, ruled: bool = True) -> PdfRendering:
    """Every sheet of the layout, each from a new page, with the table ruled or not."""
    from reportlab.pdfgen.canvas import Canvas

    _register()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(PAGE_WIDTH, PAGE_HEIGHT), pageCompression=1)
    canvas.setTitle(layout.name)
    rendering = PdfRendering(pdf=b"", pages=0, ruled=ruled)
    page = 0
    for index, sheet in enumerate(layout.sheets):
        if not any(any(c is not None for c in row) for row in sheet.rows):
            # An empty sheet prints as an empty page.
            page += 1
            rendering.sheet_pages[index] = (page, page)
            canvas.showPage()
            continue
        first = page + 1
        page = _draw_sheet(canvas, sheet, index, page, ruled, rendering)
        rendering.sheet_pages[index] = (first, page)
    canvas.save()
    rendering.pdf = buffer.getvalue()
    rendering.pages = page
    return rendering


def _draw_sheet(
    canvas: Any, sheet: Sheet, index: int, page: int, ruled: bool, rendering: PdfRendering
) -> int:
    plan = _plan(sheet)
    padding_units = 2 * PADDING
    natural = sum(w + padding_units for w in plan.widths)
    size = max(MIN_FONT, min(MAX_FONT, (PAGE_WIDTH - 2 * MARGIN) / natural))
    columns = [(w + padding_units) * size for w in plan.widths]
    starts = [MARGIN]
    for w in columns:
        starts.append(starts[-1] + w)
    anchors, covered = _merged(sheet)
    line_height = LEADING * size
    page += 1
    line = 0
    y = PAGE_HEIGHT - MARGIN
    canvas.setFont(FONT_NAME, size)
    rows_drawn: list[tuple[int, float, float]] = []  # (row, top, bottom) on this page

    def finish_page() -> None:
        if ruled:
            _rule(canvas, rows_drawn, starts, anchors)
        canvas.showPage()
        canvas.setFont(FONT_NAME, size)

    for r, row_texts in enumerate(plan.texts):
        in_table = r in plan.table
        cells = _cell_lines(sheet, plan, r, row_texts, columns, size, anchors, covered)
        height = max((len(lines) for _, lines, _ in cells), default=1) * line_height
        height += ROW_EXTRA * size if in_table else 0.35 * size
        if y - height < MARGIN and rows_drawn:
            finish_page()
            rows_drawn = []
            page += 1
            line = 0
            y = PAGE_HEIGHT - MARGIN
        if cells:
            line += 1
            rendering.rows[(index, r)] = Placed(page, line)
        top = y
        for c, lines, span in cells:
            left = starts[c]
            right = starts[min(c + span, len(starts) - 1)]
            merge = anchors.get((r, c))
            centred = merge is not None and merge[3] > merge[1]
            baseline = top - (ROW_EXTRA / 2 if in_table else 0.1) * size - 0.85 * size
            for text in lines:
                if plan.numeric[r][c]:
                    canvas.drawRightString(right - PADDING * size, baseline, text)
                elif centred:
                    canvas.drawCentredString((left + right) / 2, baseline, text)
                else:
                    canvas.drawString(left + PADDING * size, baseline, text)
                baseline -= line_height
        y -= height
        if in_table:
            rows_drawn.append((r, top, y))
    finish_page()
    return page


def _cell_lines(
    sheet: Sheet,
    plan: _SheetPlan,
    r: int,
    row_texts: list[str],
    columns: list[float],
    size: float,
    anchors: dict[tuple[int, int], tuple[int, int, int, int]],
    covered: set[Any],
) -> list[tuple[int, list[str], int]]:
    """The non-empty cells of a row: column, wrapped lines, and the columns the text may
    use: its merge, or outside the table the empty cells to its right (a title overflows as
    in a spreadsheet; table cells wrap, as 1C prints them)."""
    out: list[tuple[int, list[str], int]] = []
    width = len(row_texts)
    for c, text in enumerate(row_texts):
        if not text or (r, c) in covered:
            continue
        merge = anchors.get((r, c))
        span = merge[3] - merge[1] + 1 if merge is not None else 1
        if merge is None and not plan.numeric[r][c] and r not in plan.table:
            while c + span < width and not row_texts[c + span] and (r, c + span) not in covered:
                span += 1
        room = sum(columns[c : c + span]) - 2 * PADDING * size
        blocked = c + span < width  # overflow stopped by a filled cell: wrap, do not overlap
        if blocked and r not in plan.table and plan.numeric[r][c + span]:
            # A right-aligned number leaves the left of its cell free.
            free = columns[c + span] - _width(row_texts[c + span], size) - 2 * PADDING * size
            room += max(0.0, free - size)
        fits = _width(text, size) <= room + 0.01 * size
        if (
            (r in plan.table or blocked)
            and "\n" not in text
            and not fits
            and not plan.numeric[r][c]
        ):
            lines = _wrap(text, room, size)
        else:
            lines = text.split("\n")
        out.append((c, lines, span))
    return out


def _rule(
    canvas: Any,
    rows_drawn: list[tuple[int, float, float]],
    starts: list[float],
    anchors: dict[tuple[int, int], tuple[int, int, int, int]],
) -> None:
    """Cell borders of the table rows on this page; merged cells have no inner borders."""
    if not rows_drawn:
        return
    canvas.setLineWidth(0.6)
    columns = len(starts) - 1
    # Horizontal borders: above every row, except through cells merged down from above.
    for r, row_top, _ in rows_drawn:
        for c in range(columns):
            if not _merged_vertically(anchors, r, c):
                canvas.line(starts[c], row_top, starts[c + 1], row_top)
    bottom = rows_drawn[-1][2]
    canvas.line(starts[0], bottom, starts[-1], bottom)
    # Vertical borders: left of every column, except inside horizontal merges.
    for r, row_top, row_bottom in rows_drawn:
        for c in range(columns + 1):
            if 0 < c < columns and _merged_horizontally(anchors, r, c):
                continue
            canvas.line(starts[c], row_top, starts[c], row_bottom)


def _merged_vertically(
    anchors: dict[tuple[int, int], tuple[int, int, int, int]], r: int, c: int
) -> bool:
    """True when the border above (r, c) lies inside a merge spanning rows r-1 and r."""
    return any(r0 < r <= r1 and c0 <= c <= c1 for r0, c0, r1, c1 in anchors.values())


def _merged_horizontally(
    anchors: dict[tuple[int, int], tuple[int, int, int, int]], r: int, c: int
) -> bool:
    """True when the border left of column c lies inside a merge covering row r."""
    return any(r0 <= r <= r1 and c0 < c <= c1 for r0, c0, r1, c1 in anchors.values())


# Expected documents restated for pages.


def page_expected(layout: Layout, rendering: PdfRendering) -> Expected | None:
    """The layout's expected result with every sheet locator turned into a page locator
    (``page`` and ``row`` = line on the page; documents ``page`` and ``page_end``), or None
    when the layout needs outline levels, which a printed page does not carry."""
    expected = layout.expected_for(formats=True, outlines=False)
    if expected is None:
        return None
    names = {sheet.name: i for i, sheet in enumerate(layout.sheets)}
    result = copy.deepcopy(expected)

    def convert(locator: dict[str, Any] | None, *, document: bool = False) -> Any:
        if not locator or "sheet" not in locator:
            return locator
        sheet = names[locator["sheet"]]
        first, _ = rendering.sheet_pages[sheet]
        if document:
            rows = [p.page for (s, _), p in rendering.rows.items() if s == sheet]
            start, end = min(rows, default=first), max(rows, default=first)
            out: dict[str, Any] = {"page": start}
            if end > start:
                out["page_end"] = end
            return out
        if "row" not in locator:
            return {"page": first}
        placed = rendering.rows[(sheet, locator["row"] - 1)]
        return {"page": placed.page, "row": placed.line}

    for document in result.documents:
        document["locator"] = convert(document["locator"], document=True)
        for item in document["warnings"]:
            item["locator"] = convert(item.get("locator"))
        for row in document.get("rows", []):
            row["locator"] = convert(row["locator"])
        for row in document.get("transactions", []):
            row["locator"] = convert(row["locator"])
        if document.get("totals"):
            document["totals"]["locator"] = convert(document["totals"]["locator"])
    for item in result.warnings:
        item["locator"] = convert(item.get("locator"))
    return result
