"""Several documents one under the other on a sheet: cut at each title only when every part
is a document of its own."""

from __future__ import annotations

from typing import Any

from document_extraction import Grid, extract
from document_extraction.layouts.trial_balance.parts import osv_parts
from document_extraction.parts import title_block_start

HEADER = ["Счет", "Наименование", "Сальдо на начало периода", None, "Обороты за период", None]
HEADER += ["Сальдо на конец периода", None]
SIDES = [None, None, "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"]


def trial_balance(period: str, opening: float) -> list[list[Any]]:
    closing = opening + 30.0
    return [
        ["ООО «Ромашка»"],
        [f"Оборотно-сальдовая ведомость за {period}"],
        [],
        HEADER,
        SIDES,
        ["01", "Основные средства", opening, None, 30.0, None, closing, None],
        ["60", "Расчеты с поставщиками", None, opening, None, 30.0, None, closing],
        ["Итого", None, opening, opening, 30.0, 30.0, closing, closing],
    ]


def test_two_periods_on_one_sheet_are_two_trial_balances() -> None:
    rows = [
        *trial_balance("январь 2024 г.", 100.0),
        [],
        [],
        *trial_balance("февраль 2024 г.", 130.0),
    ]
    extraction = extract([Grid("ОСВ", rows)])
    first, second = extraction.documents
    assert extraction.status == "done"
    assert [first.period.text, second.period.text] == [  # type: ignore[union-attr]
        "за январь 2024 г.",
        "за февраль 2024 г.",
    ]
    assert first.totals.opening_debit == "100.00"  # type: ignore[union-attr]
    assert second.totals.opening_debit == "130.00"  # type: ignore[union-attr]
    # Locators stay the sheet's: the second part starts at its organisation's line (11).
    assert second.rows[0].locator.row == 16  # type: ignore[union-attr]
    assert second.locator.row == 11


def test_a_title_printed_again_on_each_page_does_not_cut() -> None:
    rows = trial_balance("январь 2024 г.", 100.0)
    page_two = [["Оборотно-сальдовая ведомость за январь 2024 г."], HEADER, SIDES]
    rows = rows[:6] + page_two + rows[6:]
    grid = Grid("ОСВ", rows)
    assert osv_parts(grid) == [grid]


def test_a_part_that_is_no_trial_balance_keeps_the_sheet_whole() -> None:
    rows = [
        *trial_balance("январь 2024 г.", 100.0),
        [],
        ["Оборотно-сальдовая ведомость: примечания"],
    ]
    grid = Grid("ОСВ", rows)
    assert osv_parts(grid) == [grid]


def test_the_title_block_reaches_up_to_the_blank_line() -> None:
    rows: list[list[Any]] = [["a"], [], ["ООО"], ["ИНН 7701234567"], ["Оборотно-сальдовая"]]
    assert title_block_start(rows, 4) == 2
    assert title_block_start(rows, 0) == 0
