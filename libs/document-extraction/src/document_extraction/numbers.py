"""Amounts as printed: numeric cells and Russian-style text, into exact decimals."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from document_extraction.grid import CellValue
from recognition_contract import Money

# Confidence lost by one cell when its amount had to be read from text.
TEXT_AMOUNT_PENALTY = 1
# Extra loss for a sign in parentheses: a convention, not a minus sign.
PARENTHESES_PENALTY = 1
# Extra loss when the separators allowed two readings (1.234 or 1,234,567).
AMBIGUOUS_SEPARATORS_PENALTY = 5

CENT = Decimal("0.01")
_SPACES = str.maketrans("", "", " \u00a0\u202f\u2009\u2007\u2008\u200a'’")
_MINUS = ("-", "\u2212", "\u2013", "\u2014")
# A dash for "nothing", as a scan reads it: a dash, a few of them, "=", "_" or "~".
DASH_MARKS = "-\u2212\u2013\u2014=_~"
_DASHES = re.compile(f"[{re.escape(DASH_MARKS)}]{{1,3}}")
_PLAIN = re.compile(r"\d+(?:[.,]\d+)?")
_GROUPED_COMMA = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_GROUPED_DOT = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?")
# An amount as a bank's export writes it: digits, one decimal mark (a point in 1C and camt, a
# comma in MT940, which may end with it: "2,"), an optional minus.
_EXCHANGE_AMOUNT = re.compile(r"-?\d+(?:[.,]\d*)?")
_SPACED = re.compile(r"[-\u2212(]?\s*\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?:[.,]\d+)?\s*\)?")


@dataclass(frozen=True, slots=True)
class Amount:
    """A parsed amount: ``value`` is None for an empty cell; ``problem`` says why a non-empty
    cell could not be read (the value is then None too)."""

    value: Decimal | None
    penalty: int = 0
    problem: str | None = None


EMPTY = Amount(None)


def parse_amount(cell: CellValue) -> Amount:
    if cell is None:
        return EMPTY
    if isinstance(cell, bool):
        return Amount(None, problem=f"логическое значение {cell} вместо суммы")
    if isinstance(cell, int):
        return Amount(Decimal(cell))
    if isinstance(cell, float):
        if not math.isfinite(cell):
            return Amount(None, problem="нечисловое значение")
        # Excel keeps 15 significant digits: anything beyond is binary noise (0.1 + 0.2).
        return Amount(Decimal(format(cell, ".15g")))
    if isinstance(cell, str):
        return parse_amount_text(cell)
    return Amount(None, problem=f"дата {cell} вместо суммы")


# A currency printed with the amount: "1 000,00 BYN", "$ 25.00", "150 руб.".
_CURRENCY_MARK = re.compile(
    r"^(?:[$€₽]|(?:byn|rub|rur|usd|eur|kzt|kgs)\b)\s*|"
    r"\s*(?:[$€₽]|\b(?:byn|rub|rur|usd|eur|kzt|kgs)|(?:бел\.?\s*)?руб\.?|р\.|тг\.?|сом)$",
    re.IGNORECASE,
)
# Confidence lost when a currency mark had to be taken off the amount.
CURRENCY_MARK_PENALTY = 1
# A zero printed alone in its cell, as OCR reads it: a letter O, Latin or Cyrillic.
_ZERO_LOOKALIKES = frozenset("OoОо")
ZERO_LOOKALIKE_PENALTY = 5


def parse_amount_text(text: str) -> Amount:
    raw = text.strip()
    if not raw or raw in _MINUS or _DASHES.fullmatch(raw):
        return EMPTY
    if raw in _ZERO_LOOKALIKES:
        return Amount(Decimal(0), ZERO_LOOKALIKE_PENALTY)
    penalty = TEXT_AMOUNT_PENALTY
    negative = False
    body = raw
    unmarked = _CURRENCY_MARK.sub("", body).strip()
    if unmarked != body and unmarked:
        body = unmarked
        penalty += CURRENCY_MARK_PENALTY
    if body[-1:] in _MINUS and len(body) > 1 and body[-2:-1].isdigit():
        # A trailing minus ("100,00-"), as some ledgers print negatives.
        negative = True
        body = body[:-1].strip()
    if body.startswith("(") and body.endswith(")"):
        negative = True
        penalty += PARENTHESES_PENALTY
        body = body[1:-1].strip()
    if body[:1] in _MINUS:
        negative = not negative
        body = body[1:].strip()
    elif body[:1] == "+":
        body = body[1:].strip()
    spaced = body.translate(_SPACES)
    if spaced != body and not _SPACED.fullmatch(body):
        return Amount(None, problem=f"не удалось прочитать сумму «{raw}»")
    body = spaced
    if _PLAIN.fullmatch(body):
        number = body.replace(",", ".")
    elif _GROUPED_COMMA.fullmatch(body):
        number = body.replace(",", "")
        penalty += AMBIGUOUS_SEPARATORS_PENALTY
    elif _GROUPED_DOT.fullmatch(body):
        number = body.replace(".", "").replace(",", ".")
        penalty += AMBIGUOUS_SEPARATORS_PENALTY
    else:
        return Amount(None, problem=f"не удалось прочитать сумму «{raw}»")
    try:
        value = Decimal(number)
    except InvalidOperation:
        return Amount(None, problem=f"не удалось прочитать сумму «{raw}»")
    return Amount(-value if negative else value, penalty)


def find_amount_in_text(text: str) -> Amount:
    """The first amount inside a free-text line ("Входящий остаток: 15 300,00 BYN")."""
    for match in re.finditer(r"\(?[-\u2212]?\s*\d[\d \u00a0\u202f\u2009]*(?:[.,]\d+)?\)?", text):
        candidate = match.group(0).strip()
        if not candidate:
            continue
        amount = parse_amount_text(candidate)
        if amount.value is not None:
            return amount
    return EMPTY


def has_excess_precision(value: Decimal) -> bool:
    return value != value.quantize(CENT, rounding=ROUND_HALF_UP)


def format_money(value: Decimal | None) -> Money | None:
    """Money as the contract wants it: a string with two fraction digits, never a float."""
    if value is None:
        return None
    quantized = value.quantize(CENT, rounding=ROUND_HALF_UP)
    if quantized == 0:
        return Money("0.00")
    return Money(f"{quantized:f}")


@dataclass(frozen=True, slots=True)
class Cents:
    """An amount in whole cents (what a trial balance prints), for fast exact arithmetic."""

    value: int | None
    penalty: int = 0
    problem: str | None = None
    printed: Decimal | None = None  # set when the source had more than two decimals


NO_CENTS = Cents(None)
CENTS_LIMIT = 1e13  # beyond this a double no longer holds every cent exactly


def float_cents(cell: float) -> int | None:
    """The exact cents of a numeric cell holding at most two decimals, else None (more
    decimals, too large for every cent, not a number): such a cell needs the full reading."""
    if -CENTS_LIMIT < cell < CENTS_LIMIT:
        # The double nearest to a two-decimal number is the only one whose cents, rounded and
        # divided back, give it again: its cents are then exact.
        cents = round(cell * 100)
        if cents / 100 == cell:
            return cents
    return None


def read_cents(cell: CellValue) -> Cents:
    if cell is None:
        return NO_CENTS
    if type(cell) is float:
        cents = float_cents(cell)
        if cents is not None:
            return Cents(cents)
    if type(cell) is int and -CENTS_LIMIT < cell < CENTS_LIMIT:
        return Cents(cell * 100)
    amount = parse_amount(cell)
    if amount.problem is not None:
        return Cents(None, amount.penalty, amount.problem)
    if amount.value is None:
        return NO_CENTS
    quantized = amount.value.quantize(CENT, rounding=ROUND_HALF_UP)
    printed = amount.value if quantized != amount.value else None
    return Cents(int(quantized * 100), amount.penalty, None, printed)


# ".00" to ".99": money text is built from whole units and this, in integers, which is
# exact at any size and cheaper than formatting a float.
FRACTIONS = tuple(f".{cents:02d}" for cents in range(100))


def format_cents(cents: int | None) -> Money | None:
    if cents is None:
        return None
    if cents < 0:
        return Money("-" + str(-cents // 100) + FRACTIONS[-cents % 100])
    return Money(str(cents // 100) + FRACTIONS[cents % 100])


def exchange_amount(text: str | None) -> Decimal | None:
    """``1234.56``, ``1234,56``, ``2,``, ``1 234.56`` as an export writes amounts; None when
    empty or no amount (nothing else a printed page allows: no parentheses, no currency)."""
    if text is None:
        return None
    compact = text.strip().replace(" ", "").replace("\u00a0", "")
    if not _EXCHANGE_AMOUNT.fullmatch(compact):
        return None
    return Decimal(compact.replace(",", "."))
