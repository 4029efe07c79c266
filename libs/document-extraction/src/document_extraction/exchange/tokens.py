"""Amounts and dates as exchange files write them: ``1234.56`` in 1C, ``1234,56`` in MT940,
``DD.MM.YYYY`` in 1C, ``YYMMDD`` in MT940, ISO dates in camt."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal, InvalidOperation
from typing import Final

_AMOUNT: Final = re.compile(r"-?\d+(?:[.,]\d*)?")
_DOTTED: Final = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})")
_ISO: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def exchange_amount(text: str | None) -> Decimal | None:
    """``1234.56``, ``1234,56``, ``1 234.56``; None when empty or not an amount."""
    if text is None:
        return None
    compact = text.strip().replace(" ", "").replace("\u00a0", "")
    if not _AMOUNT.fullmatch(compact):
        return None
    try:
        return Decimal(compact.replace(",", "."))
    except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
        return None


def exchange_date(text: str | None) -> datetime.date | None:
    """``DD.MM.YYYY`` (also ``DD.MM.YY``) or ``YYYY-MM-DD`` (a time after it is ignored);
    None when empty or no real date."""
    if text is None:
        return None
    value = text.strip()
    try:
        if (iso := _ISO.match(value)) is not None:
            return datetime.date(int(iso[1]), int(iso[2]), int(iso[3]))
        if (dotted := _DOTTED.fullmatch(value)) is not None:
            year = int(dotted[3])
            year += 2000 if len(dotted[3]) == 2 else 0
            return datetime.date(year, int(dotted[2]), int(dotted[1]))
    except ValueError:
        return None
    return None


def swift_date(text: str) -> datetime.date | None:
    """``YYMMDD`` of MT940 (years 00-79 are 20xx)."""
    if len(text) != 6 or not text.isdigit():
        return None
    year = int(text[:2])
    century = 2000 if year < 80 else 1900
    try:
        return datetime.date(century + year, int(text[2:4]), int(text[4:]))
    except ValueError:
        return None
