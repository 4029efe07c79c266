"""A statement grouped by day: each day opened by a row of its date and incoming balance, its
operations printing no date, closed by its turnovers and outgoing balance in the amount columns."""

from __future__ import annotations

import datetime

from document_extraction import Grid, extract
from document_extraction.layouts.statement.head import line_labels
from recognition_contract import Statement

D1, D2 = datetime.date(2024, 3, 1), datetime.date(2024, 3, 4)
ROWS = [
    ["Выписка по расчетному счету BY72BAPB30126883120620193300"],
    ["Период: с 01.03.2024 по 31.03.2024"],
    ["Входящий остаток: 1 000,00"],
    [],
    ["Дата", "№ док", "Дебет", "Кредит", "Наименование корреспондента", "Назначение платежа"],
    [D1, None, "-", "1 000,00", "Входящий остаток", None],
    [None, "12", "100,00", "-", "ООО «Альфа»", "Оплата по счету 1"],
    [None, "13", "-", "250,00", "ООО «Бета»", "Оплата по договору 7"],
    [None, None, "100,00", "250,00", "Обороты за день", None],
    [None, None, "-", "1 150,00", "Исходящий остаток", None],
    [D2, None, "-", "1 150,00", "Входящий остаток", None],
    [None, "14", "50,00", "-", "ООО «Гамма»", "Комиссия"],
    [None, None, "50,00", "-", "Обороты за день", None],
    [None, None, "-", "1 100,00", "Исходящий остаток", None],
    ["Исходящий остаток: 1 100,00"],
]


def test_a_label_after_the_values_of_its_line_is_read() -> None:
    assert "opening" in line_labels(ROWS[5])
    assert "totals" in line_labels(ROWS[8])
    assert line_labels(ROWS[6]) == {}


def test_operations_take_their_days_date_and_the_day_turnovers_are_no_totals() -> None:
    extraction = extract([Grid("Выписка", ROWS)])
    [statement] = extraction.documents
    assert isinstance(statement, Statement)
    lines = [(t.date, t.number, t.debit, t.credit) for t in statement.transactions]
    assert lines == [
        (D1, "12", "100.00", None),
        (D1, "13", None, "250.00"),
        (D2, "14", "50.00", None),
    ]
    header = statement.header
    assert (header.opening_balance, header.closing_balance) == ("1000.00", "1100.00")
    assert (header.total_debit, header.total_credit) == (None, None)
    assert extraction.status == "done", [(w.code, w.message) for w in statement.warnings]
