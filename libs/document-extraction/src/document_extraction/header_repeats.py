"""A table's header printed again inside its body (at the top of each page, or as OCR read it
there): known by its captions, so that it is not read as data."""

from __future__ import annotations

import re
from collections.abc import Sequence

from document_extraction.accounts import is_plain_code
from document_extraction.captions import (
    LONG_NUMBER_ROW,
    MAX_COLUMNS,
    caption_text,
    is_column_number_row,
)
from document_extraction.grid import CellValue
from document_extraction.misreads import ocr_budget, ocr_distance
from document_extraction.text import is_counter

_NUMBERS = re.compile(r"\d+(?:[./]\d+)*")


def row_signature(row: Sequence[CellValue]) -> tuple[str, ...]:
    """A row's captions, to know the header again where a page repeats it inside the body."""
    return tuple(t for t in (caption_text(c) for c in row[:MAX_COLUMNS]) if t)


class HeaderRepeats:
    """The header rows of a table; a body row equal to one of them, or a column-number row,
    is the header printed again at the top of a page, not data."""

    def __init__(self, rows: Sequence[Sequence[CellValue]], first: int, last: int) -> None:
        self.signatures = {row_signature(rows[i]) for i in range(first, last + 1)} - {()}
        self.firsts = {signature[0] for signature in self.signatures}
        # Each column's captions as one line: a page that repeats the header may set a
        # caption wrapped in one cell ("Остаток на начало") on two lines, or the other way.
        columns: dict[int, list[str]] = {}
        for index in range(first, last + 1):
            for column, cell in enumerate(rows[index][:MAX_COLUMNS]):
                text = caption_text(cell)
                if text:
                    columns.setdefault(column, []).append(text)
        # Without spaces: OCR drops or adds them ("№п/п", "суммапо дебету").
        self.columns = {
            column: "".join(texts).replace(" ", "") for column, texts in columns.items()
        }

    def __contains__(self, row: Sequence[CellValue]) -> bool:
        first = next((c for c in row[:MAX_COLUMNS] if c is not None and c != ""), None)
        if first is None:
            return False
        # An account code reads as itself (no letters to fold): spared the caption reading.
        code = first.strip() if isinstance(first, str) else None
        text = code if code and is_plain_code(code) else caption_text(first)
        # The full comparison only for a row that starts as a header row does.
        if text in self.firsts and row_signature(row) in self.signatures:
            return True
        # A long row of column numbers may have its first one misread ("rt" for 1).
        long = sum(c is not None and c != "" for c in row[:MAX_COLUMNS]) >= LONG_NUMBER_ROW
        if (text.isdigit() or long) and is_column_number_row(row):
            return True
        return self._captions_again(row)

    def _captions_again(self, row: Sequence[CellValue]) -> bool:
        """Two or more cells of text, each words of its column's captions (as OCR may misread
        them); for every two found, one more may be misread past knowing, if it holds no
        digit (an amount is no caption)."""
        cells = row[:MAX_COLUMNS]
        # A number or a date in a cell: no caption row (the common case, settled at once).
        if not all(isinstance(cell, str) for cell in cells if cell is not None):
            return False
        texts: list[tuple[int, str]] = []
        for column, cell in enumerate(cells):
            if cell == "":
                continue
            if not isinstance(cell, str):
                continue  # None
            if is_counter(cell):
                continue  # an outline level printed on every line of a page, the header's too
            # Or read into the first caption ("0 №"): one digit, as no account's code is.
            level, _, rest = cell.strip().partition(" ")
            read = rest if rest and len(level) == 1 and level.isdigit() else cell
            text = caption_text(read).replace(" ", "")
            if _has_number(read) and not self._within(column, text, numbers=True):
                # A number is a caption's date read exactly (the words beside it as OCR may
                # misread them: "на 31.12.2025 АТ"), or an amount; a digit inside a word is
                # a letter misread ("O6." for "Об.").
                return False
            texts.append((column, text))
        found = sum(self._within(column, text) for column, text in texts)
        return found >= 2 and len(texts) - found <= found // 2

    def _within(self, column: int, text: str, *, numbers: bool = False) -> bool:
        """``text`` in the captions of ``column``, or a misread of a part of them as long
        as it; with ``numbers``, each of its numbers read exactly."""
        captions = self.columns.get(column, "")
        if not any(ch.isalnum() or ch == "№" for ch in text):
            return False  # a dash for nothing is no caption, though a "д-т" holds one
        if text in captions:
            return True
        if numbers and not all(number in captions for number in _NUMBERS.findall(text)):
            return False
        budget = ocr_budget(len(text))
        return any(
            ocr_distance(text, captions[k : k + len(text)], budget) <= budget
            for k in range(len(captions) - len(text) + 1)
        )


def _has_number(text: str) -> bool:
    """Digits in ``text`` that are a number: with no letter beside them in the cell, or
    three or more in a word of no letters. One or two among words ("06. деб. за период")
    are letters misread."""
    if not any(ch.isdigit() for ch in text):
        return False
    if not any(ch.isalpha() for ch in text):
        return True
    return any(
        sum(ch.isdigit() for ch in word) >= 3 and not any(ch.isalpha() for ch in word)
        for word in text.split()
    )
