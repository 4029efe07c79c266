"""Statements whose debit and credit columns hold the two accounts of each entry (account, ИНН
and name in one cell, as printed statements of Russian banks set them): which columns those are
(their body holds accounts, not amounts), whose account is the holder's, and the other party as
its cell names it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from document_extraction.captions import Column
from document_extraction.grid import CellValue
from document_extraction.identifiers import find_account, find_tax_id
from document_extraction.text import as_text, is_empty
from document_extraction.vocabulary import PAYER_WORDS, RECEIVER_WORDS

# A side's column holds the entry's accounts where this share of its filled cells name one.
ACCOUNT_SHARE = 0.6
# The holder's account stands on this share of the lines at least, on one side or the other.
HOLDER_SHARE = 0.8
SIDE_ACCOUNTS = {"debit": "debit_account", "credit": "credit_account"}

_ACCOUNT_DIGITS = re.compile(r"\b(?:[A-Z]{2}\d{2}[\dA-Z ]{10,30}|\d{20}|\d{16}|\d{13})\b")
_TAX_IDS = re.compile(r"(?:ИНН|КПП|УНП|БИН|ИИН)\s*[:№]?\s*[\d/]+", re.IGNORECASE)


def holds_accounts(lines: Sequence[Sequence[CellValue]], column: int) -> bool:
    cells = [row[column] for row in lines if column < len(row) and not is_empty(row[column])]
    named = sum(isinstance(cell, str) and find_account(cell) is not None for cell in cells)
    return bool(cells) and named >= ACCOUNT_SHARE * len(cells)


def accounts_by_side(
    lines: Sequence[Sequence[CellValue]], roles: Mapping[int, str]
) -> dict[int, str]:
    """The roles with each side's column that holds accounts, not amounts, named that side's
    account («Счет: Дебет | Кредит» over the entry's accounts)."""
    return {
        column: SIDE_ACCOUNTS[role]
        if role in SIDE_ACCOUNTS and holds_accounts(lines, column)
        else role
        for column, role in roles.items()
    }


def party_blocks(columns: Sequence[Column], roles: Mapping[int, str]) -> dict[int, str]:
    """The roles with the payer's and the receiver's blocks («Плательщик» over «Счет | ИНН |
    Наименование», «Получатель» over the same) named the entry's debit and credit sides:
    money leaves the payer's account. Unchanged unless both blocks name an account."""
    sides = {}
    for column in columns:
        role = roles.get(column.index)
        if role not in ("account", "tax_id", "name"):
            continue
        payer, receiver = bool(column.above & PAYER_WORDS), bool(column.above & RECEIVER_WORDS)
        if payer != receiver:
            sides[column.index] = f"{'debit' if payer else 'credit'}_{role}"
    if not {"debit_account", "credit_account"} <= set(sides.values()):
        return dict(roles)
    return {**roles, **sides}


@dataclass(frozen=True)
class Party:
    account: str | None
    tax_id: str | None
    name: str | None


def party_in_cell(cell: CellValue) -> Party:
    """A party as one cell names it: its account, its ИНН, and its name in what is left."""
    text = as_text(cell) or ""
    account = find_account(text)
    name = _TAX_IDS.sub(" ", _ACCOUNT_DIGITS.sub(" ", text))
    name = " ".join(name.replace("\n", " ").split()).strip(" ,;")
    return Party(account, find_tax_id(text), name or None)


def holder_account(lines: Sequence[Sequence[CellValue]], columns: Sequence[int]) -> str | None:
    """The account that stands on (nearly) every line in one of the side columns: the holder's."""
    counts: Counter[str] = Counter()
    for row in lines:
        accounts = {
            account
            for column in columns
            if column < len(row) and (account := find_account(as_text(row[column]) or ""))
        }
        counts.update(accounts)
    if not counts or not lines:
        return None
    account, seen = counts.most_common(1)[0]
    return account if seen >= HOLDER_SHARE * len(lines) else None
