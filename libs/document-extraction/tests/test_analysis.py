"""1C «Анализ счета»: balances and turnovers as marker rows, objects nested in each other."""

from __future__ import annotations

from datetime import date
from typing import Any

from document_extraction import Grid, extract
from document_extraction.layouts.account_analysis.build import CLOSING, OPENING, TURNOVER, marker_of
from recognition_contract import AccountRef, Locator


def test_marker_wordings() -> None:
    assert marker_of("Начальное сальдо") == OPENING
    assert marker_of("Нач.сальдо") == OPENING
    assert marker_of("Оборот") == TURNOVER
    assert marker_of("Конечное сальдо") == CLOSING
    assert marker_of("Кон.сальдо") == CLOSING
    assert marker_of("62.01") is None
    assert marker_of(62.0) is None


def _bp(body: list[list[Any]]) -> list[list[Any]]:
    return [
        ['ООО "Соболевская"'],
        ["Анализ счета 51 за 2023 г."],
        [],
        ["Выводимые данные: БУ (данные бухгалтерского учета)"],
        [],
        ["Счет", "Кор. Счет", "Дебет", "Кредит"],
        ["Статьи движения денежных средств", "Кор. Субконто1"],
        *body,
    ]


def test_bp_account_analysis_with_a_cash_flow_item_under_the_account() -> None:
    rows = _bp(
        [
            ["51", "Начальное сальдо", 1480000.0],
            ["Поступление от продажи продукции", "Начальное сальдо"],
            [None, "62", 960000.0],
            [None, "62.01", 960000.0],
            [None, 'Праздничное агентство "Третий Рим"', 960000.0],
            [None, "Оборот", 960000.0],
            [None, "Конечное сальдо"],
            [None, "Оборот", 960000.0],
            [None, "Конечное сальдо", 2440000.0],
        ]
    )
    extraction = extract([Grid("Лист_1", rows)])
    document = extraction.documents[0]
    assert document.variant == "account"
    assert document.account == AccountRef("51", None)
    assert document.period is not None and document.period.start == date(2023, 1, 1)
    assert [(r.id, r.parent, r.kind, r.level, r.code, r.name) for r in document.rows] == [
        (1, None, "account", 0, "51", None),
        (2, 1, "subconto", 1, None, "Поступление от продажи продукции"),
    ]
    account = document.rows[0]
    assert (account.opening_debit, account.turnover_debit, account.closing_debit) == (
        "1480000.00",
        "960000.00",
        "2440000.00",
    )
    assert document.rows[1].locator == Locator(sheet="Лист_1", row=9)
    # A cash-flow item keeps turnovers only: its balances are not checked against the account's.
    assert [w.code for w in document.warnings] == ["NO_TOTALS"]
    assert extraction.status == "done"


def test_upp_analysis_with_grand_totals_currency_pair_and_quantities() -> None:
    rows = [
        ['Общество с ограниченной ответственностью "Ставропольский бройлер"'],
        ["Анализ счета 60.31"],
        ["Период: Июль 2024 г. - Июль 2025 г."],
        [],
        ["Счет", "Кор.счет", "Показа-\nтели", "С кред. счетов", "В дебет счетов",
         "С кред. счетов", "В дебет счетов"],
        [None, None, None, None, None, "В валюте", "В валюте"],
        [None, "Нач.сальдо", "БУ", None, 100.0, None, 1.0],
        ["60.31", "Нач.сальдо", "БУ", None, 100.0, None, 1.0],
        ["АГРОМАКС ООО", "Нач.сальдо", "БУ", None, 100.0, None, 1.0],
        [None, None, "Кол.", 5.0],
        [None, 10.0, "БУ", None, 50.0, None, 0.5],
        [None, 51.0, "БУ", 30.0, None, 0.3, None],
        [None, "Оборот", "БУ", 30.0, 50.0, 0.3, 0.5],
        [None, "Кон.сальдо", "БУ", None, 120.0, None, 1.2],
        [None, "Оборот", "БУ", 30.0, 50.0, 0.3, 0.5],
        [None, "Кон.сальдо", "БУ", None, 120.0, None, 1.2],
        ["Итого:", "Оборот", "БУ", 30.0, 50.0, 0.3, 0.5],
        [None, "Кон.сальдо", "БУ", None, 120.0, None, 1.2],
    ]  # fmt: skip
    extraction = extract([Grid("TDSheet", rows)])
    document = extraction.documents[0]
    assert [(r.code, r.name, r.parent) for r in document.rows] == [
        ("60.31", None, None), (None, "АГРОМАКС ООО", 1),
    ]  # fmt: skip
    counterparty = document.rows[1]
    assert [getattr(counterparty, f) for f in ("opening_credit", "turnover_debit", "turnover_credit")] == [
        "100.00", "30.00", "50.00",
    ]  # fmt: skip
    assert counterparty.closing_credit == "120.00"
    assert document.totals.closing_credit == "120.00"
    assert extraction.status == "done", document.warnings
