"""Title lines above a table: organisation, report title, period, unit and currency."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from document_extraction.dates import parse_period
from document_extraction.grid import CellValue
from document_extraction.identifiers import find_tax_id
from document_extraction.text import as_text, clean, line_of, title_cells
from recognition_contract import Organisation, Period, Unit

_OSV_TITLE = re.compile(
    r"оборотно-сальдов|обороты сч[её]та|анализ сч[её]та|анализ субконто|ведомость",
    re.IGNORECASE,
)
_ACCOUNT_IN_TITLE = re.compile(
    r"(?:по сч[её]ту|обороты сч[её]та|анализ сч[её]та)\s+"
    r"(?P<code>\d{1,3}(?:[./][0-9A-Za-zА-ЯЁа-яё]+)*)"
    r"(?:\s*[(«\"]\s*(?P<name>[^)»\"]+)[)»\"])?",
    re.IGNORECASE,
)
_PERIOD_START = re.compile(
    r"\bза\s+(?:период\b)?|\bпериод\b|\bс\s+\d{1,2}\.\d{1,2}\.\d{2,4}|"
    r"\bначальн\w*\s+дат|\bдата\s+начала",
    re.IGNORECASE,
)
_UNIT_THOUSANDS = re.compile(
    r"тыс\.?\s*(?:бел\.?\s*|росс\.?\s*)?(?:руб|byn|rub|usd|eur|долл|евро)|в тысячах|"
    r"единиц\w*\s+измерени\w*\s*:?\s*тыс",
    re.IGNORECASE,
)
# "(в белорусских рублях)", "в руб.", "Сумма в тыс. рублей": the units and currency line.
_UNITS_LINE = re.compile(
    r"^\(?\s*(?:сумм\w*\s+)?в\s+(?:тыс\w*\.?\s*)?(?:бел\w*\.?\s*|росс\w*\.?\s*)?"
    r"(?:руб|byn|rub|usd|eur|долл|евро)",
    re.IGNORECASE,
)
_SERVICE_LINE = re.compile(
    r"^(?:выводимые данные|показатели|параметры|отбор|детализация|группировка|"
    r"единиц\w* измерени|валюта|дата формирования|сформирован)",
    re.IGNORECASE,
)
_ORG_PREFIX = re.compile(
    r"^(?:организация|предприятие|наименование организации)\s*:?\s*", re.IGNORECASE
)
_TAX_SUFFIX = re.compile(r"[,;(]?\s*(?:УНП|ИНН)\s*[:№]?\s*[0-9A-ZА-Я]{9,12}\)?", re.IGNORECASE)
_CURRENCIES = (
    (re.compile(r"\bBYN\b|бел(?:орусск\w*)?\.?\s*руб", re.IGNORECASE), "BYN"),
    (re.compile(r"\bRUB\b|\bRUR\b|росс(?:ийск\w*)?\.?\s*руб", re.IGNORECASE), "RUB"),
    (re.compile(r"\bUSD\b|доллар", re.IGNORECASE), "USD"),
    (re.compile(r"\bEUR\b|евро\b", re.IGNORECASE), "EUR"),
    (re.compile(r"\bCNY\b|юан", re.IGNORECASE), "CNY"),
    (re.compile(r"\bKZT\b|тенге", re.IGNORECASE), "KZT"),
    (re.compile(r"\bKGS\b|кыргызск\w* сом", re.IGNORECASE), "KGS"),
    (re.compile(r"\bUAH\b|гривн", re.IGNORECASE), "UAH"),
    (re.compile(r"\bGBP\b|фунт\w* стерлинг", re.IGNORECASE), "GBP"),
    (re.compile(r"\bCHF\b|швейцарск\w* франк", re.IGNORECASE), "CHF"),
    (re.compile(r"\bPLN\b|злот", re.IGNORECASE), "PLN"),
)


@dataclass(frozen=True)
class Titles:
    title: str | None
    organisation: Organisation | None
    period: Period | None
    unit: Unit
    currency: str | None
    account_code: str | None
    account_name: str | None
    by_subconto: bool


def currency_in(text: str) -> str | None:
    for pattern, code in _CURRENCIES:
        if pattern.search(text):
            return code
    return None


def period_in(line: str) -> Period | None:
    """The period named in a line, its text starting where the period wording starts."""
    match = _PERIOD_START.search(line)
    if match is None:
        return None
    text = (
        line
        if match.group(0).lower().startswith("период") and match.start() == 0
        else line[match.start() :]
    )
    return parse_period(text.strip())


# Labels that start a field of a title line, wherever on the line they stand: at the start
# of a cell, or inside one when a colon follows ("… за 2024 г. Организация: ЧУП «Бета»"), but
# not in a filter's wording ("Отбор: Организация Равно …").
_FIELD_LABELS = (
    r"(?:организация|предприятие|наименование организации|период|валюта|"
    r"единиц\w* измерения|дата формирования|параметры|отбор|выводимые данные|детализация)"
)
_CELL_LABEL = re.compile(rf"^{_FIELD_LABELS}(?:\s*:|$)", re.IGNORECASE)
_INNER_LABEL = re.compile(rf"(?<=\s){_FIELD_LABELS}\s*:", re.IGNORECASE)


def title_segments(row: Sequence[CellValue]) -> list[str]:
    """A title row as its fields: "Организация: ООО «Альфа» | Период: 1 квартал 2025 г." is
    two, each label with the value after it (in its own cell or the next ones)."""
    segments: list[list[str]] = []
    for cell in title_cells(row):
        text = as_text(cell)
        if not text:
            continue
        cuts = [0, *(m.start() for m in _INNER_LABEL.finditer(text))]
        for position, (a, b) in enumerate(zip(cuts, [*cuts[1:], len(text)], strict=True)):
            piece = text[a:b].strip(" ;,")
            if not piece:
                continue
            if not segments or position > 0 or _CELL_LABEL.match(piece):
                segments.append([piece])
            else:
                segments[-1].append(piece)
    lines = [line_of(list(parts)) for parts in segments]
    return [line for line in lines if line]


def read_titles(rows: Sequence[Sequence[CellValue]], end: int) -> Titles:
    lines: list[str] = [segment for row in rows[:end] for segment in title_segments(row)]
    title: str | None = None
    title_cell: str | None = None
    for row in rows[:end]:
        for cell in row:
            text = clean(cell)
            if text and _OSV_TITLE.search(text):
                title_cell = text
                break
        if title_cell:
            break
    title = title_cell
    period: Period | None = None
    unit: Unit = "units"
    currency: str | None = None
    organisation: Organisation | None = None
    for line in lines:
        if period is None:
            period = period_in(line)
        if _UNIT_THOUSANDS.search(line):
            unit = "thousands"
        units_line = _UNITS_LINE.match(line) or _UNIT_THOUSANDS.search(line)
        if currency is None and (_SERVICE_LINE.match(line) or units_line):
            currency = currency_in(line)
    if currency is None:
        for line in lines:
            if re.match(r"^валюта", line, re.IGNORECASE):
                currency = currency_in(line)
    organisation = _organisation(lines, title)
    code = name = None
    by_subconto = False
    if title:
        match = _ACCOUNT_IN_TITLE.search(title)
        if match is not None:
            code = match.group("code").rstrip(".")
            name = match.group("name").strip() if match.group("name") else None
        by_subconto = bool(re.search(r"по субконто|анализ субконто", title, re.IGNORECASE))
    return Titles(title, organisation, period, unit, currency, code, name, by_subconto)


def _organisation(lines: list[str], title: str | None) -> Organisation | None:
    candidates = [line for line in lines if _ORG_PREFIX.match(line)]
    if not candidates:
        candidates = [
            line
            for line in lines
            if (title is None or title not in line)
            and not _OSV_TITLE.search(line)
            and period_in(line) is None
            and not _SERVICE_LINE.match(line)
            and not _UNITS_LINE.match(line)
            and not _UNIT_THOUSANDS.search(line)
        ]
    # A line of numbers only is a level or flag column beside an empty title row.
    candidates = [line for line in candidates if re.search(r"[A-Za-zА-Яа-яЁё]", line)]
    if not candidates:
        return None
    line = candidates[0]
    tax_id = find_tax_id(line)
    name = _TAX_SUFFIX.sub("", _ORG_PREFIX.sub("", line)).strip(" ,;")
    if not name:
        return None
    return Organisation(name, tax_id)
