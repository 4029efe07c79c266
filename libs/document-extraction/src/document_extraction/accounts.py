"""Account codes as printed, leading zeros restored, their hierarchy, and the chart they fit."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import NamedTuple

from document_extraction.grid import CellValue
from document_extraction.lookalikes import legal_form_spelled

# A code read from a number without its display format: "8" is shown as "08" by every chart
# with two-digit synthetic accounts, but the reader had to assume it.
RESTORED_CODE_PENALTY = 3

_SEGMENT = r"(?:\d{1,4}|[A-Za-zА-ЯЁа-яё]{1,2})"
_CODE_ONLY = re.compile(rf"(?P<code>\d{{1,3}}(?:[./]{_SEGMENT})*)\.?")
# A four-digit code before a name (Kazakhstan's chart), never a year ("2024 г.", "2024 год").
_CODE_AND_NAME = re.compile(
    rf"(?P<code>\d{{2,4}}(?:[./]{_SEGMENT})*)\.?(?:\s*[,;:]\s*|\s+[-–—]\s+|\s+)"
    r"(?!(?:г|год|года|ж|жыл)\b\.?)(?P<name>\S.*)",
    re.DOTALL,
)
_FORMAT_SECTION = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]|[^"\\\[]')


class Code(NamedTuple):
    """An account code read from a label cell (a named tuple: one is made per row)."""

    code: str
    name: str | None
    penalty: int = 0


def _pad_synthetic(code: str) -> tuple[str, bool]:
    if code[:1].isdigit() and not code[1:2].isdigit():
        return "0" + code, True
    return code, False


def render_code_format(number: int, fmt: str) -> str | None:
    """Render an integer through a simple Excel display format (``00``, ``00".Н"``, ``00\\.\\Н``).

    Returns None for formats that are not about codes (``General``, ``#,##0.00``, dates).
    """
    section = fmt.split(";", 1)[0]
    bare = re.sub(r'"[^"]*"|\\.|\[[^\]]*\]', "", section).lower()
    # Grouping, decimals or date parts outside literal text mean an amount or a date format.
    if not bare or bare in ("general", "@") or re.search(r"[.,edmyhs%/]", bare):
        return None
    out: list[str] = []
    digits_done = False
    zeros = 0
    tokens = _FORMAT_SECTION.findall(section)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in ("0", "#"):
            run = 0
            while index < len(tokens) and tokens[index] in ("0", "#"):
                run += tokens[index] == "0"
                index += 1
            if digits_done:
                return None
            zeros = run
            out.append(str(number).zfill(zeros))
            digits_done = True
            continue
        if token.startswith('"'):
            out.append(token[1:-1])
        elif token.startswith("\\"):
            out.append(token[1:])
        elif token.startswith("["):
            pass
        elif token in ("_", "*"):
            index += 1  # the next character is padding, not text
        else:
            out.append(token)
        index += 1
    if not digits_done:
        return None
    return "".join(out).strip() or None


def is_plain_code(text: str) -> bool:
    """The usual label, "60.01": digits and dots only, a synthetic part of two or more digits,
    no empty part. Such a cell is its own code, as printed."""
    return (
        text[1:2].isdigit()
        and text.replace(".", "").isdigit()
        and ".." not in text
        and text[-1] != "."
    )


def code_from_cell(cell: CellValue, fmt: str | None = None) -> Code | None:
    """The account code (and name, when the cell holds both) of a label cell, or None when the
    cell does not start with a code."""
    if cell is None or isinstance(cell, bool):
        return None
    if isinstance(cell, int | float) and not isinstance(cell, bool):
        return _code_from_number(float(cell), fmt)
    if not isinstance(cell, str):
        return None
    if is_plain_code(cell):
        return Code(cell, None)
    text = " ".join(cell.split())
    if not text:
        return None
    match = _CODE_ONLY.fullmatch(text)
    if match is not None:
        code, padded = _pad_synthetic(match.group("code"))
        return Code(code, None, RESTORED_CODE_PENALTY if padded else 0)
    match = _CODE_AND_NAME.fullmatch(text)
    if match is not None and legal_form_spelled(text) == text:
        # Not "000 «Сигма»": ООО as OCR reads it is no account 000.
        name = match.group("name").strip()
        return Code(match.group("code"), name or None)
    return None


# Whole numbers below this are codes: two or three digits in the charts of Russia and Belarus,
# four in Kazakhstan's, eight in an ERP's general ledger.
CODE_NUMBER_LIMIT = 100_000_000
# A fractional number is a code with a subaccount (60.1) only below this: beyond, an amount.
SUBACCOUNT_NUMBER_LIMIT = 1000


def _code_from_number(value: float, fmt: str | None) -> Code | None:
    if not math.isfinite(value) or value < 0 or value >= CODE_NUMBER_LIMIT:
        return None
    if value == int(value):
        number = int(value)
        if fmt:
            rendered = render_code_format(number, fmt)
            if rendered is not None:
                return Code(rendered, None)
        code, padded = _pad_synthetic(str(number))
        return Code(code, None, RESTORED_CODE_PENALTY if padded else 0)
    if value >= SUBACCOUNT_NUMBER_LIMIT:
        return None
    # 60.1 from a numeric cell (it could have been "60.10"). Codes have a handful of digits, so
    # ten significant ones drop any binary noise that arithmetic or a writer left behind.
    text = format(value, ".10g")
    code, _ = _pad_synthetic(text)
    return Code(code, None, RESTORED_CODE_PENALTY)


def parent_codes(code: str) -> list[str]:
    """Prefixes of a code that could be its parent, longest first: 60.1.1 -> [60.1, 60]."""
    cuts = [i for i, ch in enumerate(code) if ch in "./"]
    return [code[:i] for i in reversed(cuts) if i > 0]


def synthetic(code: str) -> str:
    return re.split(r"[./]", code, maxsplit=1)[0]


# Accounts that exist in one chart only, or that the two charts name differently. Everything
# else (01, 10, 51, 60, 80, 84, 90 ...) is common to both and tells nothing.
_BY_ONLY_CODES = frozenset({"18", "06"})
_RU_ONLY_CODES = frozenset({"19", "46", "77"})
_BY_NAMES = (
    "доходы и расходы по текущей деятельности",
    "вложения в долгосрочные активы",
    "расходы на реализацию",
    "ндс по приобретенным товарам",
    "выпуск продукции",
)
_RU_NAMES = (
    "продажи",
    "вложения во внеоборотные активы",
    "расходы на продажу",
    "ндс по приобретенным ценностям",
    "отложенные налоговые обязательства",
)
_NAMED_CODES = {"90", "08", "44", "18", "19", "40", "77"}
CHART_EVIDENCE = frozenset(_BY_ONLY_CODES | _RU_ONLY_CODES | _NAMED_CODES)
"""The only codes ``detect_chart`` learns anything from: rows with other codes may be left out."""

BY_CHART = "BY-50-2011"
RU_CHART = "RU-94N"
UNKNOWN_CHART = "unknown"


def detect_chart(accounts: Iterable[tuple[str, str | None]]) -> str:
    """Which chart the codes fit, from the accounts that differ between the Belarus (No. 50,
    2011) and Russian (94n) charts; ``unknown`` unless the evidence points one way only."""
    by = ru = 0
    for code, name in accounts:
        if "." in code or "/" in code:
            continue  # only synthetic accounts tell the charts apart
        syn = code
        if syn:
            by += syn in _BY_ONLY_CODES
            ru += syn in _RU_ONLY_CODES
            if name and syn in _NAMED_CODES:
                lowered = name.lower().replace("ё", "е")
                by += any(lowered.startswith(n) for n in _BY_NAMES)
                ru += any(lowered.startswith(n) for n in _RU_NAMES)
    if by and not ru:
        return BY_CHART
    if ru and not by:
        return RU_CHART
    return UNKNOWN_CHART
