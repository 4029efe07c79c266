"""Trial balance rows by meaning: quantities, indicators, totals and title lines."""

from __future__ import annotations

from typing import Any

from document_extraction import Grid, extract
from document_extraction.layouts.line_labels import is_totals_label
from document_extraction.layouts.trial_balance.labels import (
    is_other_indicator,
    is_quantity_label,
    is_section_heading,
    is_section_totals,
)
from recognition_contract import Organisation

HEADER = [
    "Счет", "Показатели", "Сальдо на начало периода", None, "Обороты за период", None,
    "Сальдо на конец периода", None,
]  # fmt: skip
SIDES = [None, None, "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"]


def test_quantity_captions_are_whole_words() -> None:
    # "Кол-во" as OCR misreads it ("Kon-Во", "Ков-во") too.
    for text in (
        "кол.",
        "кол",
        "кол-во",
        "количество",
        "количество, шт",
        "колво",
        "kon-во",
        "ков-во",
        "kon.",
        "коп.",
    ):
        assert is_quantity_label(text), text
    for text in (
        "кольцо уплотнительное",
        "колодка тормозная",
        "колесников и.и.",
        "колонка",
        "конверт",
        "колесо литое",
    ):
        assert not is_quantity_label(text), text


def test_a_quantity_line_beside_a_level_ocr_read_as_letters_is_no_row() -> None:
    # The outline level's "1" read as "tl": the quantity caption after it still says what
    # the line is.
    rows = [
        [None, "Счет", *HEADER[2:]],
        [None, None, *SIDES[2:]],
        [0, "10 Материалы", 300.0, None, 50.0, None, 350.0, None],
        [1, "10.01 Сырье", 300.0, None, 50.0, None, 350.0, None],
        ["tl", "Количество", 4085.0, None, 4085.0, None, 4085.0, None],
        [0, "60 Расчеты", None, 300.0, None, 50.0, None, 350.0],
        [None, "Итого", 300.0, 300.0, 50.0, 50.0, 350.0, 350.0],
    ]
    extraction = extract([Grid("ОСВ", rows)])
    assert [r.code for r in extraction.documents[0].rows] == ["10", "10.01", "60"]
    assert extraction.status == "done", extraction.documents[0].warnings


def test_totals_and_indicator_wording() -> None:
    assert is_totals_label("итого")
    assert is_totals_label("итого:")
    assert is_totals_label("всего по счету")
    assert not is_totals_label("итоговая ведомость")
    assert is_other_indicator("ну")
    assert is_other_indicator("кол.")
    assert not is_other_indicator("бу")


def _sheet(body: list[list[Any]]) -> list[list[Any]]:
    return [
        [0.0, None, 'ООО "Маризернопродукт"'],
        [0.0, None, "Обороты счета 10 за 4 квартал 2024 г."],
        [1.0, None, "Параметры:", None, "Валюта БУ, НУ: RUB"],
        [],
        HEADER,
        SIDES,
        *body,
    ]


def test_names_that_begin_with_kol_stay_rows_and_indicator_rows_are_skipped() -> None:
    rows = _sheet(
        [
            ["10", "БУ", 300.0, None, None, None, 300.0, None],
            [None, "Кол.", 7.0, None, None, None, 7.0, None],
            ["Кольцо уплотнительное", "БУ", 100.0, None, None, None, 100.0, None],
            [None, "Кол.", 3.0, None, None, None, 3.0, None],
            ["Колодка тормозная", "БУ", 200.0, None, None, None, 200.0, None],
            [None, "НУ", 200.0, None, None, None, 200.0, None],
            ["Итого", "БУ", 300.0, None, None, None, 300.0, None],
        ]
    )
    extraction = extract([Grid("Лист_1", rows)])
    document = extraction.documents[0]
    assert [(r.code, r.name, r.parent) for r in document.rows] == [
        ("10", None, None), (None, "Кольцо уплотнительное", 1), (None, "Колодка тормозная", 1),
    ]  # fmt: skip
    assert document.organisation == Organisation('ООО "Маризернопродукт"', None)
    assert document.currency == "RUB"
    assert document.totals.opening_debit == "300.00"
    assert extraction.status == "done", document.warnings


def test_totals_worded_in_the_name_column() -> None:
    rows = [
        ["Счет", "Наименование", *HEADER[2:]],
        SIDES,
        ["01", "Основные средства", 100.0, None, None, None, 100.0, None],
        [None, "Итого:", 100.0, None, None, None, 100.0, None],
    ]
    document = extract([Grid("ОСВ", rows)]).documents[0]
    assert len(document.rows) == 1
    assert document.totals.closing_debit == "100.00"


def test_balances_printed_as_one_signed_column_each() -> None:
    rows = [
        ["Счет", "Наименование", "Сальдо на начало", "Оборот Дт", "Оборот Кт", "Сальдо на конец"],
        ["01", "Основные средства", 100.0, 50.0, None, 150.0],
        ["60", "Расчеты с поставщиками", "-100,00", 20.0, 70.0, "-150,00"],
        ["Итого", None, 0.0, 70.0, 70.0, 0.0],
    ]
    extraction = extract([Grid("ОСВ", rows)])
    document = extraction.documents[0]
    assert [
        (r.opening_debit, r.opening_credit, r.closing_debit, r.closing_credit)
        for r in document.rows
    ] == [("100.00", None, "150.00", None), (None, "100.00", None, "150.00")]
    assert extraction.status == "done", document.warnings


def test_header_repeated_at_the_top_of_each_page_is_not_data() -> None:
    header = [["Счет", "Наименование", *HEADER[2:]], SIDES, [1, 2, 3, 4, 5, 6, 7, 8]]
    rows = [
        *header,
        ["01", "Основные средства", 100.0, None, None, None, 100.0, None],
        *header,
        ["02", "Амортизация", None, 100.0, None, None, None, 100.0],
        ["Итого", None, 100.0, 100.0, None, None, 100.0, 100.0],
    ]
    extraction = extract([Grid("ОСВ", rows)])
    document = extraction.documents[0]
    assert [r.code for r in document.rows] == ["01", "02"]
    assert extraction.status == "done", document.warnings


def test_indentation_nests_contracts_under_their_counterparty() -> None:
    rows = [
        ["Оборотно-сальдовая ведомость по счету 60"],
        ["Субконто", *HEADER[2:]],
        SIDES[1:],
        ["60.01 Расчеты с поставщиками", None, 300.0, None, None, None, 300.0],
        ["    Колос СПК", None, 300.0, None, None, None, 300.0],
        ["        Договор № 12", None, 100.0, None, None, None, 100.0],
        ["        Договор № 7", None, 200.0, None, None, None, 200.0],
        ["Итого", None, 300.0, None, None, None, 300.0],
    ]
    extraction = extract([Grid("ОСВ 60", rows)])
    document = extraction.documents[0]
    assert [(r.level, r.parent) for r in document.rows] == [
        (0, None), (1, 1), (2, 2), (2, 2),
    ]  # fmt: skip
    assert extraction.status == "done", document.warnings


def test_signed_balances_with_credit_balances_printed_positive() -> None:
    rows = [
        ["Счет", "Наименование", "Сальдо на начало", "Оборот Дт", "Оборот Кт", "Сальдо на конец"],
        ["01", "Основные средства", -100.0, 50.0, None, -150.0],
        ["60", "Расчеты с поставщиками", 100.0, 20.0, 70.0, 150.0],
        ["Итого", None, 0.0, 70.0, 70.0, 0.0],
    ]
    extraction = extract([Grid("ОСВ", rows)])
    document = extraction.documents[0]
    assert [(r.opening_debit, r.opening_credit) for r in document.rows] == [
        ("100.00", None), (None, "100.00"),
    ]  # fmt: skip
    assert [(w.code, w.severity) for w in document.warnings] == [("SIGN_CONVENTION", "info")]
    assert extraction.status == "done"


def test_a_subtotal_inside_the_table_is_neither_a_row_nor_the_totals() -> None:
    rows = [
        ["Счет", "Наименование", *HEADER[2:]],
        SIDES,
        ["01", "Основные средства", 100.0, None, None, None, 100.0, None],
        ["Итого по разделу I", None, 100.0, None, None, None, 100.0, None],
        ["80", "Уставный капитал", None, 100.0, None, None, None, 100.0],
        ["Итого", None, 100.0, 100.0, None, None, 100.0, 100.0],
    ]
    extraction = extract([Grid("ОСВ", rows)])
    document = extraction.documents[0]
    assert [r.code for r in document.rows] == ["01", "80"]
    assert document.totals.locator.row == 6
    assert extraction.status == "done", document.warnings


def test_a_level_column_gives_the_hierarchy_where_the_reader_sees_no_outline() -> None:
    rows = [
        [None, "Счет", *HEADER[2:]],
        [None, *SIDES[1:]],
        [0, "10", None, 300.0, None, None, None, 300.0],
        [1, "Сырье", None, 300.0, None, None, None, 300.0],
        [2, "Кольцо уплотнительное", None, 100.0, None, None, None, 100.0],
        [2, "Колодка тормозная", None, 200.0, None, None, None, 200.0],
        [0, "Итого", None, 300.0, None, None, None, 300.0],
    ]
    document = extract([Grid("Лист_1", rows)]).documents[0]
    assert [(r.level, r.parent) for r in document.rows] == [
        (0, None), (1, 1), (2, 2), (2, 2),
    ]  # fmt: skip


def test_a_row_number_column_is_no_level_column() -> None:
    rows = [
        ["№", "Счет", "Наименование", *HEADER[2:]],
        [None, *SIDES],
        [1, "01", "Основные средства", 100.0, None, None, None, 100.0, None],
        [2, "02", "Амортизация", None, 100.0, None, None, None, 100.0],
        ["Итого", None, None, 100.0, 100.0, None, None, 100.0, 100.0],
    ]
    document = extract([Grid("ОСВ", rows)]).documents[0]
    assert [(r.level, r.parent) for r in document.rows] == [(0, None), (0, None)]


def test_title_fields_wherever_on_the_line_they_stand() -> None:
    from document_extraction.titles import read_titles

    titles = read_titles(
        [
            ["ОАО «Гамма»", None, None, "Валюта: RUB"],
            [None, "Оборотно-сальдовая ведомость за 2024 г.", None, "Организация:", "ЧУП «Бета»"],
            ["Период: с 01.01.2024 по 31.12.2024", None, "Единица измерения: тыс. руб."],
        ],
        3,
    )
    assert titles.organisation == Organisation("ЧУП «Бета»", None)
    assert titles.currency == "RUB"
    assert titles.unit == "thousands"
    assert titles.period is not None and titles.period.text == "за 2024 г."


def test_income_and_outgo_turnovers_are_put_on_the_side_the_rows_balance_on() -> None:
    rows = [
        ["Контрагент", "Нач. остаток Дт", "Нач. остаток Кт", "Приход", "Расход",
         "Кон. остаток Дт", "Кон. остаток Кт"],
        ["ООО «Альфа»", None, 100.0, 30.0, 80.0, None, 50.0],
        ["ООО «Бета»", None, 50.0, 50.0, 20.0, None, 80.0],
        ["Итого", None, 150.0, 80.0, 100.0, None, 130.0],
    ]  # fmt: skip
    extraction = extract([Grid("Взаиморасчеты", rows)])
    document = extraction.documents[0]
    assert [(r.turnover_debit, r.turnover_credit) for r in document.rows] == [
        ("80.00", "30.00"), ("20.00", "50.00"),
    ]  # fmt: skip
    assert [(w.code, w.severity) for w in document.warnings] == [("SIGN_CONVENTION", "info")]
    assert extraction.status == "done"


def test_active_and_passive_balance_captions() -> None:
    rows = [
        ["Счет", "Сальдо на начало", None, "Обороты", None, "Сальдо на конец", None],
        [None, "Актив", "Пассив", "Дебет", "Кредит", "Актив", "Пассив"],
        ["01", 100.0, None, None, None, 100.0, None],
        ["80", None, 100.0, None, None, None, 100.0],
        ["Итого", 100.0, 100.0, None, None, 100.0, 100.0],
    ]
    extraction = extract([Grid("ОСВ", rows)])
    assert extraction.documents[0].rows[1].opening_credit == "100.00"
    assert extraction.status == "done"


def _two_totals(second: list[Any]) -> list[list[Any]]:
    return [
        ["Счет", "Наименование", *HEADER[2:]],
        SIDES,
        ["01", "Основные средства", 100.0, None, 30.0, None, 130.0, None],
        ["60", "Расчеты с поставщиками", None, 100.0, None, 30.0, None, 130.0],
        ["Итого", None, 100.0, 100.0, 30.0, 30.0, 130.0, 130.0],
        second,
    ]


def test_of_two_totals_lines_the_one_equal_to_the_accounts_is_the_totals() -> None:
    expanded = ["Итого развернутое", None, 150.0, 150.0, 30.0, 30.0, 180.0, 180.0]
    extraction = extract([Grid("ОСВ", _two_totals(expanded))])
    document = extraction.documents[0]
    assert document.totals is not None
    assert (document.totals.opening_debit, document.totals.locator.row) == ("100.00", 5)
    assert len(document.rows) == 2
    assert [w.code for w in document.warnings] == ["TOTALS_CHOSEN_BY_SUMS"]
    assert extraction.status == "done"


def test_of_two_totals_lines_neither_equal_to_the_accounts_the_last_is_flagged() -> None:
    rows = _two_totals(["Итого развернутое", None, 150.0, 150.0, 30.0, 30.0, 180.0, 180.0])
    rows[4] = ["Итого", None, 101.0, 100.0, 30.0, 30.0, 130.0, 130.0]
    extraction = extract([Grid("ОСВ", rows)])
    document = extraction.documents[0]
    assert document.totals is not None and document.totals.locator.row == 6
    assert "TOTALS_MISMATCH" in {w.code for w in document.warnings}
    assert extraction.status == "needs_check"


def test_section_headings_and_subtotals_between_accounts_are_neither_rows_nor_totals() -> None:
    rows = [
        ["Счет", "Наименование", *HEADER[2:]],
        SIDES,
        ["Раздел I. Внеоборотные активы", None, None, None, None, None, None, None],
        ["01", "Основные средства", 100.0, None, 30.0, None, 130.0, None],
        ["Итого по разделу I", None, 100.0, None, 30.0, None, 130.0, None],
        ["Раздел II. Расчеты", None, None, None, None, None, None, None],
        ["60", "Расчеты с поставщиками", None, 100.0, None, 30.0, None, 130.0],
        ["Итого по разделу II", None, None, 100.0, None, 30.0, None, 130.0],
    ]
    extraction = extract([Grid("ОСВ", rows)])
    document = extraction.documents[0]
    assert [r.code for r in document.rows] == ["01", "60"]
    assert all(r.parent is None for r in document.rows)
    # The last section's subtotal is not the whole: no totals, and that is information.
    assert document.totals is None
    assert [w.code for w in document.warnings] == ["NO_TOTALS"]
    assert extraction.status == "done"
    assert is_section_heading("Раздел II. Расчеты") and not is_section_heading("Разделитель")
    assert is_section_totals("Итого по разделу III") and not is_section_totals("Итого по счету")
