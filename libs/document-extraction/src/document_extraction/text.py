"""Header and label text compared the way a reader sees it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from document_extraction.grid import CellValue
from document_extraction.lookalikes import (
    fold_lookalikes,
    legal_form_spelled,
    person_form_spelled,
)

_HYPHEN_BREAK = re.compile(r"-\s*\n\s*")
_SPACE = re.compile(r"\s+")


_WRAPPED_HYPHEN = re.compile(r"(?<=[^\W\d_])-\n(?=[^\W\d_])")


def norm(cell: CellValue) -> str:
    """Lower case, ё as е, soft hyphens and words broken over lines joined, spaces collapsed,
    Latin and digit look-alikes in Cyrillic words Cyrillic ("Дeбет", "0бороты", see
    ``fold_lookalikes``)."""
    if not isinstance(cell, str):
        return ""
    text = cell.replace("\u00ad", "")
    if "\n" in text and "-" in text:
        text = _HYPHEN_BREAK.sub("", text)
    return " ".join(fold_lookalikes(text).split()).lower().replace("ё", "е")


def clean(cell: CellValue) -> str | None:
    """A text cell as printed (spaces collapsed), or None when it is empty or not text."""
    if isinstance(cell, str):
        if "  " in cell or "\n" in cell or "\t" in cell or "\u00ad" in cell or "\r" in cell:
            # A value wrapped at its hyphen ("расчетно-" over "кассовое") keeps the hyphen.
            cell = _WRAPPED_HYPHEN.sub("-", cell.replace("\u00ad", ""))
            cell = _SPACE.sub(" ", cell)
        if "«" in cell:
            cell = legal_form_spelled(cell.strip())
        elif "." in cell:
            cell = person_form_spelled(cell.strip())
        return cell.strip() or None
    return None


def as_text(cell: CellValue) -> str | None:
    """Any cell as printed text: numbers without a trailing .0, dates as dd.mm.yyyy."""
    if cell is None or isinstance(cell, bool):
        return None
    if isinstance(cell, str):
        return clean(cell)
    if isinstance(cell, float):
        return str(int(cell)) if cell.is_integer() else format(cell, ".15g")
    if isinstance(cell, int):
        return str(cell)
    return cell.strftime("%d.%m.%Y")


def is_empty(cell: CellValue) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())


def title_cells(row: Sequence[CellValue]) -> Sequence[CellValue]:
    """The cells of a title row from its first text on: numbers before it are an outline-level
    or row-number column beside the title ("0 | ООО «Альфа»" is the organisation ООО «Альфа»)."""
    first_text = next(
        (i for i, c in enumerate(row) if isinstance(c, str) and c.strip() and not is_counter(c)),
        0,
    )
    if all(is_empty(c) or is_counter(c) for c in row[:first_text]):
        return row[first_text:]
    return row


def is_counter(cell: CellValue) -> bool:
    """A row number or outline level: a number, or (on a page, where all is text) up to three
    digits."""
    if isinstance(cell, str):
        text = cell.strip()
        return text.isdigit() and len(text) <= 3
    return isinstance(cell, int | float) and not isinstance(cell, bool)


def line_of(row: Sequence[CellValue]) -> str:
    """The cells of a title row joined as one line of text (see ``title_cells``)."""
    parts = [text for text in (as_text(cell) for cell in title_cells(row)) if text]
    return " ".join(parts)


def column_letters(index: int) -> str:
    letters = ""
    number = index + 1
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(65 + rest) + letters
    return letters
