"""Finding a table header from its captions, never by position, for every layout: the blocks of
one to four rows a header may span, the rows under it that still belong to it (column numbers,
wrapped caption lines), and whether a reading through misread caption words explains a block
better than the exact one.

Captions are read exactly first. Where that finds no header in a block, or one that explains
fewer columns, the block is read again with misread words taken for the caption words they are
nearest to through OCR's confusions (``captions.caption_vocabulary``); such a reading counts
only where the body confirms it (money columns hold amounts, date columns dates), so that a
misread word does not lose a document and fuzziness never makes a header of an ordinary table.
A header found that way is a little less certain."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping, Sequence

from document_extraction.captions import (
    MAX_COLUMNS,
    Column,
    caption_vocabulary,
    is_column_number_row,
)
from document_extraction.dates import parse_date_cell
from document_extraction.grid import CellValue
from document_extraction.misreads import Vocabulary
from document_extraction.numbers import parse_amount
from document_extraction.text import is_empty
from document_extraction.vocabulary import (
    CAPTION_WORDS,
)

# Headers sit near the top: title lines, parameters, a filter block. Deeper than this is not a
# header but data that happens to contain the words.
HEADER_SCAN_ROWS = 80
# A header spans at most this many rows (group captions, sides, a period line, numbers).
MAX_HEADER_ROWS = 4
# Caption rows above a header block that join it: a page without cell borders sets each line
# of a wrapped caption as a row of its own ("Сальдо" / "на" / "начало периода").
MAX_PAGE_HEADER_ROWS = 6
# Confidence of a header whose columns were placed by assumption rather than read.
INFERRED_LABEL_CONFIDENCE = 95
# Body rows looked at to tell which of two candidate columns the body fits.
FIT_ROWS = 200
# Money fields captions may leave open for the body's arithmetic to place, and how many rows
# must balance under the placement at least.
MAX_OPEN_FIELDS = 3
MIN_BALANCED_ROWS = 2
# Confidence a header loses per column it named through a misread caption word, and the least it
# keeps: its captions were not read as printed, but its body confirmed them.
GUESSED_CAPTION_PENALTY = 2
GUESSED_CAPTION_FLOOR = 90


def header_blocks(rows: Sequence[Sequence[CellValue]]) -> list[tuple[int, int]]:
    """Header blocks (first, last) to try: the block that ends earliest first, and of those the
    shallowest, so that a title line above a one-row header never joins it."""
    blocks: list[tuple[int, int]] = []
    for last in range(min(len(rows), HEADER_SCAN_ROWS)):
        if all(is_empty(c) for c in rows[last][:MAX_COLUMNS]):
            continue
        for depth in range(1, MAX_HEADER_ROWS + 1):
            first = last - depth + 1
            if first < 0:
                break
            blocks.append((first, last))
    return blocks


def header_end(rows: Sequence[Sequence[CellValue]], last: int, money: Iterable[int] = ()) -> int:
    """The last header row, counting the column-number rows printed under the captions and,
    given the ``money`` columns, the last lines of wrapped captions that a page without cell
    borders sets as rows of their own (words in money columns, no digit anywhere)."""
    wanted = set(money)
    while last + 1 < len(rows):
        row = rows[last + 1]
        if not (is_column_number_row(row) or (wanted and caption_line(row, wanted))):
            break
        last += 1
    return last


def caption_line(row: Sequence[CellValue], money: set[int]) -> bool:
    filled = [(c, cell) for c, cell in enumerate(row[:MAX_COLUMNS]) if not is_empty(cell)]
    return words_only(row) and any(c in money and LETTER.search(str(cell)) for c, cell in filled)


def words_only(row: Sequence[CellValue]) -> bool:
    """Text without a digit in every filled cell: a caption's line, no line of values."""
    return all(
        isinstance(cell, str) and not any(ch.isdigit() for ch in cell)
        for cell in row[:MAX_COLUMNS]
        if not is_empty(cell)
    )


def amounts_below(rows: Sequence[Sequence[CellValue]], start: int, columns: Iterable[int]) -> bool:
    """Whether the body from ``start`` holds amounts where captions say money stands: more
    amounts than words in its money columns (dashes and marks for nothing count for neither)."""
    amounts = words = 0
    wanted = sorted(set(columns))
    for row in rows[start : start + FIT_ROWS]:
        for col in wanted:
            cell = row[col] if col < len(row) else None
            if is_amount_cell(cell):
                amounts += 1
            elif isinstance(cell, str) and len(LETTER.findall(cell)) >= 2:
                words += 1
    return amounts > words


def reads_better(
    exact: Mapping[int, object] | None, guessed: Mapping[int, object], columns: Sequence[Column]
) -> bool:
    """Whether a block's roles read through misreads explain it better than those read exactly:
    where the exact reading finds a header, they differ only in columns whose captions were
    misread, and name as many columns at least."""
    if exact is None:
        return True
    misread = {column.index for column in columns if column.guessed}
    changed = {i for i in exact.keys() | guessed.keys() if exact.get(i) != guessed.get(i)}
    return bool(changed) and changed <= misread and len(guessed) >= len(exact)


def misread_columns_of(columns: Iterable[Column], used: Iterable[int | None]) -> tuple[int, ...]:
    """The columns a header uses whose captions were misread."""
    wanted = set(used)
    return tuple(
        sorted(column.index for column in columns if column.guessed and column.index in wanted)
    )


def guessed_confidence(confidence: float, misread: Sequence[int]) -> float:
    if not misread:
        return confidence
    return min(confidence, max(GUESSED_CAPTION_FLOOR, 100 - GUESSED_CAPTION_PENALTY * len(misread)))


LETTER = re.compile(r"[^\W\d_]")


def side_of(words: frozenset[str]) -> str | None:
    debit, credit = "дебет" in words, "кредит" in words
    if debit == credit:
        return None
    return "debit" if debit else "credit"


# Every word the roles above look for: a misread caption word is taken for the one it is nearest.
MISREAD_VOCABULARY: Vocabulary = caption_vocabulary(CAPTION_WORDS)


def is_date_cell(cell: CellValue) -> bool:
    if isinstance(cell, datetime.date):
        return True
    return parse_date_cell(cell)[0] is not None


def is_amount_cell(cell: CellValue) -> bool:
    if is_empty(cell) or isinstance(cell, datetime.date):
        return False
    amount = parse_amount(cell)
    return amount.value is not None and amount.problem is None
