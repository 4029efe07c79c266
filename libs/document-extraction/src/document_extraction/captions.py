"""Column captions as sets of meaningful words, composed over every row of a table header.

A caption is read the way a person reads it: the words that carry meaning, in any order, with
abbreviations and synonyms brought to one form ("Нач. сальдо Дт", "Сальдо Дт на начало" and
"Остаток на начало периода, дебет" all say {сальдо, начало, дебет}). A header of several rows
gives each column the words of its own cell and of the merged group captions above it.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from document_extraction.grid import CellValue
from document_extraction.lookalikes import cyrillic_spelling
from document_extraction.misreads import Vocabulary
from document_extraction.text import norm
from document_extraction.vocabulary import (
    CANONICAL,
    DATE_WORD,
    NUMBER_WORD,
    OCR_READINGS,
    STOP_WORDS,
)

# Widest table a header is looked for in; real exports have a few dozen columns.
MAX_COLUMNS = 256
# Body rows that must leave a column empty for it to be the inner half of a merged column.
MERGED_BODY_ROWS = 50


# "Д-т", "К/т"; OCR may run the next word on ("Д-тза период", "д-тсальдо"), or the word before
# ("ПериодД-т": no word of a caption has "д-т" or "к-т" inside it).
_SIDE_PAIRS = re.compile(r"(?:\b|(?<=[а-я]{2}))([дк])\s*[-/]\s*т(?=\b|[а-я])")
# "Д-Т" as OCR misreads its Д: "О-Т", "4-Т", "а-Т", "Л-Т" (no caption says these otherwise).
_DEBIT_MISREAD = re.compile(r"\b[оа4л]\s*-\s*т(?=\b|(?:за|на|по|в)\b)")
# A zero inside a Cyrillic word is its letter о ("0б за период" for "Об. за период").
_ZERO_IN_WORD = re.compile(r"(?<=[а-я])0|0(?=[а-я])")
_DATE_IN_TEXT = re.compile(r"\d{1,2}[./]\d{1,2}[./]\d{2,4}|\d{4}-\d{2}-\d{2}")
# Words in Latin, Russian and Kazakh letters.
_TOKEN = re.compile(r"[a-zа-яәғқңөұүһі]+|\d+|№")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def caption_vocabulary(words: Iterable[str]) -> Vocabulary:
    """The caption words a header model looks for, with every form and abbreviation above, to
    be found again where OCR misread a letter or two of them."""
    meanings = {word: word for word in words}
    meanings.update(CANONICAL)
    return Vocabulary(meanings)


def _known(token: str, vocabulary: Vocabulary | None) -> str | None:
    """The meaning of a word read exactly, or spelled in Latin look-alikes ("KT")."""
    meaning = CANONICAL.get(token) if vocabulary is None else vocabulary.meaning(token)
    if meaning is not None:
        return meaning
    spelled = cyrillic_spelling(token)
    if spelled is None:
        return None
    return CANONICAL.get(spelled) if vocabulary is None else vocabulary.meaning(spelled)


@functools.lru_cache(maxsize=65536)
def read_caption(text: str, vocabulary: Vocabulary | None = None) -> tuple[frozenset[str], bool]:
    """The meaningful words of a normalised caption (see ``norm``), and whether any of them was
    a misread found again through ``vocabulary`` (without one, words are read exactly)."""
    if not text:
        return frozenset(), False
    guessed = False
    if vocabulary is not None:
        misread = _ZERO_IN_WORD.sub("о", _DEBIT_MISREAD.sub("дт ", text))
        guessed, text = misread != text, misread
    # "Д-т" read together with the word before or after it ("периодд-т", "д-тсальдо") is a
    # word apart.
    text = _SIDE_PAIRS.sub(r" \1т ", text.replace("кол-во", "колво"))
    found: set[str] = set()
    if _DATE_IN_TEXT.search(text):
        found.add(DATE_WORD)
        text = _DATE_IN_TEXT.sub(" ", text)
    for token in _TOKEN.findall(text):
        if token.isdigit():
            found.add(NUMBER_WORD)
            continue
        if token in STOP_WORDS:
            continue
        meaning = _known(token, vocabulary)
        if meaning is None and vocabulary is not None:
            parts = _squashed(token, vocabulary)
            if parts:
                found.update(parts)
                guessed = True
                continue
            meaning = vocabulary.nearest(token)
            parts = frozenset() if meaning else _squashed(token, vocabulary, near=True)
            if parts:
                found.update(parts)
                guessed = True
                continue
            guessed = guessed or meaning is not None
        found.add(meaning or token)
    return frozenset(found), guessed


def _squashed(token: str, vocabulary: Vocabulary, *, near: bool = False) -> frozenset[str]:
    """The meanings of two caption words OCR read without the space between them ("ЗаПериод",
    "КтВ"), each read exactly and a word of meaning two letters long at least ("д" and "к"
    alone say too little); empty unless the token parts so, and so in one way only. With
    ``near``, one word may be a misread beside one read exactly ("/К" of
    "Пополнение/Кредит" read as "Ж": "пополнениежредит")."""
    splits = set()
    for cut in range(1, len(token)):
        pair = token[:cut], token[cut:]
        parts = [
            None if p in STOP_WORDS or len(p) < 2 or p in OCR_READINGS else _known(p, vocabulary)
            for p in pair
        ]
        if near and sum(m is None for m in parts) == 1:
            parts = [m or vocabulary.nearest(p) for p, m in zip(pair, parts, strict=True)]
        known = all(p in STOP_WORDS or m is not None for p, m in zip(pair, parts, strict=True))
        if known and any(parts):
            splits.add(frozenset(m for m in parts if m is not None))
    return splits.pop() if len(splits) == 1 else frozenset()


def words_of(text: str) -> frozenset[str]:
    """The meaningful words of a normalised caption (see ``norm``), read exactly."""
    return read_caption(text)[0]


def caption_text(cell: CellValue) -> str:
    """A header cell as text: dates and numbers too (a balance caption can be a date cell)."""
    if isinstance(cell, str):
        if cell.isascii():
            # Machine captions run words together: "operationDate", "FROM_DATE".
            cell = _CAMEL.sub(" ", cell).replace("_", " ")
        return norm(cell)
    if isinstance(cell, datetime.date):
        return cell.strftime("%d.%m.%Y")
    if isinstance(cell, int | float) and not isinstance(cell, bool):
        return str(int(cell)) if float(cell).is_integer() else str(cell)
    return ""


# Of a long row of column numbers, this share may be misread by OCR ("Я" for 7, "Ну" for 12).
MISREAD_NUMBERS = 0.25
LONG_NUMBER_ROW = 6


def is_column_number_row(row: Sequence[CellValue]) -> bool:
    """The row of column numbers some exports print under the captions: 1 2 3 … n."""
    # Digits need no normalising: a text cell is looked at as it is. A scan may read a
    # cell with a space in it: one number's digits set apart ("1 0"), or two narrow
    # columns' numbers as one cell ("3 4"); either reading may be the row's.
    texts = []
    apart = []
    for cell in row[:MAX_COLUMNS]:
        text = cell if isinstance(cell, str) else caption_text(cell)
        tokens = text.split()
        # No column's number has four digits: the row's first such token settles it (a body
        # row's code or name), without reading the rest of the row.
        if any(len(token) > 3 for token in tokens):
            return False
        texts.append(text)
        apart.extend(tokens)
    in_place = ["".join(text.split()) for text in texts]
    joined = [text for text in in_place if text]
    # An outline-level column left of the table may put its own number before the run.
    runs = (joined, apart)
    return any(_numbered(run) or _numbered(run[1:]) for run in runs) or _numbered_in_place(in_place)


def _numbered(texts: Sequence[str]) -> bool:
    """Consecutive numbers, all of them, or all but a few misread ones in a long run."""
    digits = [(k, int(text)) for k, text in enumerate(texts) if text.isdigit()]
    if not digits:
        return False
    start = digits[0][1] - digits[0][0]
    fitting = sum(number == start + k for k, number in digits)
    if fitting == len(texts) >= 3:
        return True
    return len(texts) >= LONG_NUMBER_ROW and fitting >= (1 - MISREAD_NUMBERS) * len(texts)


def _numbered_in_place(texts: Sequence[str]) -> bool:
    """A long run whose numbers are their cells' places and one offset, all but a few
    misread: OCR may lose a number altogether ("2 3 4 _ 6 7 8"), the others stay over
    their columns."""
    present = [(k, text) for k, text in enumerate(texts) if text]
    offsets = Counter(int(text) - k for k, text in present if text.isdigit())
    if not offsets:
        return False
    fitting = offsets.most_common(1)[0][1]
    return len(present) >= LONG_NUMBER_ROW and fitting >= (1 - MISREAD_NUMBERS) * len(present)


@dataclass(frozen=True)
class Column:
    """One column of a header: the words of its own (lowest) caption and of the captions above."""

    index: int
    own: frozenset[str]
    above: frozenset[str]
    text: str  # the composed caption, as normalised text, for messages and tests
    guessed: bool = False  # a word of it was a misread, found again through a vocabulary

    @property
    def words(self) -> frozenset[str]:
        return self.own | self.above


def _words_joined_over_lines(texts: list[str]) -> list[str]:
    """A column's caption lines with a word broken over two of them joined again ("показа-",
    "тели"): a page without cell borders gives each line of a wrapped caption a row."""
    out: list[str] = []
    for text in texts:
        if out and out[-1][-2:-1].isalpha() and out[-1].endswith("-") and text[:1].isalpha():
            out[-1] = out[-1][:-1] + text
        else:
            out.append(text)
    return out


class HeaderCaptions:
    """The captions of a table's rows, composed into columns block by block (see
    ``columns``); each row's texts and each block's composition are worked out once however
    many blocks and readings ask for them."""

    def __init__(self, rows: Sequence[Sequence[CellValue]]) -> None:
        self.rows = rows
        self._texts: dict[int, list[str]] = {}
        self._carried: dict[tuple[int, int], list[tuple[int, list[str]]]] = {}
        self._empty: dict[tuple[int, int], bool] = {}

    def columns(self, first: int, last: int, vocabulary: Vocabulary | None = None) -> list[Column]:
        """The columns of the header rows ``first``..``last``, their words read exactly or,
        with a ``vocabulary``, found again through OCR misreads too."""
        columns: list[Column] = []
        for col, lines in self._carried_texts(first, last):
            present = _words_joined_over_lines(lines)
            readings = [read_caption(t, vocabulary) for t in present]
            own = readings[-1][0]
            above = frozenset().union(*(words for words, _ in readings[:-1]))
            guessed = any(g for _, g in readings)
            columns.append(Column(col, own, above, " / ".join(present), guessed))
        return columns

    def _row_texts(self, index: int) -> list[str]:
        texts = self._texts.get(index)
        if texts is None:
            texts = self._texts[index] = [caption_text(c) for c in self.rows[index][:MAX_COLUMNS]]
        return texts

    def _empty_below(self, last: int, col: int) -> bool:
        """Whether the body under header row ``last`` leaves ``col`` empty."""
        found = self._empty.get((last, col))
        if found is None:
            body = self.rows[last + 1 : last + 1 + MERGED_BODY_ROWS]
            found = all(col >= len(row) or row[col] is None or row[col] == "" for row in body)
            self._empty[(last, col)] = found
        return found

    def _carried_texts(self, first: int, last: int) -> list[tuple[int, list[str]]]:
        """Each column's caption texts from top to bottom, group captions carried over it.

        A merged group caption keeps its text in its top-left cell only; it is carried to the
        right over the empty cells of its row for as long as the rows below name columns there.
        """
        found = self._carried.get((first, last))
        if found is not None:
            return found
        block = [list(self._row_texts(r)) for r in range(first, last + 1)]
        width = max((len(r) for r in block), default=0)
        for texts in block:
            texts.extend([""] * (width - len(texts)))
        carried = [list(texts) for texts in block]
        # A column neither the header nor the body fills: the second half of captions and
        # amounts merged over two columns each. One such column does not end a group caption;
        # two do, and so does one the body fills (a column no caption names).
        named = [any(texts[col] for texts in block) for col in range(width)]

        def unnamed(col: int) -> bool:
            return not named[col] and self._empty_below(last, col)

        for depth in range(len(block) - 1):
            if sum(1 for t in block[depth] if t) < 2:
                continue  # a title line over the table, not a group caption
            current: str | None = None
            for col in range(width):
                text = block[depth][col]
                below = any(block[d][col] for d in range(depth + 1, len(block)))
                if text:
                    current = text if below else None
                elif current is not None and below:
                    carried[depth][col] = current
                elif current is None or not (
                    col + 1 < width and unnamed(col) and not unnamed(col + 1)
                ):
                    current = None
        found = []
        for col in range(width):
            present = [carried[d][col] for d in range(len(block)) if carried[d][col]]
            if present:
                found.append((col, present))
        self._carried[(first, last)] = found
        return found


def compose(
    rows: Sequence[Sequence[CellValue]],
    first: int,
    last: int,
    vocabulary: Vocabulary | None = None,
) -> list[Column]:
    """The columns of the header rows ``first``..``last`` (see ``HeaderCaptions.columns``)."""
    return HeaderCaptions(rows).columns(first, last, vocabulary)
