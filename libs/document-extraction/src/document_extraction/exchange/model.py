"""What an exchange file says, before it becomes statements: the accounts' sections with the
balances and turnovers they print, and the entries with both parties. Every value keeps the
lines of the file it came from, so a statement line points back at them."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Final, Literal

from recognition_contract import ErrorCode, Locator, Warning

Direction = Literal["debit", "credit"]
TEXT_SHEET: Final = "Текст"
"""The source view shows a text file as one sheet whose rows are the file's lines."""


class Refused(Exception):
    """The file cannot be read as an exchange file: ``code`` is the contract's error code."""

    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Lines:
    """1-based first and last line of the file (inclusive)."""

    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Party:
    """One side of a payment as the file names it."""

    name: str | None = None
    tax_id: str | None = None
    kpp: str | None = None
    """КПП of a Russian organisation."""
    account: str | None = None
    settlement_account: str | None = None
    """ПлательщикРасчСчет / ПолучательРасчСчет: the client's account when ``account`` is the
    bank's correspondent account (payments through another bank)."""
    bank: str | None = None
    bic: str | None = None

    def holds(self, account: str) -> bool:
        return account in (self.account, self.settlement_account)


@dataclass(frozen=True, slots=True)
class Entry:
    """One operation. 1CClientBankExchange names both parties and leaves the direction to the
    statement's account; MT940 and camt.053 say the direction and the account themselves."""

    lines: Lines
    amount: Decimal
    date: datetime.date | None
    number: str | None = None
    kind: str | None = None
    purpose: str | None = None
    payer: Party = field(default_factory=Party)
    receiver: Party = field(default_factory=Party)
    debited_on: datetime.date | None = None
    credited_on: datetime.date | None = None
    direction: Direction | None = None
    account: str | None = None


@dataclass(frozen=True, slots=True)
class Section:
    """The balances and turnovers an account's section prints for its dates. ``None`` is a key
    the file leaves out."""

    lines: Lines
    account: str
    start: datetime.date | None
    end: datetime.date | None
    opening: Decimal | None
    credits: Decimal | None
    debits: Decimal | None
    closing: Decimal | None
    currency: str | None = None


@dataclass(frozen=True, slots=True)
class Ledger:
    """A whole exchange file: sections and entries in file order, and what its header says."""

    sections: tuple[Section, ...]
    entries: tuple[Entry, ...]
    accounts: tuple[str, ...] = ()
    """Accounts the header names (1C ``РасчСчет=`` lines)."""
    start: datetime.date | None = None
    end: datetime.date | None = None
    currencies: dict[str, str] = field(default_factory=dict)
    """Currency of an account where the file says it (MT940, camt)."""
    holders: dict[str, str] = field(default_factory=dict)
    """Holder's name of an account where the file says it (camt)."""
    banks: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    """(bank name, BIC) of an account where the file says them."""
    warnings: tuple[Warning, ...] = ()


def text_locator(lines: Lines | None = None) -> Locator:
    """The lines of the file (all of it without ``lines``), as the source view shows them."""
    if lines is None:
        return Locator(sheet=TEXT_SHEET)
    last = lines.last if lines.last > lines.first else None
    return Locator(sheet=TEXT_SHEET, row=lines.first, row_end=last)
