"""Row numbers read into the label beside them.

A page prints the row number and the account in cells of their own ("1 | 10 Материалы"); OCR of
a blurred page may read them as one word ("110 Материалы"), and every code then is wrong. The
numbers run 1, 2, 3, … down the table, which is what tells them from the codes."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from document_extraction.accounts import is_plain_code, synthetic
from document_extraction.grid import CellValue
from document_extraction.text import is_counter

# Synthetic accounts have two or three digits.
_SYNTHETIC = 3
# Of the rows with a number beside the label or digits leading it, at least this share must
# follow the numbering.
NUMBERED_SHARE = 0.75
# And at least this many, as two codes may follow one another by chance.
LEAST_NUMBERED = 3


def labels_without_row_numbers(
    rows: Sequence[Sequence[CellValue]], start: int, label_col: int
) -> dict[int, str]:
    """The label cells, by row index from ``start``, that begin with the row's number, given
    without it; empty unless the table's labels follow a numbering. A row's number is the
    one before it plus one; a number printed in a column of its own left of the label counts
    as one of the numbering too, a level of the outline beside it does not."""
    stripped: dict[int, str] = {}
    previous = 0
    numbered = leading = 0
    for index in range(start, len(rows)):
        row = rows[index]
        cell = row[label_col] if label_col < len(row) else None
        if not isinstance(cell, str) or not cell.strip():
            continue
        text = cell.strip()
        # A number beside the label that follows the numbering is the row's; another is a
        # level of the outline.
        beside = previous + 1 in (_counted(c) for c in row[:label_col])
        if not beside and not text[:1].isdigit():
            continue
        leading += 1
        rest = None if beside else _after_number(text, previous + 1)
        if beside or rest is not None:
            numbered += 1
            previous += 1
        if rest is not None:
            stripped[index] = rest
    if numbered < LEAST_NUMBERED or numbered < NUMBERED_SHARE * leading:
        return {}
    return stripped


def _after_number(text: str, number: int) -> str | None:
    """``text`` without a leading ``number`` when an account's code or a name follows it."""
    digits = str(number)
    if not text.startswith(digits):
        return None
    rest = text[len(digits) :].lstrip()
    if rest[:1].isalpha():
        return rest
    code = rest.split(None, 1)[0].rstrip(".") if rest else ""
    return rest if is_plain_code(code) and len(synthetic(code)) <= _SYNTHETIC else None


def _counted(cell: CellValue) -> int | None:
    if not is_counter(cell) or not isinstance(cell, str | int | float):
        return None
    value = float(cell)
    return int(value) if math.isfinite(value) else None


# A column this short may count 1, 2, 3 by chance (three payment orders in a row).
SEQUENCE_LEAST = 4


def is_running_sequence(cells: Sequence[CellValue], least: int = SEQUENCE_LEAST) -> bool:
    """Whether a column counts its lines (1, 2, 3, … or on from a later page's first number):
    a sequence number (№ п/п), not a document's number. ``least``: lines it takes (fewer
    where the caption says so)."""
    numbers = [_whole(cell) for cell in cells]
    if len(numbers) < least or any(n is None for n in numbers):
        return False
    return all(b == a + 1 for a, b in itertools.pairwise(numbers))  # type: ignore[operator]


def _whole(cell: CellValue) -> int | None:
    if isinstance(cell, bool):
        return None
    if isinstance(cell, int):
        return cell
    if isinstance(cell, float):
        return int(cell) if cell.is_integer() else None
    if isinstance(cell, str) and cell.strip().isdigit():
        return int(cell.strip())
    return None
