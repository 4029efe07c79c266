"""Lines of an unruled table into rows: a cell whose text wraps over several lines belongs to
the row of its amounts, whichever way the sheet aligned it.

A table row has one line with its amounts, dates or numbers (its anchor). A wrapped name or
purpose adds lines holding text only, set closer together than rows are: below the anchor
when cells are aligned to the top, above it when aligned to the bottom, on both sides when
centred. Which of the three the page uses is read off the page itself (which neighbour the
text lines sit closer to), then every text line joins the anchor its alignment points to.
Lines of another kind (a caption over the amounts, "Остаток на начало дня ..." in the date
column) are rows of their own and end a wrapped cell.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from document_extraction.numbers import DASH_MARKS
from scan_gateway.words import Word

# Two decimals; or one, as amounts in thousands print ("651740,4"), after a comma or after
# four digits before a point: never an account's code ("60.1", "10.1").
_ENDS_IN_AMOUNT = re.compile(r"(?:\d[.,]\d{2}|\d,\d|\d{4}\.\d)\)?$")


def ends_in_amount(text: str) -> bool:
    """Text that ends with an amount as a page prints it: decimals after a comma or point."""
    return bool(_ENDS_IN_AMOUNT.search(text))


_DAY = r"\d{1,2}[./]\d{1,2}[./]\d{2,4}"
_DATE = re.compile(rf"^{_DAY}$")
_DATE_FIRST = re.compile(rf"^{_DAY}\b")
_DATE_IN = re.compile(rf"\b{_DAY}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b")
_NUMERIC = re.compile(r"^[-−(]?[\d][\d\s.,:/()\-−]*$")
# An account's code before its name in one cell ("08.1.1 Приобретение ...", Kazakhstan's
# "3310 Краткосрочная ..."); not a code and a number after it ("01 (1)"), the last line of a
# name that names an account, nor a year before its word ("2024 г.").
_CODE_LED = re.compile(r"^\d{2,4}(?:\.\d{1,3})*\s+(?!(?:г|год|года|ж|жыл)\b)[^\s\d(]")
# A column is numeric when this share of its phrases are numbers, dates or codes.
NUMERIC_COLUMN = 0.6
# How much closer (in line heights) one neighbour must be than the other to show which
# side a text line belongs to.
SIDE_MARGIN = 0.12
# A text line before the first or after the last anchor joins it only this close (line to
# line, in line heights): farther away it is a title or a signature, not a wrapped cell.
EDGE_PITCH = 1.6
# A caption's wrapped line is this close (centre to centre, in line heights) below the line
# above it; the next row of a header is set farther.
CAPTION_PITCH = 1.4
# One alignment must have this many times the other's evidence to be taken.
MAJORITY = 3
# A line of this many cells is a row of the table (a title line holds a label and a value
# or two).
TABLE_ROW_CELLS = 4


_DATE_OR_ISO_FIRST = re.compile(rf"^(?:{_DAY}|\d{{4}}-\d{{2}}-\d{{2}})\b")


def starts_with_date(text: str) -> bool:
    """Text that starts with a date ("02.04.2024", "2025-12-15", "16.06.2025 09:21:19")."""
    return bool(_DATE_OR_ISO_FIRST.match(text))


def is_numeric(text: str) -> bool:
    return bool(_NUMERIC.match(text)) and any(ch.isdigit() for ch in text)


def is_dash(text: str) -> bool:
    """A zero printed as a dash (or nothing at all)."""
    return not text.strip(DASH_MARKS + " ")


@dataclass
class TableLine:
    """One line of words: its centre height and its phrases by column."""

    cy: float
    cells: dict[int, list[Word]]
    texts: list[tuple[int, str]]


class _Kind(Enum):
    ANCHOR = "anchor"
    TEXT = "text"
    OTHER = "other"


class Alignment(Enum):
    TOP = "top"
    CENTER = "center"
    BOTTOM = "bottom"


def _numeric_columns(lines: Sequence[TableLine]) -> set[int]:
    """Columns of numbers, dates and codes, judged on lines of several cells (a title line
    of one long phrase is not the table's)."""
    counts: dict[int, list[int]] = {}
    for line in lines:
        if len(line.texts) < 2:
            continue
        for column, text in line.texts:
            seen = counts.setdefault(column, [0, 0, 0])
            if is_dash(text):
                seen[2] += 1  # a zero printed as a dash: no evidence either way, unless alone
                continue
            seen[0] += is_numeric(text)
            seen[1] += 1
    # A column of dashes alone is the part of an amounts' column where zeros are set left
    # (the amounts set right have a column of their own until the columns are joined).
    return {
        c
        for c, (num, all_, dashes) in counts.items()
        if (num >= 2 and num >= NUMERIC_COLUMN * all_) or (dashes >= 2 and dashes > all_)
    }


def _kind(line: TableLine, numeric: set[int]) -> _Kind:
    in_numeric = [text for column, text in line.texts if column in numeric]
    numbers = [text for _, text in line.texts if is_numeric(text) and not _DATE.match(text)]
    dated = any(_DATE.match(text) for text in in_numeric)
    # A date alone does not make a row ("Сальдо на" over "01.07.2023" is a caption); a date
    # with an amount beside it does, and so does an amount in a column of amounts.
    if any(is_numeric(text) and not _DATE.match(text) for text in in_numeric) or (
        dated and numbers
    ):
        return _Kind.ANCHOR
    if in_numeric or any(ends_in_amount(text) for _, text in line.texts):
        # "Остаток на начало дня 05.06.2025: 135 046,38" is a line of its own, not a name
        # wrapped onto it.
        return _Kind.OTHER
    return _Kind.TEXT


def _with_zero_rows(lines: Sequence[TableLine], kinds: list[_Kind]) -> list[_Kind]:
    """Where the rows' names start with their account's code, a text line that does too is
    a row whose amounts are all zero and printed empty, not a name wrapped onto the row
    above."""
    counts: dict[int, list[int]] = {}
    for line, kind in zip(lines, kinds, strict=True):
        if kind is _Kind.ANCHOR:
            for column, text in line.texts:
                if not is_numeric(text):
                    seen = counts.setdefault(column, [0, 0])
                    seen[0] += bool(_CODE_LED.match(text))
                    seen[1] += 1
    led = {c for c, (codes, all_) in counts.items() if codes >= 2 and codes * 2 > all_}
    return [
        _Kind.ANCHOR
        if kind is _Kind.TEXT
        and any(column in led and _CODE_LED.match(text) for column, text in line.texts)
        else kind
        for line, kind in zip(lines, kinds, strict=True)
    ]


def _with_day_lines(lines: Sequence[TableLine], kinds: list[_Kind]) -> list[_Kind]:
    """A text line of one cell with a date ("За 09.10.2024") is a line of its own, not a
    wrapped cell, in a column whose rows start with their dates or hold one word each (an
    account): such a column does not wrap, a name or a purpose may."""
    counts: dict[int, list[int]] = {}
    for line, kind in zip(lines, kinds, strict=True):
        # The table's rows, not a title's label and values.
        if kind is _Kind.ANCHOR and len(line.texts) >= TABLE_ROW_CELLS:
            for column, text in line.texts:
                seen = counts.setdefault(column, [0, 0, 0])
                seen[0] += bool(_DATE_FIRST.match(text))
                seen[1] += len(text.split()) == 1
                seen[2] += 1
    still = {
        c
        for c, (dated, single, all_) in counts.items()
        if all_ >= 2 and (dated * 2 > all_ or single == all_)
    }
    return [
        _Kind.OTHER
        if kind is _Kind.TEXT
        and len(line.texts) == 1
        and line.texts[0][0] in still
        and _DATE_IN.search(line.texts[0][1])
        else kind
        for line, kind in zip(lines, kinds, strict=True)
    ]


def _counted(line: TableLine) -> bool:
    """A line of captions with a counter (an outline level, a row number) in front of it (a
    title line, one text, stays a line of its own)."""
    (_, counter), *rest = sorted(line.texts)
    return (
        len(rest) >= 2
        and counter.isdigit()
        and len(counter) <= 2
        and not any(is_numeric(text) for _, text in rest)
    )


def alignment(lines: Sequence[TableLine], kinds: Sequence[_Kind], unit: float) -> Alignment:
    """Top, centre or bottom: which neighbours the text lines between anchors sit closer to."""
    up = down = 0
    for index, kind in enumerate(kinds):
        if kind is not _Kind.TEXT or index == 0 or index == len(lines) - 1:
            continue
        if kinds[index - 1] is _Kind.OTHER or kinds[index + 1] is _Kind.OTHER:
            continue
        above = lines[index].cy - lines[index - 1].cy
        below = lines[index + 1].cy - lines[index].cy
        if above < below - SIDE_MARGIN * unit:
            up += 1
        elif below < above - SIDE_MARGIN * unit:
            down += 1
    if down > MAJORITY * up:
        return Alignment.BOTTOM
    if up >= MAJORITY * down:
        return Alignment.TOP
    return Alignment.CENTER


def _owner(
    index: int,
    lines: Sequence[TableLine],
    kinds: Sequence[_Kind],
    how: Alignment,
    unit: float,
) -> int | None:
    """The anchor a text line joins, or None (it is a row of its own)."""

    def walk(step: int) -> int | None:
        position = index + step
        while 0 <= position < len(lines):
            if kinds[position] is _Kind.OTHER:
                return None
            if kinds[position] is _Kind.ANCHOR:
                return position
            position += step
        return None

    above, below = walk(-1), walk(1)
    if how is Alignment.TOP:
        choice = _edge(index, above, lines, unit) if below is None else above
    elif how is Alignment.BOTTOM:
        choice = _edge(index, below, lines, unit) if above is None else below
    elif above is None or below is None:
        choice = _edge(index, above if above is not None else below, lines, unit)
    else:
        # The lines of one cell go together: a purpose wrapped over three lines belongs to
        # the row its first line follows, though its last line is nearer the next row.
        first, last = _cell_lines(index, lines, kinds, unit)
        up = lines[first].cy - lines[above].cy
        down = lines[below].cy - lines[last].cy
        choice = above if up <= down else below
    return choice


def _cell_lines(
    index: int, lines: Sequence[TableLine], kinds: Sequence[_Kind], unit: float
) -> tuple[int, int]:
    """The first and last of the text lines around ``index`` set as closely as the lines of
    one cell, in the same columns."""

    def same_cell(a: int, b: int) -> bool:
        return (
            0 <= b < len(lines)
            and kinds[b] is _Kind.TEXT
            and {c for c, _ in lines[a].texts} == {c for c, _ in lines[b].texts}
            and abs(lines[b].cy - lines[a].cy) <= CAPTION_PITCH * unit
        )

    first = last = index
    while same_cell(first, first - 1):
        first -= 1
    while same_cell(last, last + 1):
        last += 1
    return first, last


def _edge(index: int, anchor: int | None, lines: Sequence[TableLine], unit: float) -> int | None:
    """Past the first or the last anchor a line joins it only through lines set as closely
    as the lines of one cell."""
    if anchor is None:
        return None
    step = 1 if anchor > index else -1
    for position in range(index, anchor, step):
        if abs(lines[position + step].cy - lines[position].cy) > EDGE_PITCH * unit:
            return None
    return anchor


def _continues_caption(line: TableLine, above: TableLine, over: set[int], unit: float) -> bool:
    """A caption wrapped in its cell: the next line holds fewer cells than the row so far
    (``over``, its columns), all under them, no amounts, and is set as close to the line
    above as the lines of one cell."""
    columns = {c for c, _ in line.texts}
    if len(over) < 2 or len(columns) >= len(over) or not columns <= over:
        return False
    if len(over) == 2 and min(over) in columns:
        # "Банк: | Беларусбанк" over "Выписка по счету": a label and its value, then the
        # next title line, not a wrapped cell.
        return False
    if any(
        is_numeric(text) and sum(ch.isdigit() for ch in text) > 1 and not _DATE.match(text)
        for _, text in line.texts
    ):
        return False  # an amount starts a row; "(1)" closing a wrapped name does not
    return line.cy - above.cy <= CAPTION_PITCH * unit


def fold_wrapped(lines: Sequence[TableLine], unit: float) -> list[dict[int, list[Word]]]:
    """Rows of cells: each anchor with the text lines that belong to it, a caption with its
    wrapped lines, every other line a row of its own, in page order. ``unit``: the height of
    a line of text."""
    body = next(
        (k for k, line in enumerate(lines) if sum(ends_in_amount(t) for _, t in line.texts) >= 2),
        len(lines),
    )
    # Columns are judged from the first line of amounts on: the words of a header several
    # lines deep would outnumber the few rows of a short table.
    numeric = _numeric_columns(lines[body:] if body < len(lines) else lines)
    kinds = _with_day_lines(lines, _with_zero_rows(lines, [_kind(line, numeric) for line in lines]))
    # Above the table's amounts, an outline level printed before the captions ("0 | Счет |
    # Сальдо") makes a row of them, and still they take their wrapped lines.
    captions = {k for k in range(body) if kinds[k] is _Kind.ANCHOR and _counted(lines[k])}
    how = alignment(lines, kinds, unit)
    owners: list[int | None] = [
        _owner(i, lines, kinds, how, unit) if kind is _Kind.TEXT else None
        for i, kind in enumerate(kinds)
    ]
    columns: dict[int, set[int]] = {}
    for index in range(1, len(lines)):
        previous = index - 1
        owner = owners[previous]
        target = owner if owner is not None else previous
        over = columns.setdefault(target, {c for c, _ in lines[target].texts})
        if (
            owners[index] is None
            and kinds[index] is not _Kind.ANCHOR
            and (kinds[target] is not _Kind.ANCHOR or target in captions)
            and _continues_caption(lines[index], lines[previous], over, unit)
        ):
            owners[index] = target
            over |= {c for c, _ in lines[index].texts}
    rows: dict[int, dict[int, list[Word]]] = {}
    for index, line in enumerate(lines):
        owner = owners[index]
        row = rows.setdefault(index if owner is None else owner, {})
        for column, words in line.cells.items():
            row.setdefault(column, []).extend(words)
    return [rows[i] for i in sorted(rows)]
