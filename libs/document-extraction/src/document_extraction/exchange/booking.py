"""An entry as a line of one account's statement: which way the money moved, who the other
side is, and the day it moved."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from document_extraction.exchange.model import Direction, Entry, Party


@dataclass(frozen=True, slots=True)
class Booked:
    """An entry as a line of one account's statement."""

    entry: Entry
    direction: Direction
    counterparty: Party
    holder: Party | None


def book(entry: Entry, account: str, *, sole: bool = False) -> Booked | None:
    """The entry as a line of ``account``'s statement, or None when it is not the account's.
    In a file of one account (``sole``), a document naming it on neither side (the bank's
    correspondent account in its place) is the account's when its dates say which way."""
    if entry.account is not None:
        if entry.account != account or entry.direction is None:
            return None
        other = entry.receiver if entry.direction == "debit" else entry.payer
        return Booked(entry, entry.direction, other, None)
    direction = direction_for(entry, account) or (direction_by_dates(entry) if sole else None)
    if direction is None:
        return None
    if direction == "debit":
        return Booked(entry, "debit", entry.receiver, entry.payer)
    return Booked(entry, "credit", entry.payer, entry.receiver)


def direction_for(entry: Entry, account: str) -> Direction | None:
    """Money out when the account pays, in when it receives; a document naming the account on
    neither side is not the account's."""
    if entry.payer.holds(account):
        return "debit"
    if entry.receiver.holds(account):
        return "credit"
    return None


def direction_by_dates(entry: Entry) -> Direction | None:
    """Written off only: money out; received only: money in; both or neither say nothing."""
    if (entry.debited_on is None) == (entry.credited_on is None):
        return None
    return "debit" if entry.debited_on is not None else "credit"


def booked_date(line: Booked) -> datetime.date | None:
    """The day the money moved: written off for a debit, received for a credit (banks fill
    the other key now and then), else the document's date."""
    entry = line.entry
    first, second = (
        (entry.debited_on, entry.credited_on)
        if line.direction == "debit"
        else (entry.credited_on, entry.debited_on)
    )
    return first or second or entry.date
