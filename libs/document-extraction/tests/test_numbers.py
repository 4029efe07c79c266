"""Amounts as printed: numbers, Russian-style text, precision, the money format."""

from __future__ import annotations

from decimal import Decimal

import pytest

from document_extraction.numbers import (
    exchange_amount,
    find_amount_in_text,
    format_cents,
    format_money,
    parse_amount,
    read_cents,
)


@pytest.mark.parametrize(
    ("cell", "value", "penalty"),
    [
        (None, None, 0),
        ("", None, 0),
        ("   ", None, 0),
        (1234.5, Decimal("1234.5"), 0),
        (7, Decimal(7), 0),
        ("1 234 567,89", Decimal("1234567.89"), 1),
        ("1\u00a0234\u00a0567,89", Decimal("1234567.89"), 1),
        ("1\u202f234,00", Decimal("1234.00"), 1),
        ("-1 234,00", Decimal("-1234.00"), 1),
        ("\u22121 234,00", Decimal("-1234.00"), 1),
        ("(1 234,00)", Decimal("-1234.00"), 2),
        ("1234,5", Decimal("1234.5"), 1),
        ("1234.56", Decimal("1234.56"), 1),
        ("1,234,567.89", Decimal("1234567.89"), 6),
        ("1.234.567,89", Decimal("1234567.89"), 6),
    ],
)
def test_amounts_are_read_as_printed(cell: object, value: Decimal | None, penalty: int) -> None:
    amount = parse_amount(cell)  # type: ignore[arg-type]
    assert amount.problem is None
    assert amount.value == value
    assert amount.penalty == penalty


@pytest.mark.parametrize("cell", ["12 34", "abc", "1,2,3", "1 234,56 руб 7", True])
def test_unreadable_text_is_a_problem_not_a_guess(cell: object) -> None:
    amount = parse_amount(cell)  # type: ignore[arg-type]
    assert amount.value is None
    assert amount.problem


def test_float_noise_beyond_excel_precision_is_dropped() -> None:
    assert parse_amount(0.1 + 0.2).value == Decimal("0.3")
    assert read_cents(0.1 + 0.2).value == 30


def test_money_strings_have_two_decimals_and_no_float_artifacts() -> None:
    assert format_money(Decimal("1250.4")) == "1250.40"
    assert format_money(Decimal("-0.001")) == "0.00"
    assert format_money(Decimal("12.345")) == "12.35"
    assert format_money(None) is None
    assert format_cents(126507500) == "1265075.00"
    assert format_cents(-5) == "-0.05"
    assert format_cents(10**17 + 1) == "1000000000000000.01"


def test_cents_keep_what_was_printed_when_it_has_more_decimals() -> None:
    cents = read_cents(1234.567)
    assert cents.value == 123457
    assert cents.printed == Decimal("1234.567")
    assert read_cents(12650.75).printed is None
    assert read_cents("12 650,75").value == 1265075
    assert read_cents("12 650,75").penalty == 1


def test_amount_inside_a_line_of_text() -> None:
    assert find_amount_in_text("Входящий остаток: 15 300,00 BYN").value == Decimal("15300.00")
    assert find_amount_in_text("-183 092,36").value == Decimal("-183092.36")
    assert find_amount_in_text("нет суммы").value is None


def test_trailing_minus_and_currency_marks() -> None:
    assert parse_amount("100,00-").value == Decimal("-100.00")
    assert parse_amount("1 000,00 BYN").value == Decimal("1000.00")
    assert parse_amount("$ 25.00").value == Decimal("25.00")
    assert parse_amount("150 руб.").value == Decimal("150")
    assert parse_amount("1 000,00 BYN").penalty > parse_amount("1 000,00").penalty
    assert parse_amount("руб.").problem is not None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1234.56", Decimal("1234.56")),
        ("1234,56", Decimal("1234.56")),
        ("2,", Decimal("2")),
        ("1 234.5", Decimal("1234.5")),
        ("-10.00", Decimal("-10.00")),
        ("", None),
        (None, None),
        ("сто", None),
        ("(100)", None),
        ("1.234,56", None),
    ],
)
def test_an_amount_as_a_bank_export_writes_it(text: str | None, value: Decimal | None) -> None:
    assert exchange_amount(text) == value
