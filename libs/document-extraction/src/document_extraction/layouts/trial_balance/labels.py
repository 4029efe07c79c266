"""What a trial balance row's label says it is: totals, a section's heading or subtotal, a
quantity or another indicator's sub-row, a signature line."""

from __future__ import annotations

import re
from collections.abc import Sequence

from document_extraction.grid import CellValue
from document_extraction.layouts.line_labels import is_totals_marker
from document_extraction.lookalikes import LATIN_TO_CYRILLIC
from document_extraction.misreads import ocr_budget, ocr_distance
from document_extraction.numbers import read_cents
from document_extraction.text import is_counter, norm

_SIGNATURE = re.compile(
    r"главный бухгалтер|руководитель|бухгалтер|исполнитель|ответственн|подпись|директор"
    r"|басшы|орындаушы|қолы"  # Kazakh: head, executor, signature
)
# A quantity caption as a whole word: "Кол.", "Кол-во", "Количество, шт" — never the start of
# a name such as "Кольцо" or "Колесников И.И.".
_QUANTITY = re.compile(r"^(?:кол(?:ичество|-во|\.)?|колво)(?![а-яa-z])")
# Its long and short forms, to be found again through OCR's misreads ("Kon-во", "Kon.").
_QUANTITY_FORMS = ("кол-во", "кол.")
# The shortest totals or quantity caption ("Кол").
LEAST_CAPTION = 3
# A balance's sections: a heading («Раздел II. Запасы») and a subtotal («Итого по разделу II»).
_SECTION = re.compile(r"^(?:раздел|глава|section)\s+[\divxlcm]+\b", re.IGNORECASE)
_SECTION_TOTALS = re.compile(r"\bраздел[ау]?\b", re.IGNORECASE)
# Indicator sub-rows that are not the document: quantities, tax accounting, differences,
# currency amounts. The document is the accounting (БУ) row.
_OTHER_INDICATOR = re.compile(r"^(?:ну|пр|вр|вал(?:юта|\.)?|нал(?:оговый|\.)?)(?![а-яa-z])")
# What may stand before the first letter of a caption: spaces and soft hyphens.
LEADING = " \t\u00a0\u00ad"


def is_quantity_label(text: str) -> bool:
    """A quantity sub-row's caption (normalised text), not a name that starts with "Кол";
    "Кол-во" misread by OCR ("Kon-во") too."""
    if _QUANTITY.match(text) is not None:
        return True
    word = "".join(LATIN_TO_CYRILLIC.get(ch, ch) for ch in text.split(" ", 1)[0])
    for form in _QUANTITY_FORMS:
        # As long as the form: a shorter word is some other abbreviation.
        budget = ocr_budget(len(form))
        if len(word) >= len(form) and ocr_distance(word, form, budget) <= budget:
            return True
    return False


def is_section_totals(text: str) -> bool:
    """«Итого по разделу III», «Итого раздел 2»: the subtotal of a section."""
    return _SECTION_TOTALS.search(text) is not None


def is_section_heading(text: str) -> bool:
    """«Раздел II. Запасы», «Глава 3»: a heading between the accounts of a balance."""
    return _SECTION.match(text) is not None


def is_other_indicator(text: str) -> bool:
    """An indicator sub-row (quantity, tax accounting, currency) that is not the document."""
    return is_quantity_label(text) or _OTHER_INDICATOR.match(text) is not None


def first_text(
    row: Sequence[CellValue], last_text_col: int, level_col: int | None = None
) -> str | None:
    """The first text left of the money columns, in whichever column it stands (a totals or
    quantity caption is in the code column of one layout and in the name column of another),
    when it starts with a letter: codes, the usual labels, are no caption. The level column
    holds none, whatever OCR read there."""
    for col, cell in enumerate(row[:last_text_col]):
        if col == level_col:
            continue
        if isinstance(cell, str) and cell.strip():
            if is_counter(cell):
                continue  # a row number or an outline level, printed: a page has no numbers
            if is_totals_marker(cell):
                return cell.strip()
            if len(cell.strip()) < LEAST_CAPTION:
                continue  # such a number read by OCR as a letter or two ("т", "tl")
            if not cell.lstrip(LEADING)[:1].isalpha():
                return None
            return norm(cell)
    return None


def indent_of(cell: CellValue) -> int:
    """Leading spaces of a label: the only hierarchy a hand-made sheet shows."""
    if not isinstance(cell, str):
        return 0
    return len(cell) - len(cell.lstrip(" \u00a0\t"))


def is_signature(row: Sequence[CellValue], money_cols: Sequence[int]) -> bool:
    """The signature lines under the table ("Главный бухгалтер ____ (подпись)"): their words,
    and no amount in any money column (a "(подпись)" caption may stand in one)."""
    text = " ".join(norm(c) for c in row if isinstance(c, str))
    return _SIGNATURE.search(text) is not None and all(
        read_cents(cell).value is None for cell in cells_of(row, money_cols)
    )


def cells_of(row: Sequence[CellValue], columns: Sequence[int]) -> list[CellValue]:
    width = len(row)
    return [row[c] if c < width else None for c in columns]
