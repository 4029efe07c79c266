"""Captions as word sets: synonyms, abbreviations and word order, header rows composed."""

from __future__ import annotations

import datetime

import pytest

from document_extraction.captions import (
    DATE_WORD,
    caption_vocabulary,
    compose,
    is_column_number_row,
    read_caption,
    words_of,
)
from document_extraction.header_repeats import HeaderRepeats
from document_extraction.text import norm


@pytest.mark.parametrize(
    "caption",
    [
        "Сальдо на начало периода, Дебет",
        "Сальдо Дт на начало",
        "Нач. сальдо Дт",
        "Начальное сальдо Дт",
        "Остаток на начало (дебет)",
        "ДЕБЕТ САЛЬДО НА НАЧАЛО",
        "Входящее сальдо Д-т",
        "Сальдо на\nначало периода Дт",
    ],
)
def test_one_meaning_in_many_wordings(caption: str) -> None:
    assert {"сальдо", "начало", "дебет"} <= words_of(norm(caption))


def test_turnover_sides_and_service_words() -> None:
    assert words_of(norm("Сумма по кредиту")) == {"сумма", "кредит"}
    assert words_of(norm("Об. Кт")) == {"оборот", "кредит"}
    assert words_of(norm("Обороты за период")) == {"оборот", "период"}
    assert words_of(norm("Кол-во")) == {"количество"}
    assert DATE_WORD in words_of(norm("Сальдо на 01.01.2025"))


@pytest.mark.parametrize("caption", ["О-Т", "4-Т", "а-т", "Л-Т", "О-ТВ ВАЛЮТЕ"])
def test_a_debits_д_misread_in_its_short_form_is_found_again_as_a_guess(caption: str) -> None:
    # A scan's "Д-Т" with its Д read as О, 4, а or Л: no caption says these otherwise.
    found, guessed = read_caption(norm(caption), caption_vocabulary(["дебет", "кредит"]))
    assert "дебет" in found
    assert "кредит" not in found
    assert guessed
    assert "дебет" not in words_of(norm(caption))  # read exactly, it is no caption


def test_a_zero_read_for_the_letter_o_of_a_short_caption_word_is_found_again_as_a_guess() -> None:
    # "Об." read as "0б": read exactly, a number and a letter (a sub-item "1б" looks so).
    found, guessed = read_caption(norm("0б за период"), caption_vocabulary(["дебет", "кредит"]))
    assert "оборот" in found
    assert guessed
    assert "оборот" not in words_of(norm("0б за период"))


def test_two_caption_words_read_as_one_with_one_misread_are_found_again_as_a_guess() -> None:
    # "Пополнение/Кредит" with "/К" read as "Ж": one word read exactly, one misread.
    vocabulary = caption_vocabulary(["дебет", "кредит", "пополнение"])
    found, guessed = read_caption(norm("ПополнениеЖредит"), vocabulary)
    assert found == {"пополнение", "кредит"}
    assert guessed


def test_merged_group_captions_are_carried_to_the_columns_below_them() -> None:
    rows = [
        ["Счет", "Сальдо на начало периода", None, "Обороты за период", None],
        [None, "Дебет", "Кредит", "Дебет", "Кредит"],
    ]
    columns = {c.index: c for c in compose(rows, 0, 1)}
    assert columns[0].own == {"счет"}
    assert columns[2].own == {"кредит"}
    assert {"сальдо", "начало"} <= columns[2].above
    assert columns[4].above == {"оборот", "период"}


def test_a_title_line_above_the_header_is_not_a_group_caption() -> None:
    rows = [
        ["Обороты счета 60 за январь 2025 г.", None, None],
        ["Субконто", "Дебет", "Кредит"],
    ]
    columns = {c.index: c for c in compose(rows, 0, 1)}
    assert columns[1].above == frozenset()
    assert columns[0].above  # its own cell above it still counts


def test_a_group_caption_stops_where_nothing_is_named_below() -> None:
    rows = [
        ["Счет", "Оборот Дт", None, "Оборот Кт"],
        [None, None, None, None],
    ]
    columns = {c.index: c for c in compose(rows, 0, 1)}
    assert 2 not in columns


def test_column_number_rows() -> None:
    assert is_column_number_row([1, 2, 3, 4, 5, 6, 7, 8])
    assert is_column_number_row(["1", "2", "3", None, "4"])
    assert is_column_number_row([0.0, None, 3.0, 4.0, 5.0, 6.0])  # a level column before it
    assert not is_column_number_row([1, 2])
    assert not is_column_number_row(["01", 1000.0, 2000.0])
    assert not is_column_number_row([datetime.date(2025, 1, 1), 2, 3, 4])
    # OCR misread a few of a long run; a short run must be all there.
    assert is_column_number_row(["1", "2", "3", "4", "5", "6", "Я", "8", "9", "10", "3", "Ну"])
    assert not is_column_number_row(["1", "2", "Я"])
    assert not is_column_number_row(["1", "Кол-во", "3", "4", "5", "6", "7"])
    # A scan read two narrow columns' numbers as one cell: each is its column's.
    assert is_column_number_row(["1", "2", "3 4", "5"])
    assert is_column_number_row(["1", "2", "3", "4", "5", "6", "7", "8", "9", "1 0", "У", "12"])
    # OCR lost "1" and "5" altogether; a level column before the run holds "0".
    assert is_column_number_row([None, "0", None, "2", "3", "4", None, "6", "7", "8"])
    assert not is_column_number_row([None, "0", None, "2", "3", "9", None, "6", "1", "8"])
    assert not is_column_number_row(["1", "2", "3 Сумма", "5"])


def test_a_header_repeated_with_its_captions_wrapped_otherwise_is_known_again() -> None:
    rows: list[list[str | None]] = [
        ["Субконто", "Остаток\nна начало", None, "Обороты\nза период", None],
        [None, "Дт", "Кт", "Дт", "Кт"],
        ["Колесо", "10,00", None, "5,00", None],
        # The same header where a page repeats it, each caption's lines on lines of their own.
        ["Субконто", "Остаток", None, "Обороты", None],
        [None, "на начало", None, "за период", None],
        [None, "Дт", "Кт", "Дт", "Кт"],
        ["Фанера", "20,00", None, "6,00", None],
        ["Остаток", "на начало", None, None, None],  # words of another column's caption
        [None, "Остаток", None, None, None],  # one cell: a name is no header
    ]
    repeats = HeaderRepeats(rows, 0, 1)
    assert [row in repeats for row in rows[2:]] == [
        False, True, True, True, False, False, False,
    ]  # fmt: skip


def test_a_header_repeated_with_the_level_column_printed_on_it_is_known_again() -> None:
    rows: list[list[str | None]] = [
        ["0", "№", "Счет", "Сальдо на начало", None],
        ["0", None, None, "Дт", "Кт"],
        ["0", "1", "01", "10,00", None],
        ["0", "№", "Счет", "Сальдо на начало", None],
        ["0", None, None, "Дт", "Кт"],
        ["1", "2", "01.1", "10,00", None],
    ]
    repeats = HeaderRepeats(rows, 0, 1)
    assert [row in repeats for row in rows[2:]] == [False, True, True, False]


def test_a_header_repeated_with_a_caption_misread_and_the_level_read_otherwise_is_known() -> None:
    # OCR read the level mark and "№" of the header as "ON2", of its repeat as "0 №"; "п/п"
    # as "n/n" once, and "Щ" as "Ш".
    rows: list[list[str | None]] = [
        ["ON2", "n/n", "СЧЕТ", "ВХОДЯЩЕЕ\nСАЛЬДО", None, "ОБОРОТ ЗА\nПЕРИОД", None, "ИСХОДЯЩЕЕ"],
        [None, None, None, "Д-т", "К-т", "Д-т", "К-т", "Д-т"],
        ["0", "1", "01 Основные средства", "10,00", None, "5,00", None, "15,00"],
        ["0 №", "п/п", "СЧЕТ", "ВХОДЯЩЕЕ", None, "ОБОРОТ ЗА", None, "ИСХОДЯШЕЕ"],
        ["0", None, None, "САЛЬДО", None, "ПЕРИОД", None, None],
        ["1", "2", "01.01 Основные средства", "10,00", None, "5,00", None, "15,00"],
        # Caption words misread in a name, with no other caption beside: a row.
        ["0", None, "Исходяшее сырье", None, None, None, None, None],
        ["0", "3", "Сальдо", "Прочее", None, None, None, None],
        # Dashes for nothing are no caption, though "д-т" holds one; a row number of one
        # digit read into a name.
        ["0", None, "4 Прочие доходы", "-", None, "-", None, "-"],
    ]
    repeats = HeaderRepeats(rows, 0, 1)
    assert [row in repeats for row in rows[2:]] == [False, True, True, False, False, False, False]


def test_a_word_broken_over_two_caption_rows_is_one_word() -> None:
    rows = [["Счет", "Показа-", "Сальдо"], [None, "тели", "Дебет"]]
    columns = compose(rows, 0, 1)
    assert columns[1].own == frozenset({"показатели"})


def test_a_header_read_again_through_ocr_misreads_is_known_again() -> None:
    rows: list[list[str | None]] = [
        ["№п/п", "счет", "начальное", None, "обороты", None],
        [None, None, "сумма по дебету", "суммапо кредиту", "сумма по дебету", "сумма по кредиту"],
        ["1", "01 Основные средства", "0,00", "407539,70", "425022,20", "80111,50"],
        # Spaces lost and found again, and one caption misread past knowing.
        ["№ п/п", "счет", "начальное", None, "обороты", None],
        [None, None, "суммапо дебету", "сумма по кредиту", "суммапо дебету", "суммапо кредиту"],
        ["ONe", "cчет", "начальное", None, "обороты", None],
        # A misread caption among amounts, and a name of caption words, are rows.
        ["ONe", "счет", "407539,70", None, "обороты", None],
        ["Дебет", "сумма", None, None, None, None],
    ]
    repeats = HeaderRepeats(rows, 0, 1)
    assert [row in repeats for row in rows[2:]] == [False, True, True, True, False, False]


def test_a_header_repeated_with_a_letter_of_a_caption_read_as_a_digit_is_known_again() -> None:
    # OCR read "Об." as "O6." or "06.": a digit or two among a caption's words are letters
    # misread; a number of three digits, or a cell of digits alone, is no caption.
    rows: list[list[str | None]] = [
        ["Субконто", "Сальдо деб. на нач. периода", "Об. деб. за период", "Об. кред. за период"],
        ["Болт М12х60", "49175,70", "(1159,60)", "9637,90"],
        ["Субконто", "Сальдо деб. на нач. периода", "O6. деб. за период", "Об. кред. за период"],
        ["Субконто", "Сальдо деб. на нач. периода", "06. деб. за период", "Об. кред. за период"],
        ["Субконто", "Сальдо деб. на нач. периода", "367 деб. за период", "Об. кред. за период"],
        ["Субконто", "Сальдо деб. на нач. периода", "1159,60", "Об. кред. за период"],
    ]
    repeats = HeaderRepeats(rows, 0, 0)
    assert [row in repeats for row in rows[1:]] == [False, True, True, False, False]


def test_a_header_repeated_with_a_word_beside_its_date_misread_is_known_again() -> None:
    # "ДТ" beside the date read as "АТ" where a page repeats the header: the date is read
    # exactly, the word as OCR may misread it. A date the header does not hold is no repeat.
    rows: list[list[str | None]] = [
        ["Субконто", "Сальдо на 01.01.2025 Дт", "Сальдо на 31.12.2025 Дт"],
        ["Болт М12х60", "49175,70", "9637,90"],
        ["Субконто", "Сальдо на 01.01.2025 Дт", "Сальдо на 31.12.2025 Ат"],
        ["Субконто", "Сальдо на 01.01.2025 Дт", "Сальдо на 31.12.2026 Дт"],
    ]
    repeats = HeaderRepeats(rows, 0, 0)
    assert [row in repeats for row in rows[1:]] == [False, True, False]


def test_a_long_row_of_column_numbers_repeated_with_its_first_number_misread_is_known() -> None:
    rows: list[list[str | None]] = [
        ["№", "Субконто", "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"],
        ["1", "2", "3", "4", "5", "6", "7", "8"],
        ["1", "ОАО «Керамин»", "0,00", "5,00", "1,00", "2,00", "3,00", "4,00"],
        ["rt", "2", "3", "д", "5", "6", "7", "8"],  # "1" and "4" misread
        ["rt", "2", "3"],  # too short a run to tell
    ]
    repeats = HeaderRepeats(rows, 0, 1)
    assert [row in repeats for row in rows[2:]] == [False, True, False]
