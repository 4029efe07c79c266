"""A trial balance form with three header rows (group caption / date / side), a column-number
row, and every caption and amount merged over two columns: the group caption is carried over
the merges' empty halves."""

from __future__ import annotations

import datetime

from document_extraction import Grid, extract
from recognition_contract import TrialBalance

N = None

ROWS = [
    ["Оборотно-сальдовая ведомость за 2024 г."],
    ["ООО «Ромашка»"],
    [],
    [
        "Счет",
        "Наименование",
        "Сальдо на начало периода",
        N,
        N,
        N,
        "Обороты за период",
        N,
        N,
        N,
        "Сальдо на конец периода",
        N,
        N,
        N,
    ],
    [N, N, "на 01.01.2024", N, N, N, "за 2024 г.", N, N, N, "на 31.12.2024", N, N, N],
    [N, N, "Дебет", N, "Кредит", N, "Дебет", N, "Кредит", N, "Дебет", N, "Кредит", N],
    ["1", "2", "3", N, "4", N, "5", N, "6", N, "7", N, "8", N],
    ["01", "Основные средства", 1000.0, N, N, N, 500.0, N, N, N, 1500.0, N, N, N],
    ["02", "Амортизация", N, N, 200.0, N, N, N, 100.0, N, N, N, 300.0, N],
    ["51", "Расчетные счета", 700.0, N, N, N, 2000.0, N, 2500.0, N, 200.0, N, N, N],
    ["80", "Уставный капитал", N, N, 1500.0, N, N, N, N, N, N, N, 1500.0, N],
    ["90", "Продажи", N, N, N, N, 100.0, N, N, N, 100.0, N, N, N],
    ["Итого", N, 1700.0, N, 1700.0, N, 2600.0, N, 2600.0, N, 1800.0, N, 1800.0, N],
]


def test_a_form_of_merged_columns_is_read_and_checked_done() -> None:
    extraction = extract([Grid("Лист1", ROWS)])
    [document] = extraction.documents
    assert isinstance(document, TrialBalance)
    read = [
        (r.code, r.opening_debit, r.opening_credit, r.turnover_debit, r.turnover_credit,
         r.closing_debit, r.closing_credit)
        for r in document.rows
    ]  # fmt: skip
    assert read == [
        ("01", "1000.00", None, "500.00", None, "1500.00", None),
        ("02", None, "200.00", None, "100.00", None, "300.00"),
        ("51", "700.00", None, "2000.00", "2500.00", "200.00", None),
        ("80", None, "1500.00", None, None, None, "1500.00"),
        ("90", None, None, "100.00", None, "100.00", None),
    ]
    assert document.period is not None
    assert document.period.end == datetime.date(2024, 12, 31)
    assert extraction.status == "done", [(w.code, w.message) for w in document.warnings]
