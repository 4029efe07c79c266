"""Statements whose debit and credit columns hold the two accounts of each entry (account, ИНН
and name in one cell): the holder's account tells each operation's side."""

from __future__ import annotations

import datetime

from document_extraction import Grid, extract
from document_extraction.layouts.statement.entry_accounts import party_in_cell
from recognition_contract import Document, Statement

OWN = "40702810900000012345"
OWN_CELL = f"{OWN}\nИНН 7701234560\nООО «Ромашка»"
ROWS = [
    ["Выписка операций по лицевому счету 40702810900000012345"],
    ["ООО «Ромашка»"],
    ["за период с", "01.03.2024", "по", "31.03.2024"],
    ["Валюта: Российский рубль"],
    ["Входящий остаток: 10 000,00"],
    [],
    ["Дата проводки", "Счет", None, "Сумма", "№ док.", "Назначение платежа"],
    [None, "Дебет", "Кредит", None, None, None],
    [datetime.date(2024, 3, 1), OWN_CELL,
     "40702810100000054321\nИНН 7709876545\nООО «Альфа»", "1 500,00", "12", "Оплата по счету 5"],
    [datetime.date(2024, 3, 2), "40702810500000011111\nИНН 7705555558\nАО «Бета»", OWN_CELL,
     "4 000,00", "7", "Оплата по договору 3"],
    [datetime.date(2024, 3, 3), OWN_CELL,
     "30101810400000000225\nИНН 7707083893\nПАО Сбербанк", "100,00", "13", "Комиссия банка"],
    ["Итого оборотов", None, None, None, None, None],
    ["Исходящий остаток: 12 400,00"],
]  # fmt: skip


def test_a_cell_naming_a_party_is_read_into_account_tax_id_and_name() -> None:
    party = party_in_cell("40702810100000054321\nИНН 7709876545\nООО «Альфа»")
    assert (party.account, party.tax_id, party.name) == (
        "40702810100000054321", "7709876545", "ООО «Альфа»",
    )  # fmt: skip


def test_the_holders_account_on_a_side_tells_the_operations_side() -> None:
    extraction = extract([Grid("Выписка", ROWS)])
    statement = _statement(extraction.documents)
    assert _read(statement) == [
        ("1500.00", None, "40702810100000054321", "7709876545", "ООО «Альфа»"),
        (None, "4000.00", "40702810500000011111", "7705555558", "АО «Бета»"),
        ("100.00", None, "30101810400000000225", "7707083893", "ПАО Сбербанк"),
    ]
    assert statement.header.account == OWN
    # The period over four cells, the currency by its name.
    assert statement.header.period is not None
    assert statement.header.period.end == datetime.date(2024, 3, 31)
    assert statement.header.currency == "RUB"
    assert (statement.header.opening_balance, statement.header.closing_balance) == (
        "10000.00", "12400.00",
    )  # fmt: skip
    assert extraction.status == "done", [(w.code, w.message) for w in statement.warnings]


BLOCKS = [
    ["Выписка по счету 40702810900000012345 за период с 01.03.2024 по 31.03.2024"],
    ["Входящий остаток: 10 000,00"],
    [],
    ["Дата", "Плательщик", None, None, "Получатель", None, None, "Сумма", "Назначение"],
    [None, "Счет", "ИНН", "Наименование", "Счет", "ИНН", "Наименование", None, None],
    [datetime.date(2024, 3, 1), OWN, "7701234560", "ООО «Ромашка»",
     "40702810100000054321", "7709876545", "ООО «Альфа»", "1 500,00", "Оплата по счету 5"],
    [datetime.date(2024, 3, 2), "40702810500000011111", "7705555558", "АО «Бета»",
     OWN, "7701234560", "ООО «Ромашка»", "4 000,00", "Оплата по договору 3"],
    ["Исходящий остаток: 12 500,00"],
]  # fmt: skip


def test_the_payer_and_receiver_blocks_tell_the_side_by_the_holders_account() -> None:
    extraction = extract([Grid("Выписка", BLOCKS)])
    statement = _statement(extraction.documents)
    assert _read(statement) == [
        ("1500.00", None, "40702810100000054321", "7709876545", "ООО «Альфа»"),
        (None, "4000.00", "40702810500000011111", "7705555558", "АО «Бета»"),
    ]
    assert extraction.status == "done", [(w.code, w.message) for w in statement.warnings]


def _statement(documents: list[Document]) -> Statement:
    [statement] = documents
    assert isinstance(statement, Statement)
    return statement


def _read(statement: Statement) -> list[tuple[str | None, ...]]:
    return [
        (t.debit, t.credit, t.counterparty_account, t.counterparty_tax_id, t.counterparty_name)
        for t in statement.transactions
    ]
