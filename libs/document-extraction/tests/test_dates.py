"""Report periods and statement dates as printed in Russian."""

from __future__ import annotations

import datetime

import pytest

from document_extraction.dates import parse_date_cell, parse_date_or_none, parse_period, swift_date

D = datetime.date


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Период: 1 квартал 2024 г.", D(2024, 1, 1), D(2024, 3, 31)),
        ("за 4 квартал 2024 г.", D(2024, 10, 1), D(2024, 12, 31)),
        ("за январь 2025 г.", D(2025, 1, 1), D(2025, 1, 31)),
        ("за февраль 2024 г.", D(2024, 2, 1), D(2024, 2, 29)),
        ("Период: Июль 2024 г. - Июль 2025 г.", D(2024, 7, 1), D(2025, 7, 31)),
        ("Январь - Март 2025 г.", D(2025, 1, 1), D(2025, 3, 31)),
        ("Период: 01.04.2025 - 30.04.2025", D(2025, 4, 1), D(2025, 4, 30)),
        ("за период с 01.03.2025 по 31.03.2025", D(2025, 3, 1), D(2025, 3, 31)),
        ("за 9 месяцев 2024 г.", D(2024, 1, 1), D(2024, 9, 30)),
        ("за 1 полугодие 2024 г.", D(2024, 1, 1), D(2024, 6, 30)),
        ("за 2023 год", D(2023, 1, 1), D(2023, 12, 31)),
    ],
)
def test_periods(text: str, start: D, end: D) -> None:
    period = parse_period(text)
    assert period is not None
    assert (period.start, period.end, period.text) == (start, end, text)


def test_text_without_a_period() -> None:
    assert parse_period("Оборотно-сальдовая ведомость") is None


def test_date_cells_and_text_dates() -> None:
    assert parse_date_cell(D(2025, 3, 1)) == (D(2025, 3, 1), 0)
    assert parse_date_cell(datetime.datetime(2025, 3, 1, 12, 0)) == (D(2025, 3, 1), 0)
    assert parse_date_cell("01.03.2025") == (D(2025, 3, 1), 1)
    assert parse_date_cell("31.02.2025") == (None, 0)
    assert parse_date_cell("Итого") == (None, 0)
    # OCR parts a date's words after a dot: still the date.
    assert parse_date_cell("03. 12.2024") == (D(2024, 12, 3), 1)
    assert parse_date_cell("03.12. 2024") == (D(2024, 12, 3), 1)
    # And reads a comma for a dot before a four-digit year.
    assert parse_date_cell("20.04,2025 09:22:48") == (D(2025, 4, 20), 1)
    assert parse_date_cell("29,04,2025") == (D(2025, 4, 29), 1)
    assert parse_date_cell("1 204,25") == (None, 0)


def test_dates_with_dashes_and_month_names() -> None:
    assert parse_date_cell("03-03-2025")[0] == datetime.date(2025, 3, 3)
    assert parse_date_cell("3 марта 2025 г.")[0] == datetime.date(2025, 3, 3)
    assert parse_date_cell("03.03-2025")[0] is None  # one separator throughout


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("за янвapь 2025 г.", D(2025, 1, 1), D(2025, 1, 31)),  # Latin a, p
        ("3а яиварь 2025 г.", D(2025, 1, 1), D(2025, 1, 31)),  # 3 for З, и for н
        ("за дскабрь 2024 r.", D(2024, 12, 1), D(2024, 12, 31)),  # с for е, r for г
        ("Период: 01.0l.2025 - 31.O3.2025", D(2025, 1, 1), D(2025, 3, 31)),
        ("за 1 квартал 2О25 г.", D(2025, 1, 1), D(2025, 3, 31)),
        ("за 2024 r.", D(2024, 1, 1), D(2024, 12, 31)),
        ("Пернод: Июль 2024 г. - Сснтябрь 2025 г.", D(2024, 7, 1), D(2025, 9, 30)),
        # A space beside a date's dot, or a separator read as a colon, a comma or a space.
        ("с 01. 07.2024 по 30.09.2024", D(2024, 7, 1), D(2024, 9, 30)),
        ("Период 01:12.2025-31.12.2025", D(2025, 12, 1), D(2025, 12, 31)),
        ("Период 01,04.2025-30.04.2025", D(2025, 4, 1), D(2025, 4, 30)),
        ("Период 01.10.2024-31 10.2024", D(2024, 10, 1), D(2024, 10, 31)),
        ("Период: 01.02 .2024 - 29.02.2024", D(2024, 2, 1), D(2024, 2, 29)),  # a space before
    ],
)
def test_periods_misread_by_ocr(text: str, start: D, end: D) -> None:
    period = parse_period(text)
    assert period is not None
    assert (period.start, period.end, period.text) == (start, end, text)


@pytest.mark.parametrize(
    "text",
    [
        "Ведомость по складу",  # no number beside it: a word near a month name is no month
        "ООО «Марта»",
    ],
)
def test_misread_months_need_a_day_or_a_year_beside_them(text: str) -> None:
    assert parse_period(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("240601", datetime.date(2024, 6, 1)),
        ("991231", datetime.date(1999, 12, 31)),
        ("240231", None),
        ("2406", None),
        ("24O601", None),
    ],
)
def test_a_swift_date(text: str, value: datetime.date | None) -> None:
    assert swift_date(text) == value


def test_an_optional_date_text() -> None:
    assert parse_date_or_none("15.06.2024") == datetime.date(2024, 6, 15)
    assert parse_date_or_none("2024-06-15") == datetime.date(2024, 6, 15)
    assert parse_date_or_none(None) is None
    assert parse_date_or_none("31.02.2024") is None
