"""A statement's columns as its lines fill them: which of several candidates the body fits, the
statement's own account printed on every line, a column counting the lines, a direction flag,
and the columns no caption names (a party's name, a BIC, a tax id) found by their values."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Final

from document_extraction.captions import (
    Column,
)
from document_extraction.grid import CellValue
from document_extraction.identifiers import normalize_tax_id, readable_account, tax_id_valid
from document_extraction.layouts.header_blocks import FIT_ROWS, is_amount_cell, is_date_cell
from document_extraction.layouts.statement.head import line_labels
from document_extraction.lookalikes import (
    LEGAL_FORMS,
    latin_spelling,
    legal_form_spelled,
)
from document_extraction.readings import direction_of
from document_extraction.row_numbers import is_running_sequence
from document_extraction.text import as_text, is_empty
from document_extraction.vocabulary import (
    NAME_WORDS,
    NUMBER_WORDS,
)


def fit(rows: Sequence[Sequence[CellValue]], col: int, test: Callable[[CellValue], bool]) -> int:
    return sum(1 for row in rows if col < len(row) and test(row[col]))


def is_constant(rows: Sequence[Sequence[CellValue]], col: int, least: int = 2) -> bool:
    """Whether a column holds one and the same account on every line that has a readable
    one (``least`` of them or more): OCR's look-alikes on some lines ("В\\90ВАРВЗ01…") are
    the same account, and a misread one tells of no other."""
    accounts = [
        account
        for row in rows
        if col < len(row)
        and not is_empty(row[col])
        and (account := readable_account(str(row[col]))) is not None
    ]
    return len(accounts) >= least and len(set(accounts)) == 1


# Lines that must show one and the same account before it is taken for the statement's own.
MIN_OWN_ACCOUNT_LINES = 3


def is_own_account(lines: Sequence[Sequence[CellValue]], candidates: Sequence[Column]) -> bool:
    return (
        len(candidates) == 1
        and not candidates[0].words & NAME_WORDS
        and is_constant(lines, candidates[0].index, MIN_OWN_ACCOUNT_LINES)
    )


def counts_lines(lines: Sequence[Sequence[CellValue]], column: int, least: int) -> bool:
    cells = [row[column] if column < len(row) else None for row in lines]
    return is_running_sequence(cells, least=least)


def lines_of(
    rows: Sequence[Sequence[CellValue]], start: int, money: Sequence[int], dates: Sequence[int]
) -> list[Sequence[CellValue]]:
    """The body rows that are operations: an amount in a money column, no balance or totals
    label, and a date in a date column or (a statement grouped by day) an empty one under a
    row of its day's date and opening balance."""
    lines = []
    in_day = False
    for row in rows[start : start + FIT_ROWS]:
        if not any(c < len(row) and is_amount_cell(row[c]) for c in money):
            continue
        dated = any(c < len(row) and is_date_cell(row[c]) for c in dates)
        labels = line_labels(row)
        if labels:
            in_day = in_day or (dated and "opening" in labels)
        elif dated or (in_day and all(c >= len(row) or is_empty(row[c]) for c in dates)):
            lines.append(row)
    return lines


def best_fit(
    rows: Sequence[Sequence[CellValue]],
    candidates: list[Column],
    test: Callable[[CellValue], bool],
    preferred: frozenset[str],
) -> int:
    """The candidate column the body fills best; the caption's preferred words break ties."""
    return max(
        candidates,
        key=lambda c: (fit(rows, c.index, test), bool(c.words & preferred), -c.index),
    ).index


_VALUE_TESTS: dict[str, Callable[[CellValue], bool]] = {
    "date": is_date_cell,
    "debit": is_amount_cell,
    "credit": is_amount_cell,
    "amount": is_amount_cell,
}


def captions_beside_values(
    body: Sequence[Sequence[CellValue]], columns: list[Column], roles: dict[int, str]
) -> tuple[list[Column], dict[int, str]]:
    """Columns whose caption stands left of their values: a page that set the caption left
    and the dates or amounts right in their cell may give each a column of its own. A date
    or money caption over no value of its kind, beside a column with no caption and such
    values, is that column's."""
    moved = {}
    for index, role in roles.items():
        test = _VALUE_TESTS.get(role)
        right = index + 1
        if test is None or right in roles or fit(body, index, test):
            continue
        if fit(body, right, test):
            moved[index] = right
    if not moved:
        return columns, roles
    shifted = [replace(c, index=moved.get(c.index, c.index)) for c in columns]
    return shifted, {moved.get(i, i): role for i, role in roles.items()}


# A column where this share of the operations say a side, in a word or letter of their own
# (and never more than a few words), is their direction column, whatever its caption says:
# "Д/К" over it is two letters OCR may read as anything.
FLAG_SHARE = 0.75
FLAG_WORDS = 2


def flag_column(lines: Sequence[Sequence[CellValue]], taken: set[int]) -> int | None:
    """The first column not ``taken`` whose cells on the operation ``lines`` say a side."""
    width = max((len(row) for row in lines), default=0)
    for index in range(width):
        if index in taken:
            continue
        cells = [row[index] if index < len(row) else None for row in lines]
        said = [
            cell
            for cell in cells
            if direction_of(cell) is not None and len(str(cell).split()) <= FLAG_WORDS
        ]
        if len(lines) >= 2 and len(said) >= FLAG_SHARE * len(lines):
            return index
    return None


_WHOLE_NUMBER = re.compile(r"\d+")


def number_beside_amounts(
    lines: Sequence[Sequence[CellValue]],
    chosen: dict[str, int],
    by_index: Mapping[int, Column],
    roles: dict[int, str],
) -> dict[str, int]:
    """ "№ док" and "Сумма" read into one caption over the numbers' column, the amounts in
    the column beside it without a caption of their own, or under the rest of the sum's
    caption ("в валюте счета", which names a currency): the body says which is which. The
    captioned column holds whole numbers only, the one right of it amounts on most lines."""
    amount = chosen["amount"]
    right = amount + 1
    captioned = right in by_index and by_index[right].words
    if (
        "number" in chosen
        or (captioned and roles.get(right) != "currency")
        or not by_index[amount].words & NUMBER_WORDS
    ):
        return chosen
    numbers = [row[amount] for row in lines if amount < len(row) and not is_empty(row[amount])]
    whole = bool(numbers) and all(
        type(cell) is int or (isinstance(cell, str) and _WHOLE_NUMBER.fullmatch(cell.strip()))
        for cell in numbers
    )
    if whole and 2 * fit(lines, right, is_amount_cell) > len(lines):
        kept = {role: index for role, index in chosen.items() if index != right}
        return {**kept, "number": amount, "amount": right}
    return chosen


# A counterparty as a statement names it: a legal form before a quoted name, or "ИП"
# before a person's name.
_NAMED = re.compile(rf"^(?:{'|'.join(sorted(LEGAL_FORMS))})\s*«|^ИП\s+\w")
# A SWIFT BIC: bank, country, location and an optional branch, in Latin capitals and digits
# (not ``identifiers.normalize_bic``, which takes a Russian БИК of nine digits too, as an
# УНП column holds them).
_SWIFT_BIC = re.compile(r"[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?")


def _names_a_party(text: str) -> bool:
    return bool(_NAMED.match(legal_form_spelled(text)))


def _is_swift_bic(text: str) -> bool:
    return bool(_SWIFT_BIC.fullmatch(latin_spelling(text.replace(" ", ""))))


def _is_tax_id(text: str) -> bool:
    """A taxpayer's number whose check digit holds (a document's number or an amount does
    so by chance only now and then)."""
    tax_id = normalize_tax_id(text)
    return tax_id is not None and tax_id.isdigit() and tax_id_valid(tax_id)


# The body says what a column holds when OCR misread its caption ("ПолучателыПлательщик",
# "BUK" for "БИК", "yon" for "УНП").
BY_BODY: Final = (("name", _names_a_party), ("bic", _is_swift_bic), ("tax_id", _is_tax_id))


def column_by_body(
    lines: Sequence[Sequence[CellValue]], taken: set[int | None], holds: Callable[[str], bool]
) -> int | None:
    """The first column not ``taken`` whose cells, on most operations, hold what ``holds``
    tells: an organisation's or a person's name, a bank's BIC."""
    width = max((len(row) for row in lines), default=0)
    for index in range(width):
        if index in taken:
            continue
        held = sum(holds(as_text(row[index]) or "") for row in lines if index < len(row))
        if len(lines) >= 2 and held >= FLAG_SHARE * len(lines):
            return index
    return None


def has_sides(roles: dict[int, str]) -> bool:
    return {"debit", "credit"} <= set(roles.values())
