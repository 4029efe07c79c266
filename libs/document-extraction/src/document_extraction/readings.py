"""Readings a caption leaves open, decided by the document's own arithmetic.

A statement with one signed amount column may print money in as positive (the usual way) or
money out as positive; a direction column says which side each amount is on in words of its
own. Each reading gives the lines' debits and credits; the one under which the statement's
identities hold (opening + credits − debits = closing, the lines sum to the printed totals) is
kept. Numbers are never changed, only assigned to a side.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from document_extraction.grid import CellValue
from document_extraction.text import norm
from document_extraction.vocabulary import CREDIT_FLAGS, DEBIT_FLAGS

ZERO = Decimal(0)

_FLAG = re.compile(r"[a-zа-я]+|[+\-−]")


def direction_of(cell: CellValue) -> str | None:
    """ "debit" or "credit" from a direction cell ("Credit", "Пополнение", "Д", "+"), or None."""
    if not isinstance(cell, str):
        return None
    tokens = _FLAG.findall(norm(cell).replace("−", "-"))
    if not tokens:
        return None
    sides = {"credit" for t in tokens if t in CREDIT_FLAGS} | {
        "debit" for t in tokens if t in DEBIT_FLAGS
    }
    return sides.pop() if len(sides) == 1 else None


@dataclass(frozen=True, slots=True)
class Reading:
    """A way to put each line's amount on a side: ``sides[i]`` is (debit, credit) of line i."""

    name: str
    sides: list[tuple[Decimal | None, Decimal | None]]
    # The totals line follows the columns: a reading that swaps the columns swaps it too.
    swaps_totals: bool = False


# Lines whose direction cell is unreadable, at most, for the arithmetic to put on a side.
MAX_UNREAD_DIRECTIONS = 6


def signed_readings(
    values: Sequence[Decimal | None], directions: Sequence[str | None] | None
) -> list[Reading]:
    """The readings of one amount column: by the direction column when there is one (then
    with each line whose direction is unreadable on the other side, in every combination,
    for the balances and totals to choose), then money in as positive, then money out as
    positive."""
    readings: list[Reading] = []
    if directions is not None and any(d is not None for d in directions):
        sides = [_directed(v, d) for v, d in zip(values, directions, strict=True)]
        readings.append(Reading("direction", sides))
        unread = [i for i, v in enumerate(values) if v is not None and directions[i] is None]
        if len(unread) <= MAX_UNREAD_DIRECTIONS:
            for count in range(1, len(unread) + 1):
                for turned in itertools.combinations(unread, count):
                    other = list(sides)
                    for i in turned:
                        other[i] = (other[i][1], other[i][0])
                    readings.append(Reading("direction_completed", other))
    readings.append(Reading("credit_positive", [_credit_positive(v) for v in values]))
    readings.append(Reading("debit_positive", [_debit_positive(v) for v in values]))
    return readings


def column_readings(sides: Sequence[tuple[Decimal | None, Decimal | None]]) -> list[Reading]:
    """The readings of a debit and a credit column: as captioned, then the other way round
    (an export that names the sides from the bank's books rather than the client's)."""
    return [
        Reading("columns", list(sides)),
        Reading("swapped", [(credit, debit) for debit, credit in sides], swaps_totals=True),
    ]


def _directed(
    value: Decimal | None, direction: str | None
) -> tuple[Decimal | None, Decimal | None]:
    if value is None:
        return None, None
    if direction == "debit":
        return abs(value), None
    if direction == "credit":
        return None, abs(value)
    return _credit_positive(value)


def _credit_positive(value: Decimal | None) -> tuple[Decimal | None, Decimal | None]:
    if value is None:
        return None, None
    return (-value, None) if value < 0 else (None, value)


def _debit_positive(value: Decimal | None) -> tuple[Decimal | None, Decimal | None]:
    if value is None:
        return None, None
    return (value, None) if value > 0 else (None, -value)


def identities_held(
    reading: Reading,
    opening: Decimal | None,
    closing: Decimal | None,
    total_debit: Decimal | None,
    total_credit: Decimal | None,
) -> int:
    """How many of the statement's identities hold under a reading (0 to 3)."""
    debits = sum((d for d, _ in reading.sides if d is not None), ZERO)
    credits = sum((c for _, c in reading.sides if c is not None), ZERO)
    if reading.swaps_totals:
        total_debit, total_credit = total_credit, total_debit
    held = 0
    if opening is not None and closing is not None and opening + credits - debits == closing:
        held += 1
    if total_debit is not None and total_debit == debits:
        held += 1
    if total_credit is not None and total_credit == credits:
        held += 1
    return held


def choose_reading(
    readings: Sequence[Reading],
    opening: Decimal | None,
    closing: Decimal | None,
    total_debit: Decimal | None,
    total_credit: Decimal | None,
) -> tuple[Reading, bool]:
    """The first reading under which the most identities hold, and whether the arithmetic
    overruled the first (the captions') reading."""
    scores = [identities_held(r, opening, closing, total_debit, total_credit) for r in readings]
    best = max(range(len(readings)), key=lambda i: (scores[i], -i))
    return readings[best], best != 0 and scores[best] > scores[0]


@dataclass(frozen=True, slots=True)
class RunningBalance:
    """What a running-balance column says: the balance before the first operation and after
    the last, whether the lines run oldest first, and the lines where it does not add up."""

    opening: Decimal
    closing: Decimal
    oldest_first: bool
    broken: list[int]  # positions of lines whose balance is not the previous one moved by them


def read_running_balance(
    balances: Sequence[Decimal | None],
    sides: Sequence[tuple[Decimal | None, Decimal | None]],
) -> RunningBalance | None:
    """The reading of a running-balance column under which each line's balance follows from
    its neighbour's and the operations: lines oldest or newest first, the balance printed
    after each operation or before it («Вх.остаток»). The one with the fewest broken lines
    wins, the usual (oldest first, after the operation) on a tie."""
    if len(balances) < 2 or any(b is None for b in balances):
        return None
    values = [b for b in balances if b is not None]
    moves = [(c or ZERO) - (d or ZERO) for d, c in sides]
    last = len(values) - 1
    readings = [
        # oldest first, balance after each operation
        RunningBalance(
            values[0] - moves[0],
            values[-1],
            True,
            [i for i in range(1, last + 1) if values[i] != values[i - 1] + moves[i]],
        ),
        # newest first, balance after each operation
        RunningBalance(
            values[-1] - moves[-1],
            values[0],
            False,
            [i for i in range(last) if values[i] != values[i + 1] + moves[i]],
        ),
        # oldest first, balance before each operation
        RunningBalance(
            values[0],
            values[-1] + moves[-1],
            True,
            [i for i in range(last) if values[i + 1] != values[i] + moves[i]],
        ),
        # newest first, balance before each operation
        RunningBalance(
            values[-1],
            values[0] + moves[0],
            False,
            [i for i in range(1, last + 1) if values[i - 1] != values[i] + moves[i]],
        ),
    ]
    return min(readings, key=lambda reading: len(reading.broken))
