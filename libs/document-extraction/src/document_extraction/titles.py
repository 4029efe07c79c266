"""Title lines above a table: organisation, report title, period, unit and currency.

Each line is matched as it reads (``_read``: look-alikes folded, title words OCR misread put
right) and its values are taken as printed (look-alikes folded only): "Оборотно-сальдовая
ведомоть 3а январь" is a title and a period, "Организацня: OOO «Альфа»" names ООО «Альфа»."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from document_extraction.dates import parse_period
from document_extraction.grid import CellValue
from document_extraction.identifiers import find_tax_id
from document_extraction.lookalikes import (
    LATIN_TO_CYRILLIC,
    LEGAL_FORMS,
    fold_lookalikes,
    legal_form_spelled,
)
from document_extraction.misreads import Vocabulary
from document_extraction.text import as_text, clean, title_cells
from recognition_contract import Organisation, Period, Unit

_OSV_TITLE = re.compile(
    r"оборотно-сальдов|обороты сч[её]та|анализ сч[её]та|анализ субконто|ведомость"
    r"|айналым-сальдо|шот\w* бойынша айналым"
    r"|балансы? сч[её]тов|сальдовая ведомость|оборотная ведомость",
    re.IGNORECASE,
)
_ACCOUNT_IN_TITLE = re.compile(
    r"(?:по сч[её]ту|обороты сч[её]та|анализ сч[её]та)\s+"
    r"(?P<code>\d{1,3}(?:[./][0-9A-Za-zА-ЯЁа-яё]+)*)"
    r"(?:\s*[(«\"]\s*(?P<name>[^)»\"]+)[)»\"])?",
    re.IGNORECASE,
)
_PERIOD_START = re.compile(
    r"\bза\s+(?:период\b)?|\bпериод\b|\bс\s*\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4}|"
    r"\bначальн\w*\s+дат|\bдата\s+начала|\bкезең\b",
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
# An outline level printed before a title, read by OCR into its line ("0 Оборотно-…").
_LEVEL_BEFORE = re.compile(r"^\d\s+(?=[^\W\d_])")
_ORG_PREFIX = re.compile(
    r"^(?:организация|предприятие|наименование организации)\s*:?\s*", re.IGNORECASE
)
# The program's name a print may set on the organisation's line, glued to it on either side
# ("1С:Бухгалтерия 8.3 ООО «Ромашка»", "ООО «Ромашка»1С:Предприятие 8").
_PROGRAM = re.compile(
    rf"\s*1[СC]\s*:\s*(?:(?!(?:{'|'.join(sorted(LEGAL_FORMS))})\b)[А-ЯЁA-Z][\w-]*\.?\s*){{1,4}}"
    r"(?:\d+(?:\.\d+)*)?(?:\s*,?\s*(?:редакция|ред\.)\s*\d+(?:\.\d+)*)?\s*",
    re.IGNORECASE,
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


# The words the patterns above look for, to be found again where OCR misread a letter of them.
_TITLE_WORDS = Vocabulary(
    {
        word: word
        for word in (
            "оборотно", "сальдовая", "сальдовой", "ведомость", "ведомости", "обороты", "счета",
            "счету", "анализ", "субконто", "выписка", "выписки", "период", "периода",
            "организация", "организации", "предприятие", "наименование", "начальная", "дата",
            "начала", "валюта", "единица", "единицы", "измерения", "формирования", "параметры",
            "отбор", "детализация", "выводимые", "данные", "показатели", "группировка",
            "сформирован", "тысячах", "белорусских", "белорусские", "российских", "российские",
            "рублях", "рублей", "доллар", "долларах", "долларов", "евро", "тенге", "гривна",
            "гривнах", "юань", "юанях", "злотых", "сумма", "суммы",
        )
    }
)  # fmt: skip
_WORD = re.compile(r"\S+")


class TitleLine(NamedTuple):
    """A title line as printed (look-alikes folded) and as it reads (misread words put right):
    the same words in the same places, some of them spelled otherwise."""

    printed: str
    read: str

    @classmethod
    def of(cls, text: str) -> TitleLine:
        printed = fold_lookalikes(" ".join(text.split()))
        return cls(printed, _TITLE_WORDS.repair(printed))

    def printed_from(self, position: int) -> str:
        """The printed text from where ``position`` of the reading is."""
        read_words = list(_WORD.finditer(self.read))
        printed_words = list(_WORD.finditer(self.printed))
        if len(read_words) != len(printed_words):
            return self.printed[position:]
        for read_word, printed_word in zip(read_words, printed_words, strict=True):
            if read_word.end() <= position:
                continue
            # A word cut inside keeps its end as printed: repairs stand before the cut.
            from_end = read_word.end() - max(position, read_word.start())
            start = max(printed_word.start(), printed_word.end() - from_end)
            return self.printed[start:]
        return ""


def is_osv_title(line: str) -> bool:
    """Whether a line starts as a trial balance's title does («Оборотно-сальдовая ведомость
    за …», «Обороты счета 60», «Анализ счета 51»)."""
    return _OSV_TITLE.match(_read(line).strip()) is not None


def _read(text: str) -> str:
    return TitleLine.of(text).read


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
    read = _read(text)
    for pattern, code in _CURRENCIES:
        if pattern.search(read):
            return code
    return _misread_code(text)


_CODES = tuple(code for _, code in _CURRENCIES)
_TO_LATIN = str.maketrans({c: latin for latin, c in LATIN_TO_CYRILLIC.items() if latin.isupper()})
_CODE_TOKEN = re.compile(r"\b[A-ZА-Я]{3}\b")


def _misread_code(text: str) -> str | None:
    """A currency code OCR read in Cyrillic look-alikes or with one letter wrong ("ВУМ" for
    BYN): the one known code it differs from in at most one letter."""
    for token in _CODE_TOKEN.findall(text):
        latin = token.translate(_TO_LATIN)
        near = [c for c in _CODES if sum(a != b for a, b in zip(latin, c, strict=True)) <= 1]
        if len(near) == 1:
            return near[0]
    return None


# A date whose year OCR read with a space in it ("01.03.2 024").
_YEAR_APART = re.compile(r"\b(\d{1,2}[./]\d{1,2}[./])(\d \d{3}|\d\d \d\d|\d{3} \d)\b")


def period_in(line: str) -> Period | None:
    """The period named in a line, its text starting where the period wording starts."""
    line = _YEAR_APART.sub(lambda m: m.group(1) + m.group(2).replace(" ", ""), line)
    title_line = TitleLine.of(line)
    match = _PERIOD_START.search(title_line.read)
    if match is None:
        return None
    text = (
        title_line.printed
        if match.group(0).lower().startswith("период") and match.start() == 0
        else title_line.printed_from(match.start())
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


def title_segments(row: Sequence[CellValue]) -> list[TitleLine]:
    """A title row as its fields: "Организация: ООО «Альфа» | Период: 1 квартал 2025 г." is
    two, each label with the value after it (in its own cell or the next ones)."""
    segments: list[list[TitleLine]] = []
    for cell in title_cells(row):
        text = as_text(cell)
        if not text:
            continue
        line = TitleLine.of(text)
        cuts = [0, *(m.start() for m in _INNER_LABEL.finditer(line.read)), len(line.read)]
        pieces = [line.printed_from(cut) for cut in cuts]
        reads = [line.read[cut:] for cut in cuts]
        for position in range(len(cuts) - 1):
            printed = _without(pieces[position], pieces[position + 1]).strip(" ;,")
            read = _without(reads[position], reads[position + 1]).strip(" ;,")
            if not printed:
                continue
            piece = TitleLine(printed, read)
            if not segments or position > 0 or _CELL_LABEL.match(read):
                segments.append([piece])
            else:
                segments[-1].append(piece)
    lines = [
        TitleLine(" ".join(p.printed for p in parts), " ".join(p.read for p in parts))
        for parts in segments
    ]
    return [line for line in lines if line.printed]


def _without(text: str, tail: str) -> str:
    return text[: len(text) - len(tail)] if tail else text


def read_titles(rows: Sequence[Sequence[CellValue]], end: int) -> Titles:
    lines = [segment for row in rows[:end] for segment in title_segments(row)]
    title: str | None = None
    title_read = ""
    for row in rows[:end]:
        for cell in row:
            text = clean(cell)
            if text and _OSV_TITLE.search(title_read := _read(text)):
                title = fold_lookalikes(_LEVEL_BEFORE.sub("", text))
                break
        if title:
            break
    period: Period | None = None
    unit: Unit = "units"
    currency: str | None = None
    for line in lines:
        if period is None:
            period = period_in(line.printed)
        if _UNIT_THOUSANDS.search(line.read):
            unit = "thousands"
        units_line = _UNITS_LINE.match(line.read) or _UNIT_THOUSANDS.search(line.read)
        if currency is None and (_SERVICE_LINE.match(line.read) or units_line):
            currency = currency_in(line.printed)
    if currency is None:
        for line in lines:
            if re.match(r"^валюта", line.read, re.IGNORECASE):
                currency = currency_in(line.printed)
    organisation = _organisation(lines, title)
    code = name = None
    by_subconto = False
    if title:
        match = _ACCOUNT_IN_TITLE.search(title) or _ACCOUNT_IN_TITLE.search(title_read)
        if match is not None:
            code = match.group("code").rstrip(".")
            name = match.group("name").strip() if match.group("name") else None
        by_subconto = bool(re.search(r"по субконто|анализ субконто", title_read, re.IGNORECASE))
    return Titles(title, organisation, period, unit, currency, code, name, by_subconto)


def _organisation(lines: list[TitleLine], title: str | None) -> Organisation | None:
    candidates = [line for line in lines if _ORG_PREFIX.match(line.read)]
    if not candidates:
        candidates = [
            line
            for line in lines
            if (title is None or title not in line.printed)
            and not _OSV_TITLE.search(line.read)
            and period_in(line.printed) is None
            and not _SERVICE_LINE.match(line.read)
            and not _UNITS_LINE.match(line.read)
            and not _UNIT_THOUSANDS.search(line.read)
        ]
    # A line of numbers only is a level or flag column beside an empty title row.
    candidates = [line for line in candidates if re.search(r"[A-Za-zА-Яа-яЁё]", line.printed)]
    if not candidates:
        return None
    line = candidates[0]
    tax_id = find_tax_id(line.printed)
    prefix = _ORG_PREFIX.match(line.read)
    value = line.printed_from(prefix.end()) if prefix else line.printed
    name = legal_form_spelled(_TAX_SUFFIX.sub("", _PROGRAM.sub(" ", value)).strip(" ,;"))
    if not name:
        return None
    return Organisation(name, tax_id)
