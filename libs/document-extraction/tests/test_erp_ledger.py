"""An ERP's general-ledger balance list (SAP «Балансы счетов Главной книги»): eight-digit
accounts, one signed column per balance, amounts printed ``1.234,56-``, totals marked by
asterisks, credit turnovers printed with their minus."""

from __future__ import annotations

from document_extraction import Grid, extract
from document_extraction.layouts.line_labels import is_totals_label
from recognition_contract import TrialBalance

ROWS = [
    ["Балансы счетов Главной книги", None, None, None, None, None, None, None],
    ["Балансовая единица 1000, период 01.01.2024 - 31.12.2024", None, None, None, None, None,
     None, None],
    [None] * 8,
    ["БЕ", "Счет ГК", "Краткий текст", "Вал.", "Сальдо переноса", "Дебет отч. периода",
     "Кредит отч. периода", "Накопленное сальдо"],
    ["1000", "10010000", "Касса", "RUB", "150.000,00", "2.000.000,00", "1.900.000,00-",
     "250.000,00"],
    ["1000", "10020000", "Расчетный счет", "RUB", "1.200.000,00", "5.000.000,00",
     "4.800.000,00-", "1.400.000,00"],
    ["1000", "31000000", "Поставщики", "RUB", "350.000,00-", "3.000.000,00", "3.100.000,00-",
     "450.000,00-"],
    ["1000", "50000000", "Уставный капитал", "RUB", "1.000.000,00-", "0,00", "0,00",
     "1.000.000,00-"],
    ["1000", "60000000", "Выручка", "RUB", "0,00", "1.800.000,00", "2.000.000,00-",
     "200.000,00-"],
    ["*", None, None, "RUB", "0,00", "11.800.000,00", "11.800.000,00-", "0,00"],
    ["**", None, None, None, "0,00", "11.800.000,00", "11.800.000,00-", "0,00"],
]  # fmt: skip


def test_asterisks_mark_totals() -> None:
    assert is_totals_label("*")
    assert is_totals_label("***")
    assert not is_totals_label("*примечание")


def test_an_erp_ledger_is_read_with_its_signed_balances_and_checked_done() -> None:
    extraction = extract([Grid("Sheet1", ROWS)])
    [document] = extraction.documents
    assert isinstance(document, TrialBalance)
    assert [row.code for row in document.rows] == [
        "10010000", "10020000", "31000000", "50000000", "60000000",
    ]  # fmt: skip
    assert [row.name for row in document.rows][:2] == ["Касса", "Расчетный счет"]
    suppliers = document.rows[2]
    assert (suppliers.opening_credit, suppliers.turnover_credit, suppliers.closing_credit) == (
        "350000.00", "3100000.00", "450000.00",
    )  # fmt: skip
    assert document.totals is not None
    assert document.totals.turnover_debit == "11800000.00"
    assert document.totals.turnover_credit == "11800000.00"
    assert extraction.status == "done", [(w.code, w.message) for w in document.warnings]
