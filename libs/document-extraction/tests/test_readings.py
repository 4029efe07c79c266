"""Readings the captions leave open, decided by the statement's arithmetic."""

from __future__ import annotations

from decimal import Decimal

import pytest

from document_extraction import Grid, extract
from document_extraction.readings import choose_reading, direction_of, signed_readings

D = Decimal


@pytest.mark.parametrize(
    ("cell", "side"),
    [
        ("Credit", "credit"), ("Debit", "debit"), ("Пополнение", "credit"),
        ("списание", "debit"), ("Д", "debit"), ("К", "credit"), ("+", "credit"),
        ("-", "debit"), ("пополнение/списание", None), ("Перевод", None), (None, None),
        (12.0, None),
    ],
)  # fmt: skip
def test_direction_words(cell: object, side: str | None) -> None:
    assert direction_of(cell) == side  # type: ignore[arg-type]


def test_money_out_printed_as_positive_is_chosen_when_only_it_reconciles() -> None:
    values = [D("100"), D("-30"), None]
    readings = signed_readings(values, None)
    reading, overruled = choose_reading(readings, D("50"), D("-20"), None, None)
    assert reading.name == "debit_positive"
    assert overruled
    assert reading.sides == [(D("100"), None), (None, D("30")), (None, None)]


def test_the_usual_reading_stays_when_nothing_can_tell() -> None:
    readings = signed_readings([D("100")], None)
    reading, overruled = choose_reading(readings, None, None, None, None)
    assert (reading.name, overruled) == ("credit_positive", False)


def test_direction_column_puts_positive_amounts_on_their_side() -> None:
    readings = signed_readings([D("100"), D("30")], ["credit", "debit"])
    reading, _ = choose_reading(readings, D("0"), D("70"), None, None)
    assert reading.name == "direction"
    assert reading.sides == [(None, D("100")), (D("30"), None)]


def test_a_line_whose_direction_is_unreadable_takes_the_side_the_totals_need() -> None:
    readings = signed_readings([D("100"), D("30"), D("20")], ["credit", None, "debit"])
    reading, overruled = choose_reading(readings, D("0"), D("50"), D("50"), D("100"))
    assert reading.name == "direction_completed"
    assert overruled
    assert reading.sides == [(None, D("100")), (D("30"), None), (D("20"), None)]


def _flagged(flags: list[str]) -> list[list[object]]:
    """A statement with one amount column and a direction column OCR read the caption of as
    "ДК" (printed "Д/К")."""
    amounts = ["17 006,14", "44 780,94", "8 573,51", "21,38"]
    lines = [
        ["05.10.2025", str(k), f, a, "ООО «Альфа»", "Оплата"]
        for k, (f, a) in enumerate(zip(flags, amounts, strict=True))
    ]
    return [
        ["Выписка по счету BY66PJCB30120612341010000933 за период с 01.10.2025 по 31.10.2025"],
        ["Остаток на начало периода:", None, "7 283,53"],
        ["Дата", "№ док", "ДК", "Сумма", "Контрагент", "Назначение платежа"],
        *lines,
        ["Итого списано:", None, None, "44 802,32"],
        ["Итого поступило:", None, None, "25 579,65"],
        ["Остаток на конец периода:", None, "-11 939,14"],
    ]


def test_letters_that_say_a_side_make_a_direction_column_whatever_its_caption() -> None:
    document = extract([Grid("Выписка", _flagged(["К", "Д", "К", "Д"]))]).documents[0]
    assert [(t.debit, t.credit) for t in document.transactions] == [
        (None, "17006.14"), ("44780.94", None), (None, "8573.51"), ("21.38", None),
    ]  # fmt: skip
    assert document.warnings == ()


def test_a_flag_ocr_lost_is_the_side_the_balances_and_totals_need() -> None:
    document = extract([Grid("Выписка", _flagged(["К", "Д", "К", ""]))]).documents[0]
    assert document.transactions[3].debit == "21.38"
    assert [w.code for w in document.warnings] == ["SIGN_CONVENTION"]


def _statement(amounts: list[float], opening: str, closing: str) -> list[list[object]]:
    return [
        ["Выписка по счету BY66PJCB30120612341010000933 за период с 01.03.2025 по 31.03.2025"],
        ["Входящий остаток:", None, opening],
        ["Дата", "№ док", "Сумма", "Контрагент", "Назначение платежа"],
        *[["03.03.2025", str(i), a, "ООО «Альфа»", "Оплата"] for i, a in enumerate(amounts)],
        ["Исходящий остаток:", None, closing],
    ]


def test_a_statement_whose_balances_say_money_out_is_positive() -> None:
    extraction = extract([Grid("Выписка", _statement([300.0, -100.0], "1 000,00", "800,00"))])
    document = extraction.documents[0]
    assert [(t.debit, t.credit) for t in document.transactions] == [
        ("300.00", None), (None, "100.00"),
    ]  # fmt: skip
    assert [(w.code, w.severity) for w in document.warnings] == [("SIGN_CONVENTION", "info")]
    assert extraction.status == "done"


def test_a_statement_whose_balances_say_money_in_is_positive_has_no_remark() -> None:
    extraction = extract([Grid("Выписка", _statement([300.0, -100.0], "1 000,00", "1 200,00"))])
    assert extraction.documents[0].warnings == ()


def test_running_balance_newest_first_gives_the_balances() -> None:
    from document_extraction.readings import read_running_balance

    balances = [D("1006428.89"), D("1000000.00")]
    sides = [(None, D("6428.89")), (D("750.00"), None)]
    running = read_running_balance(balances, sides)
    assert running is not None
    assert (running.opening, running.closing, running.oldest_first) == (
        D("1000750.00"),
        D("1006428.89"),
        False,
    )
    assert running.broken == []


def test_running_balance_that_does_not_add_up_names_the_line() -> None:
    from document_extraction.readings import read_running_balance

    running = read_running_balance(
        [D("100"), D("150"), D("140")], [(None, D("100")), (None, D("50")), (D("20"), None)]
    )
    assert running is not None
    assert running.oldest_first
    assert running.broken == [2]


def test_debit_and_credit_columns_named_from_the_banks_books_are_read_the_other_way() -> None:
    rows = [
        ["Выписка по счету BY66PJCB30120612341010000933 за период с 01.03.2025 по 31.03.2025"],
        ["Входящий остаток:", None, "1 000,00"],
        ["Дата", "№ док", "Дебет", "Кредит", "Контрагент", "Назначение платежа"],
        ["03.03.2025", "1", 500.0, None, "ООО «Альфа»", "Оплата от покупателя"],
        ["04.03.2025", "2", None, 200.0, "ООО «Бета»", "Оплата поставщику"],
        ["Итого", None, 500.0, 200.0],
        ["Исходящий остаток:", None, "1 300,00"],
    ]
    extraction = extract([Grid("Выписка", rows)])
    document = extraction.documents[0]
    assert [(t.debit, t.credit) for t in document.transactions] == [
        (None, "500.00"), ("200.00", None),
    ]  # fmt: skip
    assert (document.header.total_debit, document.header.total_credit) == (
        "200.00",
        "500.00",
    )
    assert [(w.code, w.severity) for w in document.warnings] == [("SIGN_CONVENTION", "info")]
    assert extraction.status == "done"


def test_declined_operations_are_left_out_and_counted() -> None:
    rows = [
        ["Дата операции", "Статус", "Сумма операции", "Описание"],
        ["2023-06-24", "OK", -100.0, "Покупка"],
        ["2023-06-24", "FAILED", -5000.0, "Покупка"],
        ["2023-06-25", "OK", 300.0, "Пополнение"],
    ]
    document = extract([Grid("Sheet1", rows)]).documents[0]
    assert [(t.debit, t.credit) for t in document.transactions] == [
        ("100.00", None), (None, "300.00"),
    ]  # fmt: skip
    first = document.warnings[0]
    assert (first.code, first.severity) == ("OPERATION_NOT_EXECUTED", "info")


def test_running_balance_printed_before_each_operation() -> None:
    from document_extraction.readings import read_running_balance

    running = read_running_balance(
        [D("100"), D("200"), D("150")], [(None, D("100")), (D("50"), None), (None, D("25"))]
    )
    assert running is not None
    assert (running.opening, running.closing, running.broken) == (D("100"), D("175"), [])


def test_unsigned_amounts_that_nothing_puts_on_a_side_are_said_to_be_so() -> None:
    rows = [
        ["date", "amount", "description"],
        ["2023-09-05", 100.0, "Перевод организации"],
        ["2023-09-06", 50.0, "Открытие вклада"],
    ]
    extraction = extract([Grid("Sheet1", rows)])
    codes = [w.code for w in extraction.documents[0].warnings]
    assert "SIDES_UNKNOWN" in codes
    assert extraction.status == "needs_check"


def test_unsigned_amounts_confirmed_by_the_balances_are_no_question() -> None:
    rows = _statement([300.0, 100.0], "1 000,00", "1 400,00")
    codes = [w.code for w in extract([Grid("Выписка", rows)]).documents[0].warnings]
    assert codes == []
