"""Finding the table header of a trial balance or a statement from its text, never by position."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from document_extraction.grid import CellValue
from document_extraction.text import norm

# Headers sit near the top: title lines, parameters, a filter block. Deeper than this is not a
# header but data that happens to contain the words.
HEADER_SCAN_ROWS = 80
# Widest table a header is looked for in; real exports have a few dozen columns.
MAX_COLUMNS = 256
# Confidence of a header whose columns were placed by assumption rather than read.
INFERRED_LABEL_CONFIDENCE = 95

MONEY_FIELDS = (
    "opening_debit",
    "opening_credit",
    "turnover_debit",
    "turnover_credit",
    "closing_debit",
    "closing_credit",
)


@dataclass(frozen=True)
class OsvHeader:
    first_row: int  # index of the caption row
    last_row: int  # index of the Дебет/Кредит row (same as first_row for one-row headers)
    label_col: int
    name_col: int | None
    indicator_col: int | None
    money: dict[str, int]
    label_caption: str
    confidence: float


@dataclass(frozen=True)
class StatementHeader:
    row: int  # the last header row: lines start below it
    columns: dict[str, int]
    confidence: float
    extra: dict[str, int] = field(default_factory=dict)
    first_row: int = 0  # the first header row: title lines end above it


def _group(text: str) -> str | None:
    if not text or "кор" in text:
        return None
    if ("сальдо" in text or "остаток" in text) and "начал" in text:
        return "opening"
    if ("сальдо" in text or "остаток" in text) and "кон" in text:
        return "closing"
    if text.startswith("оборот"):
        return "turnover"
    if text.startswith(("сальдо", "остаток")):
        return "balance"  # "Сальдо на 01.01.2025": which one is told by its place
    return None


def _groups(texts: list[str]) -> dict[int, str]:
    groups = {col: g for col, g in ((c, _group(t)) for c, t in enumerate(texts)) if g}
    turnover = [c for c, g in groups.items() if g == "turnover"]
    if turnover:
        # A balance caption dated rather than named: before the turnovers it is the opening one.
        for col, group in list(groups.items()):
            if group == "balance":
                groups[col] = "opening" if col < turnover[0] else "closing"
    return {c: g for c, g in groups.items() if g != "balance"}


def _side(text: str) -> str | None:
    words = re.findall(r"[а-я]+", text)
    if not words:
        return None
    last = words[-1]
    if last in ("дебет", "дт", "д") or (len(words) == 1 and last.startswith("дебет")):
        return "debit"
    if last in ("кредит", "кт", "к") or (len(words) == 1 and last.startswith("кредит")):
        return "credit"
    return None


def _texts(row: Sequence[CellValue]) -> list[str]:
    return [norm(cell) for cell in row[:MAX_COLUMNS]]


def find_osv_header(rows: Sequence[Sequence[CellValue]]) -> OsvHeader | None:
    for index in range(min(len(rows), HEADER_SCAN_ROWS)):
        texts = _texts(rows[index])
        groups = _groups(texts)
        if len(set(groups.values())) < 3:
            continue
        found = _money_columns(texts, groups, rows, index)
        if found is None:
            continue
        money, two_rows = found
        return _osv_header(rows, index, index + 1 if two_rows else index, money)
    return None


def _money_columns(
    texts: list[str],
    groups: dict[int, str],
    rows: Sequence[Sequence[CellValue]],
    index: int,
) -> tuple[dict[str, int], bool] | None:
    money: dict[str, int] = {}
    # One-row headers name the side in the caption itself: "Сальдо на начало Дт".
    for col, group in groups.items():
        side = _side(texts[col])
        if side is not None:
            money.setdefault(f"{group}_{side}", col)
    if len(money) == 6:
        return money, False
    if index + 1 >= len(rows):
        return None
    sub = _texts(rows[index + 1])
    starts = sorted(c for c, t in enumerate(texts) if t)
    for col, group in groups.items():
        following = [c for c in starts if c > col]
        end = following[0] if following else max(len(sub), col + 1)
        for sub_col in range(col, min(end, len(sub))):
            side = _side(sub[sub_col])
            if side is not None:
                money.setdefault(f"{group}_{side}", sub_col)
    if len(money) != 6:
        return None
    return money, True


def _osv_header(
    rows: Sequence[Sequence[CellValue]], first: int, last: int, money: dict[str, int]
) -> OsvHeader:
    first_money = min(money.values())
    label_col: int | None = None
    name_col: int | None = None
    indicator_col: int | None = None
    label_caption = ""
    for row_index in range(first, last + 1):
        for col, text in enumerate(_texts(rows[row_index])[:first_money]):
            if not text:
                continue
            if "показа" in text or text in ("бу", "кол."):
                indicator_col = indicator_col if indicator_col is not None else col
            elif "кор" in text:
                continue
            elif text.startswith("наименование") and label_col is not None:
                name_col = name_col if name_col is not None else col
            elif label_col is None and (
                "счет" in text
                or "субконто" in text
                or "код" in text
                or "контрагент" in text
                or text.startswith("наименование")
            ):
                label_col = col
                label_caption = text
    confidence = 100.0
    if label_col is None:
        label_col = 0
        confidence = INFERRED_LABEL_CONFIDENCE
    return OsvHeader(
        first_row=first,
        last_row=last,
        label_col=label_col,
        name_col=name_col,
        indicator_col=indicator_col,
        money=money,
        label_caption=label_caption,
        confidence=confidence,
    )


# Statement columns by header text. Order matters: the first rule that matches a cell wins,
# so specific words ("эквивалент", "банк", "назначение") come before generic ones ("счет").
_STATEMENT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("purpose", re.compile(r"назначени|содержани|основани")),
    ("equivalent", re.compile(r"эквивалент|\bэкв\b|экв\.")),
    ("bic", re.compile(r"\bбик\b|\bbic\b|swift|код банка")),
    ("bank", re.compile(r"банк")),
    ("tax_id", re.compile(r"\bунп\b|\bинн\b")),
    ("debit", re.compile(r"^дебет|списан|расход|^дт\b|^д-т")),
    ("credit", re.compile(r"^кредит|поступ|приход|зачислен|^кт\b|^к-т")),
    ("account", re.compile(r"сч[е]т|iban|р/с")),
    ("amount", re.compile(r"^сумма|^оборот")),
    ("date", re.compile(r"^дата")),
    ("number", re.compile(r"^№|номер|^n док|^no\b")),
    ("name", re.compile(r"корресп|контраг|получател|плательщ|наименован")),
)


def _statement_column(text: str) -> str | None:
    for name, pattern in _STATEMENT_RULES:
        if pattern.search(text):
            if name == "equivalent":
                if "кредит" in text or "поступ" in text:
                    return "credit_equivalent"
                if "дебет" in text or "списан" in text:
                    return "debit_equivalent"
                return "equivalent"
            return name
    return None


def find_statement_header(rows: Sequence[Sequence[CellValue]]) -> StatementHeader | None:
    for index in range(min(len(rows), HEADER_SCAN_ROWS)):
        texts = _texts(rows[index])
        columns: dict[str, int] = {}
        extra: dict[str, int] = {}
        for col, text in enumerate(texts):
            if not text:
                continue
            kind = _statement_column(text)
            if kind is None:
                continue
            if kind in columns:
                extra.setdefault(kind, col)
            else:
                columns[kind] = col
        if "date" not in columns:
            continue
        last = index
        if index + 1 < len(rows) and not ("debit" in columns and "credit" in columns):
            # "Сумма" (or "Оборот") merged over "Дебет | Кредит" in the row below.
            below = _texts(rows[index + 1])
            sides = {
                col: kind
                for col, kind in ((c, _statement_column(t)) for c, t in enumerate(below) if t)
                if kind in ("debit", "credit", "debit_equivalent", "credit_equivalent")
            }
            if {"debit", "credit"} <= set(sides.values()):
                for col, kind in sides.items():
                    columns.setdefault(kind, col)
                columns.pop("amount", None)
                last = index + 1
        has_sides = "debit" in columns and "credit" in columns
        if not has_sides and "amount" not in columns:
            continue
        if has_sides:
            columns.pop("amount", None)
        return StatementHeader(
            row=last, columns=columns, confidence=100.0, extra=extra, first_row=index
        )
    return None
