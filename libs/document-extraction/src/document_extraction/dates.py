"""Dates of statement lines and report periods as printed in Russian."""

from __future__ import annotations

import calendar
import datetime
import re

from document_extraction.grid import CellValue
from document_extraction.lookalikes import fold_lookalikes, repair_number
from document_extraction.misreads import Vocabulary
from recognition_contract import Period

# Confidence lost when a date was read from text rather than a date cell.
TEXT_DATE_PENALTY = 1

_MONTHS = (
    ("янв", 1),
    ("фев", 2),
    ("мар", 3),
    ("апр", 4),
    ("мая", 5),
    ("май", 5),
    ("июн", 6),
    ("июл", 7),
    ("авг", 8),
    ("сен", 9),
    ("окт", 10),
    ("ноя", 11),
    ("дек", 12),
    # Kazakh
    ("қаң", 1),
    ("ақп", 2),
    ("наур", 3),
    ("сәу", 4),
    ("мамыр", 5),
    ("мау", 6),
    ("шіл", 7),
    ("тамыз", 8),
    ("қыр", 9),
    ("қаз", 10),
    ("қар", 11),
    ("жел", 12),
)
_MONTH_WORD = (
    r"(янв\w*|фев\w*|мар\w*|апр\w*|ма[йя]\w*|июн\w*|июл\w*|авг\w*|сен\w*|окт\w*|ноя\w*|дек\w*"
    r"|қаң\w*|ақп\w*|наур\w*|сәу\w*|мамыр\w*|мау\w*|шіл\w*|тамыз\w*|қыр\w*|қаз\w*|қар\w*"
    r"|жел\w*)"
)
# Month names as printed in periods, to be found again where OCR misread a letter of them.
_MONTH_NAMES = Vocabulary(
    {
        name: name
        for name in (
            "январь", "января", "февраль", "февраля", "март", "марта", "апрель", "апреля",
            "июнь", "июня", "июль", "июля", "август", "августа", "сентябрь", "сентября",
            "октябрь", "октября", "ноябрь", "ноября", "декабрь", "декабря",
        )
    }
)  # fmt: skip
_NUMERIC_DATE = re.compile(r"(\d{1,2})\s?[./]\s?(\d{1,2})\s?[./]\s?(\d{4}|\d{2})(?!\d)")
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
# A period's date with a separator OCR misread ("01:12.2025", "01,04.2025", "31 10.2024"):
# two digits, two digits and a year leave no other reading.
_MISREAD_SEPARATOR = re.compile(r"(?<!\d)(\d{2})[.,:;\s]\s?(\d{2})[.,:;]\s?(\d{4})(?!\d)")
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4}


def _month(word: str) -> int | None:
    lowered = word.lower()
    for stem, number in _MONTHS:
        if lowered.startswith(stem):
            return number
    return None


def _year(text: str) -> int:
    year = int(text)
    return year + 2000 if year < 100 else year


def _last_day(year: int, month: int) -> datetime.date:
    return datetime.date(year, month, calendar.monthrange(year, month)[1])


def _make_date(day: int, month: int, year: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


# A date cell written as text: 03.03.2025, 03/03/25, 03-03-2025 (one separator throughout).
# A space after a separator, as typed or as OCR parts the date's words: "03. 12.2024".
_DATE_TEXT = re.compile(r"(\d{1,2})([./-])\s?(\d{1,2})\2\s?(\d{4}|\d{2})(?!\d)")
_WORDED_DATE = re.compile(rf"(\d{{1,2}})\s+{_MONTH_WORD}\s+(\d{{4}})", re.IGNORECASE)


# A day and month with a comma OCR read for a dot, before a four-digit year ("20.04,2025").
_COMMA_FOR_DOT = re.compile(r"^(\d{1,2})[.,](\s?\d{1,2})[.,](\s?\d{4})(?!\d)")


def parse_date_text(text: str) -> datetime.date | None:
    stripped = _COMMA_FOR_DOT.sub(r"\1.\2.\3", text.strip())
    match = _DATE_TEXT.match(stripped)
    if match is not None:
        day, _, month, year = match.groups()
        return _make_date(int(day), int(month), _year(year))
    match = _WORDED_DATE.match(stripped)
    if match is not None:
        month_number = _month(match.group(2))
        if month_number is not None:
            return _make_date(int(match.group(1)), month_number, int(match.group(3)))
    match = _ISO_DATE.match(stripped)
    if match is not None:
        year, month, day = match.groups()
        return _make_date(int(day), int(month), int(year))
    return None


def parse_date_or_none(text: str | None) -> datetime.date | None:
    """A date written as text (``parse_date_text``), None for no text."""
    return parse_date_text(text) if text else None


def swift_date(text: str) -> datetime.date | None:
    """``YYMMDD`` of SWIFT messages (years 00-79 are 20xx)."""
    if len(text) != 6 or not text.isdigit():
        return None
    year = int(text[:2])
    return _make_date(int(text[4:]), int(text[2:4]), (2000 if year < 80 else 1900) + year)


def parse_date_cell(cell: CellValue) -> tuple[datetime.date | None, int]:
    """A date cell or a date written as text; the second value is the confidence penalty."""
    if isinstance(cell, datetime.datetime):
        return cell.date(), 0
    if isinstance(cell, datetime.date):
        return cell, 0
    if isinstance(cell, str):
        parsed = parse_date_text(cell)
        return parsed, (TEXT_DATE_PENALTY if parsed else 0)
    return None, 0


def _explicit_dates(text: str) -> list[datetime.date]:
    found = [_make_date(int(d), int(m), _year(y)) for d, m, y in _NUMERIC_DATE.findall(text)] + [
        _make_date(int(d), int(m), int(y)) for y, m, d in _ISO_DATE.findall(text)
    ]
    return [d for d in found if d is not None]


def _has_digits(word: str | None) -> bool:
    return word is not None and any(ch.isdigit() for ch in word)


def _read_period(text: str) -> str:
    """A period's text as it reads: look-alikes folded, numbers OCR misread with a letter or
    two given their digits back, a misread month name put right where a day or a year stands
    beside it, and "r." after a year read as "г."."""
    words = fold_lookalikes(text).lower().replace("ё", "е").split()
    read: list[str] = []
    for i, word in enumerate(words):
        word = repair_number(word)[0]
        before = read[i - 1] if i else None
        after = words[i + 1] if i + 1 < len(words) else None
        letters = word.strip(".,;:()")
        if _month(letters) is None and (_has_digits(before) or _has_digits(after)):
            month = _MONTH_NAMES.nearest(letters) if len(letters) >= 4 else None
            word = word.replace(letters, month) if month else word
        if letters == "r" and before is not None and before.isdigit() and len(before) == 4:
            word = word.replace("r", "г")
        read.append(word)
    return " ".join(read)


def parse_period(text: str) -> Period | None:
    """Period of a report from its printed text; None when the text names no period."""
    lowered = _MISREAD_SEPARATOR.sub(r"\1.\2.\3", _read_period(text))
    dates = _explicit_dates(lowered)
    if len(dates) >= 2:
        return Period(dates[0], dates[1], text)
    # "1 квартал 2024", "I квартал 2024 г."
    match = re.search(r"\b([1-4]|i{1,3}|iv)\s*(?:-?\s*й\s*)?квартал\w*\s+(\d{4})", lowered)
    if match is not None:
        quarter = _ROMAN.get(match.group(1)) or int(match.group(1))
        year = int(match.group(2))
        return Period(datetime.date(year, 3 * quarter - 2, 1), _last_day(year, 3 * quarter), text)
    match = re.search(r"\b([12])\s*(?:-?\s*е\s*)?полугоди\w*\s+(\d{4})", lowered)
    if match is not None:
        half, year = int(match.group(1)), int(match.group(2))
        return Period(datetime.date(year, 6 * half - 5, 1), _last_day(year, 6 * half), text)
    match = re.search(r"\b(\d{1,2})\s+месяц\w*\s+(\d{4})", lowered)
    if match is not None:
        months, year = int(match.group(1)), int(match.group(2))
        if 1 <= months <= 12:
            return Period(datetime.date(year, 1, 1), _last_day(year, months), text)
    # "Июль 2024 г. - Июль 2025 г.", "январь - март 2025 г.", "за январь 2025 г."
    months_found = [
        (m.start(), _month(m.group(1)), m.group(2))
        for m in re.finditer(r"\b" + _MONTH_WORD + r"(?:\s+(\d{4}))?", lowered)
    ]
    months_found = [(pos, mon, yr) for pos, mon, yr in months_found if mon is not None]
    if months_found:
        years = re.findall(r"\b(\d{4})\b", lowered)
        first, last = months_found[0], months_found[-1]
        first_year = first[2] or (years[0] if years else None)
        last_year = last[2] or (years[-1] if years else None)
        if first_year and last_year and first[1] and last[1]:
            start = datetime.date(int(first_year), first[1], 1)
            end = _last_day(int(last_year), last[1])
            if start <= end:
                return Period(start, end, text)
    if len(dates) == 1:
        return Period(dates[0], dates[0], text)
    match = re.search(r"\b(?:за\s+)?(\d{4})\s*(?:г\.?|год|ж\.?|жыл)", lowered)
    if match is not None:
        year = int(match.group(1))
        return Period(datetime.date(year, 1, 1), datetime.date(year, 12, 31), text)
    return None
