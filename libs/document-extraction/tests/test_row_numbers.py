"""Row numbers that OCR read into the label beside them."""

from __future__ import annotations

import pytest

from document_extraction import Grid, extract
from document_extraction.grid import CellValue
from document_extraction.row_numbers import is_running_sequence, labels_without_row_numbers


def _column(*labels: str) -> list[list[CellValue]]:
    return [[label] for label in labels]


def test_numbers_read_into_the_codes_are_taken_off() -> None:
    # "1 | 10 Материалы" read as one word; where OCR saw the space, the number is apart too,
    # and a name's row is numbered as well.
    rows = _column(
        "110 Материалы", "210.01 Сырье", "3 19 Налог", "4 19.03 НДС", "520 Основное",
        "6 Иванов И.И.", "744 Расходы", "8 44.01.1 Издержки",
    )  # fmt: skip
    assert labels_without_row_numbers(rows, 0, 0) == {
        0: "10 Материалы", 1: "10.01 Сырье", 2: "19 Налог", 3: "19.03 НДС", 4: "20 Основное",
        5: "Иванов И.И.", 6: "44 Расходы", 7: "44.01.1 Издержки",
    }  # fmt: skip


def test_a_level_beside_the_label_is_no_row_number() -> None:
    rows: list[list[CellValue]] = [
        ["0", "102 Амортизация"], ["0", "204 Нематериальные активы"],
        ["0", "3 08 Вложения"], ["1", "4 08.1 Приобретение"], ["2", "508.1.1 Здания"],
    ]  # fmt: skip
    assert list(labels_without_row_numbers(rows, 0, 1).values()) == [
        "02 Амортизация", "04 Нематериальные активы", "08 Вложения", "08.1 Приобретение",
        "08.1.1 Здания",
    ]  # fmt: skip


def test_a_number_in_its_own_column_keeps_the_count() -> None:
    rows: list[list[CellValue]] = [
        [1, "01 Основные средства"], [2, "Иванов И.И."], [3, "10 Материалы"],
        [None, "441 Товары"], [5, "60 Расчеты"],
    ]  # fmt: skip
    assert labels_without_row_numbers(rows, 0, 1) == {3: "41 Товары"}


def test_numbers_that_are_no_count_beside_the_labels_are_passed_over() -> None:
    # Not a number, infinite, a flag: none counts, and none breaks the reading.
    rows: list[list[CellValue]] = [
        [float("nan"), "110 Материалы"], [float("inf"), "210.01 Сырье"], [True, "319 Налог"],
    ]  # fmt: skip
    assert labels_without_row_numbers(rows, 0, 1) == {
        0: "10 Материалы", 1: "10.01 Сырье", 2: "19 Налог",
    }  # fmt: skip


def test_codes_that_merely_start_with_digits_stay_as_read() -> None:
    for labels in (
        ("101 Касса", "102 Расчеты", "103 Товары", "104 Прочие"),
        ("10 Материалы", "11 Животные", "12 Прочие", "13 Инвентарь"),
        # Two that follow a numbering by chance are no numbering.
        ("110 Материалы", "210 Ремонт", "90 Продажи", "91 Прочие", "99 Прибыли"),
    ):
        assert labels_without_row_numbers(_column(*labels), 0, 0) == {}, labels


def test_a_trial_balance_read_with_its_row_numbers_in_the_codes() -> None:
    header: list[list[CellValue]] = [
        ["Счет", "Сальдо на начало", None, "Обороты", None, "Сальдо на конец", None],
        [None, "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"],
    ]
    body: list[list[CellValue]] = [
        ["110 Материалы", "100,00", None, "50,00", None, "150,00", None],
        ["210.01 Сырье", "100,00", None, "50,00", None, "150,00", None],
        ["3 60 Расчеты", None, "100,00", None, "50,00", None, "150,00"],
        ["460.01 Поставщики", None, "100,00", None, "50,00", None, "150,00"],
        ["Итого", "100,00", "100,00", "50,00", "50,00", "150,00", "150,00"],
    ]
    extraction = extract([Grid("ОСВ", [*header, *body], kind="page", page=1)])
    document = extraction.documents[0]
    assert [(r.code, r.parent) for r in document.rows] == [
        ("10", None), ("10.01", 1), ("60", None), ("60.01", 3),
    ]  # fmt: skip
    assert extraction.status == "done", document.warnings


@pytest.mark.parametrize(
    ("cells", "least", "counts"),
    [
        ([1, 2, 3, 4], 4, True),
        ([1.0, 2.0, 3.0, 4.0, 5.0], 4, True),
        (["31", "32", "33", "34"], 4, True),  # a later page goes on counting
        ([1, 2, 3], 4, False),  # three payment orders numbered 1, 2, 3 may be just that
        ([1, 2, 3], 2, True),
        ([1, 2, 4, 5], 2, False),
        ([1, 2, None, 4], 2, False),
        ([1, 2, "3a", 4], 2, False),
        ([True, 2, 3, 4], 2, False),
    ],
)
def test_a_running_sequence(cells: list[object], least: int, counts: bool) -> None:
    assert is_running_sequence(cells, least=least) is counts  # type: ignore[arg-type]
