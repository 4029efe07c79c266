"""Cells as a page prints them: everything is text, numbers included; OCR adds its misreads."""

from __future__ import annotations

import pytest

from document_extraction import Grid, extract
from document_extraction.captions import words_of
from document_extraction.layouts.trial_balance.header import find_osv_header
from document_extraction.layouts.trial_balance.levels import level_column
from document_extraction.numbers import parse_amount_text
from document_extraction.text import clean, is_counter, norm, title_cells
from document_extraction.titles import currency_in
from recognition_contract import TrialBalance


@pytest.mark.parametrize(
    ("cell", "counter"),
    [("0", True), ("1", True), ("125", True), (3.0, True), ("01 Основные", False), ("1250", False)],
)
def test_a_row_number_or_level_is_a_counter(cell: str | float, counter: bool) -> None:
    assert is_counter(cell) is counter


def test_a_title_line_beside_a_printed_level_column_is_its_text() -> None:
    assert title_cells([None, "0", "ООО «Альфа»", None]) == ["ООО «Альфа»", None]


def test_an_outline_level_read_into_the_title_line_is_not_the_titles() -> None:
    rows = [["0 Оборотно-сальдовая ведомость"], *WRAPPED_HEADER, ["01 Основные средства", "1,00",
            "-", "-", "-", "1,00", "-"]]  # fmt: skip
    (document,) = extract([Grid("p", rows, kind="page", page=1)]).documents
    assert document.title == "Оборотно-сальдовая ведомость"


# The last lines of wrapped captions a page without cell borders gave a row of their own.
WRAPPED_HEADER: list[list[str | None]] = [
    ["Счет", "деб. сальдо", "кред. сальдо", "деб. обороты", "кред. обороты", "деб. сальдо",
     "кред. сальдо"],
    [None, "на начало", "на начало", "за", "за", "на конец", "на конец"],
    [None, "периода", "периода", "период", "период", "периода", "периода"],
]  # fmt: skip


def test_the_last_lines_of_wrapped_captions_are_the_headers_not_a_row() -> None:
    body = [["01 Основные средства", "1,00", "-", "-", "-", "1,00", "-"]]
    header = find_osv_header([*WRAPPED_HEADER[:2], *WRAPPED_HEADER[2:], *body])
    assert header is not None
    assert (header.first_row, header.last_row) == (0, 2)
    # A row of names under a header, no word in a money column: the body's.
    header = find_osv_header([*WRAPPED_HEADER[:2], ["Контрагенты", None, None], *body])
    assert header is not None
    assert header.last_row == 1


def test_a_level_column_printed_as_digits_gives_levels() -> None:
    rows = [["0", "01"], ["1", "01.1"], ["1", "01.2"], ["0", "10"], ["1", "10.1"]]
    assert level_column(rows, 0, 1) == {0: 0, 1: 1, 2: 1, 3: 0, 4: 1}


def test_a_signature_line_below_the_table_in_the_level_column_leaves_its_levels() -> None:
    rows = [["0", "01"], ["1", "01.1"], ["0", "10"], ["1", "10.1"], ["Исполнитель: Иванова", None]]
    assert level_column(rows, 0, 1) == {0: 0, 1: 1, 2: 0, 3: 1}
    # Text among the levels: no level column.
    rows.insert(2, ["Итого по 01", "01"])
    assert level_column(rows, 0, 1) == {}


def test_a_level_ocr_read_as_marks_leaves_the_level_column_and_its_quantity_row_no_row() -> None:
    rows = [["0", "10", "Материалы"], ["1", "10.1", "Сырье"], ["ie}", "Количество", None],
            ["0", "41", "Товары"], ["1", "41.1", "Товары на складах"]]  # fmt: skip
    assert level_column(rows, 0, 1) == {0: 0, 1: 1, 2: 0, 3: 0, 4: 1}
    money = ["100,00", "-", "-", "-", "100,00", "-"]
    grid_rows = [
        ["Уровень", "Счет", "Наименование", "Сальдо на начало", None, "Обороты", None,
         "Сальдо на конец", None],
        [None, None, None, "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"],
        ["0", "10", "Материалы", *money],
        ["1", "10.1", "Сырье", *money],
        ["ie}", "Количество", None, "3452", "-", "-", "-", "3452", "-"],
        ["0", "41", "Товары", *money],
        ["1", "41.1", "Товары на складах", *money],
    ]  # fmt: skip
    (document,) = extract([Grid("p", grid_rows, kind="page", page=1)]).documents
    assert [row.code for row in document.rows] == ["10", "10.1", "41", "41.1"]


def test_a_level_ocr_misread_is_the_next_rows_and_one_with_a_speck_is_read() -> None:
    # The first contract of a counterparty: its "2" read as "и."; its sibling follows.
    # A level read with a speck after it ("1.") is that level.
    rows = [["0", "62.01"], ["1.", "Альфа ООО"], ["и.", "Договор № 7"], ["2", "Договор № 12"],
            ["1", "Бета ООО"], ["2", "Основной договор"]]  # fmt: skip
    assert level_column(rows, 0, 1) == {0: 0, 1: 1, 2: 2, 3: 2, 4: 1, 5: 2}


def test_a_row_number_column_is_no_level_column() -> None:
    rows = [["1", "01"], ["2", "10"], ["3", "20"], ["4", "41"]]
    assert level_column(rows, 0, 1) == {}


@pytest.mark.parametrize("dash", ["—", "-", "=", "_", "~", "--", "–"])
def test_a_dash_for_nothing_as_a_scan_reads_it_is_an_empty_cell(dash: str) -> None:
    amount = parse_amount_text(dash)
    assert amount.value is None and amount.problem is None


@pytest.mark.parametrize("zero", ["O", "o", "О", "о"])
def test_a_zero_alone_in_its_cell_read_as_the_letter_o_is_zero_less_surely(zero: str) -> None:
    amount = parse_amount_text(zero)
    assert amount.value == 0 and amount.problem is None
    assert amount.penalty > parse_amount_text("0").penalty
    # Not in a word or a number: "О1" or "Оплата" are no zero.
    assert parse_amount_text(zero + "1").value is None


def test_a_dash_before_an_amount_is_still_its_sign() -> None:
    assert str(parse_amount_text("-1 234,50").value) == "-1234.50"


def test_a_value_wrapped_at_its_hyphen_keeps_the_hyphen_a_caption_is_one_word() -> None:
    assert clean("Комиссия за расчетно-\nкассовое обслуживание") == (
        "Комиссия за расчетно-кассовое обслуживание"
    )
    assert norm("ПОКАЗА-\nТЕЛИ") == "показатели"


@pytest.mark.parametrize("misread", ["АТ", "Ar", "AT"])
def test_a_bold_dt_misread_is_a_debit_caption(misread: str) -> None:
    assert "дебет" in words_of(norm(f"{misread} сальдо на начало"))


@pytest.mark.parametrize("misread", ["ЮТ", "Kr"])
def test_a_kt_misread_is_a_credit_caption(misread: str) -> None:
    # "К-Т" with its К and hyphen read into one letter; "КТ" with its Т read as r.
    assert "кредит" in words_of(norm(misread))


@pytest.mark.parametrize("misread", ["ННН", "WHH", "UHH"])
def test_an_inn_misread_is_a_tax_id_caption(misread: str) -> None:
    assert words_of(norm(misread)) == {"инн"}


def test_a_bold_ob_misread_is_a_turnover_caption() -> None:
    assert "оборот" in words_of(norm("КТ ОВ. ЗА ПЕРИОД"))


@pytest.mark.parametrize(
    ("line", "code"),
    [("Валюта: ВУМ", "BYN"), ("Валюта: BYM", "BYN"), ("Валюта: RUВ", "RUB"), ("Валюта: XYZ", None)],
)
def test_a_currency_code_misread_by_one_letter_is_the_code(line: str, code: str | None) -> None:
    assert currency_in(line) == code


def test_a_name_wrapped_onto_the_line_of_its_indicator_row_below_is_the_names() -> None:
    # A page prints "Договор № 12/24 от" wrapped in its cell, "15.01.2024" on the next line:
    # the line of the row's tax-accounting figures (НУ), which is no row of its own.
    header = ["Субконто", "Показатели", "Сальдо на начало Дт", "Сальдо на начало Кт",
              "Обороты Дт", "Обороты Кт", "Сальдо на конец Дт", "Сальдо на конец Кт"]  # fmt: skip
    amounts = ["10,00", "-", "5,00", "3,00", "12,00", "-"]
    rows: list[list[str | None]] = [
        header,
        ["Договор № 12/24 от", "БУ", *amounts],
        ["15.01.2024", "НУ", *amounts],
        ["Основной договор", "БУ", *amounts],
        [None, "НУ", *amounts],
    ]
    (document,) = extract([Grid("p", rows, kind="page", page=1)]).documents
    assert isinstance(document, TrialBalance)
    assert [row.name for row in document.rows] == [
        "Договор № 12/24 от 15.01.2024",
        "Основной договор",
    ]
