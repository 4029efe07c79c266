"""Drawing axis values and printing amounts the ways real files print them.

Every axis is drawn from its own random stream (seed, layout index and axis name), so that the
value of one axis never depends on another axis or on the order in which axes are listed: adding
an axis leaves the draws of all the others unchanged.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from recognition_corpus.money import money

CENT = Decimal("0.01")
NOT_APPLICABLE = "n/a"

# (value, weight): a rare real variant gets a small weight.
Axis = tuple[tuple[Any, float], ...]


def uniform(*values: Any) -> Axis:
    return tuple((v, 1.0) for v in values)


class Draw:
    """The axis values of one layout, each drawn from its own stream; ``record`` is what the
    layout's ``params`` keep (the effective value, or n/a where the axis had no effect)."""

    def __init__(
        self, seed: int, index: int, axes: dict[str, Axis], fixed: Mapping[str, Any] | None = None
    ) -> None:
        """``fixed``: values some axes take whatever the seed draws (the others are drawn
        as ever: each axis has its own stream)."""
        self.values: dict[str, Any] = {}
        for name, choices in axes.items():
            rng = random.Random(f"{seed}:{index}:axis:{name}")  # noqa: S311 - test data
            values = [v for v, _ in choices]
            weights = [w for _, w in choices]
            self.values[name] = rng.choices(values, weights)[0]
        self.values.update({k: v for k, v in (fixed or {}).items() if k in axes})
        self.record: dict[str, Any] = dict(self.values)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def effective(self, name: str, value: Any) -> Any:
        """The axis had another effect than drawn (or none: NOT_APPLICABLE)."""
        self.values[name] = value
        self.record[name] = value
        return value


# How amounts are printed: numbers (with or without a display format) or text with a
# thousands separator ("" none) and a decimal mark.
AMOUNT_REPRS: dict[str, tuple[str, str] | None] = {
    "number_format": None,
    "number_plain": None,
    "text_nbsp_comma": ("\u00a0", ","),
    "text_nnbsp_comma": ("\u202f", ","),
    "text_space_comma": (" ", ","),
    "text_nogroup_comma": ("", ","),
    "text_nogroup_dot": ("", "."),
    "text_space_dot": (" ", "."),
    # Bakai Bank: '\xa0 677 232 467,02', a no-break space and a space before the digits.
    "text_lead_nbsp_comma": (" ", ","),
}
PREFIXES = {"text_lead_nbsp_comma": "\u00a0 "}
AMOUNT_FORMAT = "#,##0.00"
AMOUNT_FORMAT_PAREN = "#,##0.00;(#,##0.00)"


@dataclass(frozen=True)
class Printed:
    """One amount cell: what the sheet holds, its format, what a reader loses on it, and the
    contract's money string for it."""

    cell: str | float | None
    fmt: str | None
    penalty: int
    money: str | None


def text_amount(value: Decimal, sep: str, decimal: str, negatives: str) -> str:
    q = abs(value).quantize(CENT, rounding=ROUND_HALF_UP)
    whole, frac = f"{q:f}".split(".")
    groups: list[str] = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    text = sep.join(groups) + decimal + frac
    if value < 0:
        return f"({text})" if negatives == "parentheses" else "-" + text
    return text


def print_amount(value: Decimal | None, repr_: str, *, negatives: str, zero: str) -> Printed:
    """``zero`` prints an absent amount: empty | dash | emdash | zero ("0,00" or 0 with the
    amount format). A printed zero is the money "0.00"; a dash is no amount (null)."""
    text_style = AMOUNT_REPRS[repr_]
    if value is None or value == 0:
        if zero == "dash":
            return Printed("-", None, 0, None)
        if zero == "emdash":
            return Printed("\u2014", None, 0, None)
        if zero != "zero":
            return Printed(None, None, 0, None)
        if text_style is None:
            fmt = AMOUNT_FORMAT if repr_ == "number_format" else None
            return Printed(0.0, fmt, 0, "0.00")
        zero_text = PREFIXES.get(repr_, "") + text_amount(Decimal(0), *text_style, negatives)
        return Printed(zero_text, None, 1, "0.00")
    if text_style is None:
        fmt = None
        if repr_ == "number_format":
            fmt = AMOUNT_FORMAT_PAREN if negatives == "parentheses" else AMOUNT_FORMAT
        return Printed(float(value), fmt, 0, money(value))
    penalty = 2 if (value < 0 and negatives == "parentheses") else 1
    text = PREFIXES.get(repr_, "") + text_amount(value, *text_style, negatives)
    return Printed(text, None, penalty, money(value))


def case(text: str, how: str) -> str:
    if how == "upper":
        return text.upper()
    if how == "lower":
        return text.lower()
    if how == "title":
        return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))
    return text


def break_lines(text: str, rng: random.Random) -> str:
    """A line break inside a caption cell in place of one space (wrapped header cells)."""
    words = text.split(" ")
    if len(words) < 2:
        return text
    at = rng.randint(1, len(words) - 1)
    return " ".join(words[:at]) + "\n" + " ".join(words[at:])


def split_amount(rng: random.Random, total: Decimal, parts: int) -> list[Decimal]:
    """``total`` cut into ``parts`` amounts of whole cents (or tenths) that sum to it exactly."""
    if parts <= 1 or total == 0:
        return [total] + [Decimal(0)] * (parts - 1)
    step = Decimal("0.1") if total == total.quantize(Decimal("0.1")) else CENT
    units = int(total / step)
    cuts = sorted(rng.randint(0, abs(units)) for _ in range(parts - 1))
    sign = 1 if units >= 0 else -1
    bounds = [0, *cuts, abs(units)]
    return [Decimal(sign * (b - a)) * step for a, b in itertools.pairwise(bounds)]
