"""Amounts for layouts: exact decimals, written as numbers or as Russian-style text."""

from __future__ import annotations

import random
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
SEPARATORS = {"text_nbsp": "\u00a0", "text_nnbsp": "\u202f", "text_space": " "}


def money(value: Decimal | None) -> str | None:
    """The contract's money string."""
    if value is None:
        return None
    q = value.quantize(CENT, rounding=ROUND_HALF_UP)
    return "0.00" if q == 0 else f"{q:f}"


def amount(rng: random.Random, low: int, high: int, *, tenths: bool = False) -> Decimal:
    """A random amount with cents (or tenths, as reports in thousands print them)."""
    if tenths:
        return Decimal(rng.randint(low * 10, high * 10)) / 10
    return Decimal(rng.randint(low * 100, high * 100)) / 100


def text_amount(value: Decimal, style: str) -> str:
    """1234567.89 -> '1 234 567,89' with the style's thousands separator; negatives with a
    minus, or in parentheses for style names ending in '_paren'."""
    paren = style.endswith("_paren")
    sep = SEPARATORS[style.removesuffix("_paren")]
    q = abs(value).quantize(CENT, rounding=ROUND_HALF_UP)
    whole, frac = f"{q:f}".split(".")
    groups: list[str] = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    text = sep.join(groups) + "," + frac
    if value < 0:
        return f"({text})" if paren else "-" + text
    return text


def cell(value: Decimal | None, style: str) -> str | float | None:
    """A layout cell for an amount: empty for None, a float for numbers, text otherwise."""
    if value is None:
        return None
    if style == "number":
        return float(value)
    return text_amount(value, style)


def penalty(value: Decimal | None, style: str) -> int:
    """Confidence a reader loses on this cell: text costs 1, parentheses 1 more."""
    if value is None or style == "number":
        return 0
    return 2 if (style.endswith("_paren") and value < 0) else 1
