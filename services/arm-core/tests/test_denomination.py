"""Amounts are shown with their scale and currency in the analyst's words, and written one way
wherever they appear: tables, messages, corrections."""

from __future__ import annotations

import pytest

from arm_core.denomination import denomination
from arm_core.review.fields import InvalidValue, Kind, normalised
from arm_core.web.explain import amounts_in, number_text


@pytest.mark.parametrize(
    ("unit", "currency", "words"),
    [
        ("thousands", "RUB", "тыс. руб."),
        ("units", "RUB", "руб."),
        ("units", "rur", "руб."),
        ("thousands", "BYN", "тыс. бел. руб."),
        ("units", "USD", "USD"),
        ("thousands", "EUR", "тыс. EUR"),
        ("thousands", None, "тыс., валюта не указана"),
        (None, None, "валюта не указана"),
    ],
)
def test_a_denomination_names_scale_and_currency(unit, currency, words) -> None:
    assert denomination(unit, currency) == words


def test_amounts_in_a_message_are_written_as_in_the_tables_and_dates_stay() -> None:
    nb = "\u00a0"
    text = "Входящий остаток 15300.00 + поступления -4200.50 на 01.04.2025, счёт 40702810.12345"
    assert amounts_in(text) == (
        f"Входящий остаток 15{nb}300,00 + поступления −4{nb}200,50 на 01.04.2025,"
        " счёт 40702810.12345"
    )


def test_a_date_is_entered_as_the_analyst_writes_it() -> None:
    assert normalised(Kind.DATE, "02.04.2025") == "2025-04-02"
    assert normalised(Kind.DATE, "2025-04-02") == "2025-04-02"
    with pytest.raises(InvalidValue, match=r"ДД\.ММ\.ГГГГ"):
        normalised(Kind.DATE, "31.02.2025")


@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        ("23965591.5", "23\u00a0965\u00a0591,50"),
        ("-1234.56", "−1\u00a0234,56"),
        ("1250.125", "1\u00a0250,125"),
        ("60.1", "60.1"),
        ("2024", "2024"),
        ("Итого", "Итого"),
    ],
)
def test_a_sheets_amounts_read_as_the_tables_write_them(cell: str, shown: str) -> None:
    assert number_text(cell) == shown
