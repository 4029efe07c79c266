"""Trial balance cells as readers hand them over: numbers with and without extra decimals,
calamine's empty strings, odd values, outline levels that do not start at 0."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from document_extraction import Grid, extract
from document_extraction.numbers import format_cents, read_cents
from recognition_contract import locator_to_wire, warnings_to_wire

HEADER = [
    ["Оборотно-сальдовая ведомость"],
    [
        "Счет",
        "Наименование счета",
        "Сальдо на начало периода",
        "",
        "Обороты за период",
        "",
        "Сальдо на конец периода",
        "",
    ],
    ["", "", "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"],
]


def document(body: list[list[Any]], **grid: Any) -> dict[str, Any]:
    return extract([Grid("ОСВ", [*HEADER, *body], **grid)]).documents[0]


def warnings(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any] | None]]:
    return [(w.code, locator_to_wire(w.locator) if w.locator else None) for w in doc.warnings]


@pytest.mark.parametrize(
    "cell",
    [1e-9, 5e-324, 1.0000000001, 0.125, 1234.567, 99999999999.995, 1e13, 1.5e15, -0.0, 0.1 + 0.2],
)
def test_numeric_cells_read_as_read_cents_reads_them(cell: float) -> None:
    # Every numeric cell, however it is read, gives what read_cents and format_cents give.
    doc = document([["01", "Основные средства", cell, "", "", "", cell, ""]])
    cents = read_cents(cell)
    row = doc.rows[0]
    assert row.opening_debit == row.closing_debit == format_cents(cents.value)
    precision = ("AMOUNT_PRECISION", {"sheet": "ОСВ", "row": 4, "column": "C"})
    assert (precision in warnings(doc)) == (cents.printed is not None)


def test_tiny_remainder_is_reported_not_dropped() -> None:
    doc = document([["01", "Основные средства", 1e-9, "", "", "", "", ""]])
    assert doc.rows[0].opening_debit == "0.00"
    assert ("AMOUNT_PRECISION", {"sheet": "ОСВ", "row": 4, "column": "C"}) in warnings(doc)


def test_negative_zero_prints_as_zero() -> None:
    doc = document([["01", "Основные средства", -0.0, "", "", "", -0.0, ""]])
    assert doc.rows[0].opening_debit == "0.00"
    assert warnings_to_wire(doc.warnings, 2) == [
        {
            "code": "NO_TOTALS",
            "severity": "info",
            "message": "Строка «Итого» не найдена",
            "locator": {"sheet": "ОСВ"},
        }
    ]


def test_empty_strings_and_none_are_both_empty_cells() -> None:
    doc = document(
        [
            ["01", "Основные средства", 10.0, None, "", " ", 10.0, ""],
            ["Итого", "", 10.0, "", None, "", 10.0, None],
        ]
    )
    row = doc.rows[0]
    assert [getattr(row, f) for f in ("opening_credit", "turnover_debit", "turnover_credit")] == [
        None,
        None,
        None,
    ]
    assert doc.totals.closing_credit is None
    assert not any(code.startswith("AMOUNT") for code, _ in warnings(doc))


def test_text_amounts_repeated_on_many_rows() -> None:
    body = [[f"10.{n}", "Материалы", "1 000,50", "", "", "", "1 000,50", ""] for n in range(1, 60)]
    body.append(["10", "Материалы", "59 029,50", "", "", "", "59 029,50", ""])
    doc = document(body)
    assert {r.opening_debit for r in doc.rows[:-1]} == {"1000.50"}
    assert {r.confidence for r in doc.rows[:-1]} == {99}


def test_unreadable_cells_keep_their_order_among_warnings() -> None:
    doc = document(
        [
            ["01", "Основные средства", "много", "", "", "", 1.0, ""],
            ["", "", 5.0, "", "", "", 5.0, ""],
            ["02", "Амортизация", True, "", "", "", 1.005, ""],
        ]
    )
    assert [code for code, _ in warnings(doc)][:6] == [
        "AMOUNT_UNREADABLE",
        "ROW_WITHOUT_LABEL",
        "AMOUNT_UNREADABLE",
        "AMOUNT_PRECISION",
        "NO_TOTALS",
        "ROW_BALANCE_MISMATCH",
    ]


def test_outline_levels_count_from_the_shallowest_row() -> None:
    body = [
        ["60", "Расчеты с поставщиками", "", 30.0, "", "", "", 30.0],
        ["60.1", "Поставщики", "", 10.0, "", "", "", 10.0],
        ["60.2", "Авансы", "", 20.0, "", "", "", 20.0],
        ["62", "Расчеты с покупателями", 30.0, "", "", "", 30.0, ""],
    ]
    doc = document(body, outline_levels={3: 2, 4: 3, 5: 3, 6: 2})
    assert [(r.id, r.parent, r.level) for r in doc.rows] == [
        (1, None, 0),
        (2, 1, 1),
        (3, 1, 1),
        (4, None, 0),
    ]
    assert [code for code, _ in warnings(doc)] == ["NO_TOTALS"]


def test_parent_sums_follow_outline_levels() -> None:
    body = [
        ["60", "Расчеты с поставщиками", "", 30.0, "", "", "", 30.0],
        ["60.1", "Поставщики", "", 10.0, "", "", "", 10.0],
        ["60.2", "Авансы", "", 25.0, "", "", "", 25.0],
    ]
    doc = document(body, outline_levels={4: 1, 5: 1})
    assert ("PARENT_SUM_MISMATCH", {"sheet": "ОСВ", "row": 4, "column": "D"}) in warnings(doc)


def test_extraction_leaves_the_collector_as_it_found_it() -> None:
    body = [["01", "Основные средства", 1.0, "", "", "", 1.0, ""]]
    assert gc.isenabled()
    document(body)
    assert gc.isenabled()
    gc.disable()
    try:
        document(body)
        assert not gc.isenabled()
    finally:
        gc.enable()
