"""Page grids into extraction grids, and locators back onto pages.

A table that runs over several pages is one document: a page without a table header of its
own continues the document of the page before (a header repeated at the top of the next
page, as 1C prints it, is dropped). ``document_extraction`` knows one page per grid, so a
joined grid numbers its rows through all its pages and ``relocate`` turns each locator back
into the page and line the row really is on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from document_extraction import BBox, Grid
from document_extraction.layouts.registry import table_header
from document_extraction.text import is_empty, norm
from recognition_contract import Document, Locator, Statement, Warning
from scan_gateway.grid_from_words import PageGrid
from scan_gateway.wrapped_cells import ends_in_amount

_T = TypeVar("_T")


@dataclass(frozen=True)
class _Header:
    first: int
    last: int
    roles: tuple[str, ...]
    """The columns' roles left to right ("label", "name", "opening_debit", ...)."""
    columns: tuple[int, ...]
    """The column of each role."""


@dataclass
class _Group:
    pages: list[PageGrid]
    rows: list[list[str | None]] = field(default_factory=list)
    confidence: list[list[float | None]] = field(default_factory=list)
    boxes: list[list[BBox | None]] = field(default_factory=list)
    origin: list[tuple[int, int]] = field(default_factory=list)
    """Per row of the joined grid: (page, line on that page)."""
    header: tuple[str, ...] = ()
    header_rows: Sequence[Sequence[str | None]] = ()
    found: _Header | None = None
    has_document: bool = False

    def add(self, page: PageGrid, start: int = 0, columns: dict[int, int] | None = None) -> None:
        """The page's rows from ``start``; ``columns`` moves the page's columns to the ones
        of the group's first page (the page drew the table with other columns)."""
        for index in range(start, len(page.rows)):
            self.rows.append(_moved(page.rows[index], columns))
            self.confidence.append(_moved(page.confidence[index], columns))
            self.boxes.append(_moved(page.boxes[index], columns))
            self.origin.append((page.page, index + 1))


def _moved(row: Sequence[_T | None], columns: dict[int, int] | None) -> list[_T | None]:
    if not columns:
        return list(row)
    width = max((columns.get(c, c) for c in range(len(row))), default=-1) + 1
    out: list[_T | None] = [None] * width
    for column, value in enumerate(row):
        if value is not None:
            target = columns.get(column, column)
            if out[target] is None:  # two columns of the page in one: the first one's
                out[target] = value
    return out


def _column_map(
    page: Sequence[Sequence[str | None]],
    page_texts: tuple[str, ...],
    first: Sequence[Sequence[str | None]],
    first_texts: tuple[str, ...],
    roles: dict[int, int],
) -> dict[int, int]:
    """Where each column of a page's repeated header stands in the first page's header: the
    caption cells of the same rows (``_texts``), in order, or else the columns of the same
    role (``roles``: OCR read the captions otherwise on one page). A scan rebuilds the
    columns of every page from what that page shows, and a page with rules may have a column
    more or less at an edge than one without. Columns between captions keep their distance
    to the caption left."""
    known: dict[int, int] = {}
    for row, text in zip(page, page_texts, strict=True):
        if text not in first_texts:
            continue
        match = first[first_texts.index(text)]
        ours = [c for c, cell in enumerate(row) if not is_empty(cell)]
        theirs = [c for c, cell in enumerate(match) if not is_empty(cell)]
        known.update(zip(ours, theirs, strict=True))
    if not known:
        known = _same_columns(page, first) or roles
    if not known or all(c == t for c, t in known.items()):
        return {}
    width = max(len(row) for row in page)
    out: dict[int, int] = {}
    for column in range(width):
        left = max((c for c in known if c <= column), default=None)
        anchor = left if left is not None else min(known)
        out[column] = max(0, known[anchor] + column - anchor)
    return out


@dataclass(frozen=True)
class Assembled:
    grids: list[Grid]
    origins: list[list[tuple[int, int]]]
    documents: list[int]
    """Indices of the grids a document is recognised in, in order (extraction makes one
    document of each grid with a header, in grid order)."""
    pages: list[tuple[int, int]]
    """First and last page of each grid."""


def _by_role(page: _Header, first: _Header | None) -> dict[int, int] | None:
    """The page's header columns onto the first page's where both name the same roles in the
    same order; None where they do not."""
    if first is None or page.roles != first.roles:
        return None
    return dict(zip(page.columns, first.columns, strict=True))


def has_header(grid: PageGrid) -> bool:
    return bool(grid.rows) and _header(grid.rows) is not None


def _header(rows: Sequence[Sequence[str | None]]) -> _Header | None:
    """The page's table header. A header has titles above it, not rows of amounts: what
    looks like one below the rows a page continues (the closing lines of a statement) is not
    a new document's."""
    table = table_header(rows)
    if table is None or any(_amounts(row) for row in rows[: table.first_row]):
        return None
    first, last, named = table.first_row, table.last_row, table.columns
    placed = sorted((column, role) for role, column in named.items())
    return _Header(
        first, last, tuple(role for _, role in placed), tuple(column for column, _ in placed)
    )


# A header row of this many captions may have one read otherwise on another page, and one
# more for every further this many ("Tun операции", "ВАМ" for "IBAN" in a row of nine).
MIN_CAPTIONS_TO_TOLERATE = 3
CAPTIONS_PER_MISREAD = 4


def _amounts(row: Sequence[str | None]) -> bool:
    """A row of a table's body: an amount among three cells or more (a title line holds a
    label and its value, or a label ending in a colon and its values: "Остаток на: |
    01.05.2024 | 48 607,51", the label's words in two cells at most: "Входящее | сальдо на:
    | 01.10.2024 | 49822.18")."""
    filled = [cell.strip() for cell in row if cell is not None and cell.strip()]
    return (
        len(filled) >= 3
        and not any(cell.endswith(":") for cell in filled[:2])
        and any(ends_in_amount(cell) for cell in filled)
    )


def _texts(rows: Sequence[Sequence[str | None]], first: int, last: int) -> tuple[str, ...]:
    return tuple(
        " | ".join(norm(c) for c in rows[i] if not is_empty(c)) for i in range(first, last + 1)
    )


def _column_texts(rows: Sequence[Sequence[str | None]]) -> dict[int, str]:
    """Each column's captions read down the header, whichever lines a page set them on."""
    width = max((len(row) for row in rows), default=0)
    texts = {
        column: norm("\n".join(c for row in rows if column < len(row) and (c := row[column])))
        for column in range(width)
    }
    return {column: text for column, text in texts.items() if text}


def _same_columns(
    page: Sequence[Sequence[str | None]], first: Sequence[Sequence[str | None]]
) -> dict[int, int] | None:
    """The page's header columns onto the first page's, where each column's captions read
    down the header are the same, in the same order; or where as many columns hold the
    same words between them (OCR read the lines of two captions side by side as one phrase
    on one page, and put a word in the neighbour's cell)."""
    ours, theirs = _column_texts(page), _column_texts(first)
    if not ours or len(ours) != len(theirs):
        return None
    if list(ours.values()) != list(theirs.values()) and sorted(
        "\n".join(ours.values()).split()
    ) != sorted("\n".join(theirs.values()).split()):
        return None
    return dict(zip(ours, theirs, strict=True))


def _same_header(
    page: tuple[str, ...],
    first: tuple[str, ...],
    page_rows: Sequence[Sequence[str | None]],
    first_rows: Sequence[Sequence[str | None]],
) -> bool:
    """The first page's header printed again: the same rows, or a run of them (a sheet's
    print titles need not take in a caption line above or the column numbers below), or
    the same captions column by column with their lines joined into rows otherwise (a page
    without cell borders folds a wrapped caption's lines as its own lines fall)."""
    shorter, longer = sorted((page, first), key=len)
    if shorter and any(
        longer[start : start + len(shorter)] == shorter
        for start in range(len(longer) - len(shorter) + 1)
    ):
        return True
    few, many = sorted((page_rows, first_rows), key=len)
    if few and any(
        all(_nearly_same_row(a, b) for a, b in zip(few, many[start:], strict=False))
        for start in range(len(many) - len(few) + 1)
    ):
        return True
    return _same_columns(page_rows, first_rows) is not None


def _caption_letters(caption: str | None) -> str:
    return "".join(ch for ch in norm(caption) if ch.isalnum() or ch.isspace()).strip()


def _nearly_same_row(a: Sequence[str | None], b: Sequence[str | None]) -> bool:
    """Two header rows of three captions or more that differ in a few captions at most, which
    OCR read otherwise on one of the pages ("№ п/п" as "№ n/t"); a border's bar read into
    a caption ("|УНП") is no difference."""
    ours = [_caption_letters(c) for c in a if not is_empty(c)]
    theirs = [_caption_letters(c) for c in b if not is_empty(c)]
    if len(ours) != len(theirs) or len(ours) < MIN_CAPTIONS_TO_TOLERATE:
        return ours == theirs
    misread = sum(x != y for x, y in zip(ours, theirs, strict=True))
    return misread <= max(1, len(ours) // CAPTIONS_PER_MISREAD)


def assemble(pages: Sequence[PageGrid]) -> Assembled:
    groups: list[_Group] = []
    current: _Group | None = None
    for page in pages:
        found = _header(page.rows) if page.rows else None
        if found is not None:
            first, last = found.first, found.last
            texts = _texts(page.rows, first, last)
            # Print titles repeat the header on a last page that holds nothing but the
            # signatures: however the page set it, it opens no document of its own. OCR may
            # read a repeated header's captions otherwise; their roles are still the same.
            opened = current if current is not None and current.has_document else None
            by_role = _by_role(found, opened.found) if opened is not None else None
            repeated = (
                opened is not None
                and (
                    by_role is not None
                    or _same_header(
                        texts, opened.header, page.rows[first : last + 1], opened.header_rows
                    )
                    or not any(_amounts(row) for row in page.rows[last + 1 :])
                )
                and all(all(is_empty(c) for c in row) for row in page.rows[:first])
            )
            if repeated and opened is not None:
                opened.pages.append(page)
                columns = _column_map(
                    page.rows[first : last + 1],
                    texts,
                    opened.header_rows,
                    opened.header,
                    by_role or {},
                )
                opened.add(page, last + 1, columns)
                continue
            current = _Group(
                [page],
                header=texts,
                header_rows=page.rows[first : last + 1],
                found=found,
                has_document=True,
            )
            current.add(page)
            groups.append(current)
        elif current is not None and current.has_document and page.rows:
            current.pages.append(page)
            current.add(page)
        else:
            # Nothing to continue: the page stands alone (extraction reports it as skipped).
            alone = _Group([page])
            alone.add(page)
            groups.append(alone)
            current = None
    grids: list[Grid] = []
    for group in groups:
        first_page = group.pages[0].page
        ocr = any(p.ocr for p in group.pages)
        grids.append(
            Grid(
                name=f"страница {first_page}",
                rows=group.rows,
                kind="page",
                page=first_page,
                row_numbers=list(range(1, len(group.rows) + 1)),
                cell_confidence=group.confidence if ocr else None,
                cell_boxes=group.boxes,
            )
        )
    return Assembled(
        grids=grids,
        origins=[g.origin for g in groups],
        documents=[i for i, g in enumerate(groups) if g.has_document],
        pages=[(g.pages[0].page, g.pages[-1].page) for g in groups],
    )


def relocate(
    document: Document, origin: Sequence[tuple[int, int]], pages: tuple[int, int]
) -> Document:
    """Row numbers of a joined grid back to (page, line); the document's own locator spans
    its pages."""

    def fix(locator: Locator) -> Locator:
        if locator.row is None:
            return locator
        page, row, row_end, page_end = locator.page, locator.row, locator.row_end, locator.page_end
        if 1 <= row <= len(origin):
            page, row = origin[row - 1]
        if row_end is not None and 1 <= row_end <= len(origin):
            end_page, end_line = origin[row_end - 1]
            if end_page == page:
                row_end = end_line
            else:
                row_end, page_end = None, end_page
        return locator._replace(page=page, row=row, row_end=row_end, page_end=page_end)

    def fix_warning(warning: Warning) -> Warning:
        if warning.locator is None:
            return warning
        return replace(warning, locator=fix(warning.locator))

    first, last = pages
    where = Locator(page=first, page_end=last if last > first else None)
    warnings = tuple(fix_warning(w) for w in document.warnings)
    if isinstance(document, Statement):
        return replace(
            document,
            locator=where,
            transactions=tuple(replace(t, locator=fix(t.locator)) for t in document.transactions),
            warnings=warnings,
        )
    totals = document.totals
    return replace(
        document,
        locator=where,
        rows=tuple(r._replace(locator=fix(r.locator)) for r in document.rows),
        totals=replace(totals, locator=fix(totals.locator)) if totals is not None else None,
        warnings=warnings,
    )
