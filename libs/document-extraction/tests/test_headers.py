"""Table headers found from their text: merged captions, column sets, statement banks."""

from __future__ import annotations

import datetime

import pytest

from document_extraction.layouts.statement.header import find_statement_header
from document_extraction.layouts.trial_balance.header import find_osv_header
from recognition_contract import MONEY_FIELDS

CAPTIONS = [
    "Сальдо на начало периода",
    None,
    "Обороты за период",
    None,
    "Сальдо на конец периода",
    None,
]
SIDES = ["Дебет", "Кредит"] * 3


def test_two_row_header_with_values_only_in_the_top_left_of_merges() -> None:
    rows = [
        ["ООО «Альфа»"],
        ["Оборотно-сальдовая ведомость за январь 2025 г."],
        [],
        ["Счет", "Наименование счета", *CAPTIONS],
        [None, None, *SIDES],
        ["01", "Основные средства", 100.0, None, None, None, 100.0, None],
    ]
    header = find_osv_header(rows)
    assert header is not None
    assert (header.first_row, header.last_row) == (3, 4)
    assert (header.label_col, header.name_col) == (0, 1)
    assert header.money == {
        "opening_debit": 2,
        "opening_credit": 3,
        "turnover_debit": 4,
        "turnover_credit": 5,
        "closing_debit": 6,
        "closing_credit": 7,
    }
    assert header.confidence == 100


def test_upp_caption_one_account_column_and_indicator_column() -> None:
    rows = [
        ["Счет", "Показа-\nтели", "Сальдо на начало периода", None, "Оборот за период", None,
         "Сальдо на конец периода", None],
        [None, None, *SIDES],
    ]  # fmt: skip
    header = find_osv_header(rows)
    assert header is not None
    assert header.label_col == 0
    assert header.name_col is None
    assert header.indicator_col == 1
    assert header.money["turnover_debit"] == 4


def test_correspondent_columns_are_not_money_columns() -> None:
    rows = [
        ["Субконто", "Кор. счет", *CAPTIONS, "Обороты по кор. счетам", None],
        [None, None, *SIDES, "51", "60"],
    ]
    header = find_osv_header(rows)
    assert header is not None
    assert header.label_col == 0
    assert sorted(header.money.values()) == [2, 3, 4, 5, 6, 7]


def test_columns_in_another_order_are_still_found() -> None:
    rows = [
        [None, "Счет", "Сальдо на конец периода", None, "Сальдо на начало периода", None,
         "Обороты за период", None],
        [None, None, "Кредит", "Дебет", "Дебет", "Кредит", "Дебет", "Кредит"],
    ]  # fmt: skip
    header = find_osv_header(rows)
    assert header is not None
    assert header.label_col == 1
    assert header.money["closing_credit"] == 2
    assert header.money["closing_debit"] == 3
    assert header.money["opening_debit"] == 4


def test_no_header_in_a_letter() -> None:
    rows = [["Справка"], ["Сальдо на начало периода составляет 100 руб."]]
    assert find_osv_header(rows) is None
    assert find_statement_header(rows) is None


def test_statement_columns_of_different_banks() -> None:
    prior = ["Дата", "№ док", "Дебет", "Кредит", "Корреспондент", "УНП", "Счет корреспондента",
             "Банк корреспондента", "БИК", "Назначение платежа"]  # fmt: skip
    header = find_statement_header([["Выписка"], prior])
    assert header is not None
    assert header.row == 1
    assert header.columns == {
        "date": 0, "number": 1, "debit": 2, "credit": 3, "name": 4, "tax_id": 5,
        "account": 6, "bank": 7, "bic": 8, "purpose": 9,
    }  # fmt: skip
    belarusbank = ["Дата операции", "Номер документа", "Наименование корреспондента",
                   "УНП корреспондента", "Счет корреспондента", "Банк корреспондента",
                   "Списание (дебет)", "Поступление (кредит)", "Назначение платежа"]  # fmt: skip
    header = find_statement_header([belarusbank])
    assert header is not None
    assert (header.columns["debit"], header.columns["credit"], header.columns["name"]) == (6, 7, 2)
    signed = ["Дата", "Номер", "Сумма", "Контрагент", "УНП/ИНН контрагента", "Назначение платежа"]
    header = find_statement_header([signed])
    assert header is not None
    assert header.columns["amount"] == 2
    assert "debit" not in header.columns
    currency = ["Дата", "№ док", "Дебет", "Кредит", "Эквивалент дебет, BYN",
                "Эквивалент кредит, BYN", "Корреспондент", "Назначение платежа"]  # fmt: skip
    header = find_statement_header([currency])
    assert header is not None
    assert header.columns["debit_equivalent"] == 4
    assert header.columns["credit_equivalent"] == 5
    assert header.columns["debit"] == 2


def test_balance_captions_with_dates_are_placed_by_position() -> None:
    rows = [
        [
            "Счет",
            "Сальдо на 01.01.2025",
            None,
            "Обороты за период",
            None,
            "Сальдо на 31.03.2025",
            None,
        ],
        [None, *SIDES],
    ]
    header = find_osv_header(rows)
    assert header is not None
    assert (header.money["opening_debit"], header.money["closing_credit"]) == (1, 6)


def test_statement_amount_caption_over_debit_and_credit() -> None:
    rows = [
        ["Банк: ОАО «Приорбанк»"],
        ["Дата", "№ док.", "Сумма", None, "Наименование корреспондента", "Назначение платежа"],
        [None, None, "Дебет", "Кредит", None, None],
    ]
    header = find_statement_header(rows)
    assert header is not None
    assert (header.first_row, header.row) == (1, 2)
    assert (header.columns["debit"], header.columns["credit"]) == (2, 3)
    assert "amount" not in header.columns


def test_sub_captions_below_a_line_of_a_wrapped_caption_belong_to_the_header() -> None:
    # A page without cell borders set "валютирования" of «Дата валютирования» on a line of
    # its own, between the captions and the counterparty's sub-captions.
    rows = [
        ["Дата документа", "Дата", "№ док.", "Списание", "Приход", "Контрагент", None, None,
         "Назначение платежа"],
        [None, "валютирования", None, None, None, None, None, None, None],
        [None, None, None, None, None, "Наименование", "УНП", "Счет", None],
        ["28.06.2024", "01.07.2024", "84333", "-", "39136,43", "ОДО «Полимерстрой»", "322440630",
         "BY56ALFA30127354438580193300", "Оплата по счету № 140"],
    ]  # fmt: skip
    header = find_statement_header(rows)
    assert header is not None
    assert (header.first_row, header.row) == (0, 2)
    assert (header.columns["tax_id"], header.columns["account"]) == (6, 7)


@pytest.mark.parametrize(
    ("opening", "turnover", "closing"),
    [
        (["Сальдо Дт на начало", "Сальдо Кт на начало"], ["Оборот Дт", "Оборот Кт"],
         ["Сальдо Дт на конец", "Сальдо Кт на конец"]),
        (["Нач. сальдо Дт", "Нач. сальдо Кт"], ["Об. Дт", "Об. Кт"],
         ["Кон. сальдо Дт", "Кон. сальдо Кт"]),
        (["Входящий остаток, дебет", "Входящий остаток, кредит"],
         ["Сумма по дебету", "Сумма по кредиту"],
         ["Исходящий остаток, дебет", "Исходящий остаток, кредит"]),
    ],
)  # fmt: skip
def test_one_row_captions_in_any_word_order(
    opening: list[str], turnover: list[str], closing: list[str]
) -> None:
    rows = [["Счет", "Наименование", *opening, *turnover, *closing]]
    header = find_osv_header(rows)
    assert header is not None
    assert header.money == dict(zip(MONEY_FIELDS, range(2, 8), strict=True))


def test_turnover_sides_named_as_sums_under_a_group_caption() -> None:
    rows = [
        ["Счет", "Сальдо на начало", None, "Обороты за период", None, "Сальдо на конец", None],
        [None, "Дебет", "Кредит", "Сумма по дебету", "Сумма по кредиту", "Дебет", "Кредит"],
    ]
    header = find_osv_header(rows)
    assert header is not None
    assert (header.money["turnover_debit"], header.money["turnover_credit"]) == (3, 4)


def test_three_row_header_with_a_column_number_row() -> None:
    rows = [
        ["Счет", "Наименование", "Сальдо", None, None, None, None, None],
        [None, None, "на начало периода", None, "обороты", None, "на конец периода", None],
        [None, None, *SIDES],
        [1, 2, 3, 4, 5, 6, 7, 8],
        ["01", "Основные средства", 100.0, None, None, None, 100.0, None],
    ]
    header = find_osv_header(rows)
    assert header is not None
    assert (header.first_row, header.last_row) == (0, 3)
    assert header.money["closing_debit"] == 6
    assert (header.label_col, header.name_col) == (0, 1)


def test_a_header_whose_wrapped_captions_lie_on_rows_of_their_own_keeps_its_top_row() -> None:
    # A page without cell borders: each line of a wrapped caption is a row of its own, five
    # caption rows in all; «Счет» and «Наименование счета» stand on the top one only.
    rows = [
        ["Счет", "Наименование счета", "Сальдо", None, "Обороты", None, "Сальдо", None],
        [None, None, "на", None, "за", None, "на", None],
        [None, None, "начало периода", None, "период", None, "конец периода", None],
        [None, None, "Сумма по", "Сумма", "Сумма", "Сумма по", "Сумма", "Сумма по"],
        [None, None, "дебету", "по кредиту", "по дебету", "кредиту", "по дебету", "кредиту"],
        ["10", "Материалы", "100,00", None, "50,00", "30,00", "120,00", None],
    ]
    header = find_osv_header(rows)
    assert header is not None
    assert (header.first_row, header.label_col, header.name_col) == (0, 0, 1)


def test_name_before_code_and_a_row_number_column() -> None:
    rows = [
        ["№ п/п", "Наименование счета", "Код счета", *CAPTIONS],
        [None, None, None, *SIDES],
    ]
    header = find_osv_header(rows)
    assert header is not None
    assert (header.label_col, header.name_col) == (2, 1)


def test_a_date_caption_set_left_of_the_dates_a_page_put_in_the_next_column() -> None:
    rows = [
        ["Выписка из лицевого счета"],
        ["Дата документа", None, "Номер", "Дебет", "Кредит", "Назначение"],
        [None, "03.03.2025", "89497", None, "43847.74", "Оплата по счету № 457"],
        [None, "06.03.2025", "12789", "30142.66", None, "Комиссия банка"],
        ["Итого", None, None, "30142.66", "43847.74", None],
    ]
    header = find_statement_header(rows)
    assert header is not None
    assert header.columns["date"] == 1
    assert (header.columns["debit"], header.columns["credit"]) == (3, 4)


def test_statement_credit_caption_with_two_words_and_a_country_column() -> None:
    rows = [
        ["Дата операции", "№ док.", "БИК", "Банк корреспондента", "Страна корреспондента",
         "Корреспондент", "№ счета", "Списание/Дебет", "Пополнение/Кредит", "Назначение платежа"],
    ]  # fmt: skip
    header = find_statement_header(rows)
    assert header is not None
    assert header.columns == {
        "date": 0, "number": 1, "bic": 2, "bank": 3, "name": 5, "account": 6, "debit": 7,
        "credit": 8, "purpose": 9,
    }  # fmt: skip


def test_statement_direction_column_amount_columns_and_dates_chosen_by_the_body() -> None:
    rows = [
        ["Общие данные", None, None, None, "Данные о сумме операции", None, None],
        ["Номер счета", "Тип операции (пополнение/списание)", "Дата создания операции",
         "Дата транзакции", "Сумма операции в валюте операции", "Сумма в валюте счета",
         "Счет контрагента"],
        ["40802810800000056231", "Credit", None, datetime.date(2022, 9, 30), None, 100.0, None],
        ["40802810800000056231", "Debit", None, datetime.date(2022, 9, 30), 5.0, 5.0, "1"],
    ]  # fmt: skip
    header = find_statement_header(rows)
    assert header is not None
    assert header.row == 1
    assert header.direction_col == 1
    assert header.columns["date"] == 3
    assert header.columns["amount"] == 5
    assert header.columns["account"] == 6
    assert header.extra["own_account"] == 0


def test_the_statements_own_account_read_through_ocr_is_one_account_on_every_line() -> None:
    own = "BY90BAPB30126082297920193300"
    captions = ["Номер счета", "Дата", "№ док", "Сумма", "Наименование корреспондента", "IBAN"]
    lines = [
        [own, "03.12.2024", "19120", "-29413,12", "ООО «Сигма»", "BY95ALFA30122231870010270000"],
        # Look-alikes, and a digit lost under a speck: neither is another account.
        ["В\\90ВАРВЗ0126082297920193300", "04.12.2024", "68429", "41492,61", "ОДО «Поли»",
         "BY25PJCB30120000000000000000"],
        ["BY90BAPB3012608229° ‘920193300", "06.12.2024", "71473", "-38013,27", "ГП «Топ»",
         "BY66BAPB30124611658960164300"],
        [own, "08.12.2024", "83255", "-32974,84", "ЧУП «Агро»", "BY95ALFA30122231870010270000"],
    ]  # fmt: skip
    header = find_statement_header([captions, *lines])
    assert header is not None
    assert header.extra["own_account"] == 0
    assert header.columns["account"] == 5


def test_one_account_on_every_line_under_no_counterparty_caption_is_the_statements_own() -> None:
    own = "BY74BPSB30123080564900193300"
    captions = ["Номер счета", "Дата", "№ док.", "Дебет", "Кредит", "Корреспондент", "1ВАМ"]
    lines = [
        [own, "03.03.2024", "61410", "46860.77", None, "СООО «Белвест»", "BY77PJCB3012..."],
        [own, "04.03.2024", "61411", None, "120.00", "ООО «Альфа»", "BY12ALFA3012..."],
        [own, "05.03.2024", "61412", "15.00", None, "ЧУП «Бета»", "BY40BAPB3012..."],
    ]
    header = find_statement_header([captions, *lines])
    assert header is not None
    assert header.extra["own_account"] == 0
    assert "account" not in header.columns
    # Two lines are too few to tell the statement's account from one counterparty's.
    header = find_statement_header([captions, *lines[:2]])
    assert header is not None
    assert header.columns["account"] == 0


def test_english_and_machine_captions() -> None:
    rows = [
        ["amount", "operationDate", "transactionType", "details", "FROM_DATE"],
        [-2000.0, "18.09.2024", "Покупка", "Покупка AlmatyParking", "18.09.2023"],
        [9000.0, "17.09.2024", "Пополнение", "Пополнение", "18.09.2023"],
    ]
    header = find_statement_header(rows)
    assert header is not None
    assert header.columns["amount"] == 0
    assert header.columns["date"] == 1
    assert header.columns["purpose"] == 3
    nz = [["Date", "Unique Id", "Tran Type", "Cheque Number", "Payee", "Memo", "Amount"]]
    header = find_statement_header(nz)
    assert header is not None
    assert (header.columns["date"], header.columns["name"], header.columns["amount"]) == (0, 4, 6)
    assert header.direction_col == 2


def test_a_number_caption_read_together_with_the_sums_group_caption_is_the_numbers() -> None:
    # "№ док." and the group caption "Сумма" over the sides beside it, read into one cell.
    rows = [
        ["Дата", "№ док. Сумма", None, None, "Контрагент", "Назначение платежа"],
        [None, None, "Дебет", "Кредит", None, None],
        ["03.03.2025", "15", "100,00", None, "ООО «Альфа»", "Оплата"],
        ["04.03.2025", "16", None, "50,00", "ООО «Бета»", "Оплата"],
    ]
    header = find_statement_header(rows)
    assert header is not None
    assert header.columns == {
        "date": 0, "number": 1, "debit": 2, "credit": 3, "name": 4, "purpose": 5
    }  # fmt: skip


@pytest.mark.parametrize("rest", [None, "валюте счета"])
def test_a_number_caption_read_together_with_the_signed_sums_caption_is_the_numbers(
    rest: str | None,
) -> None:
    # "№ док" and "Сумма в" read into one cell over the numbers; the sums beside them have
    # no caption, or the rest of theirs ("валюте счета", which names a currency).
    rows = [
        ["Дата", "№ док Сумма в", rest, "Корреспондент", "Назначение платежа"],
        ["03.03.2025", "20999", "-52744,55", "ООО «Альфа»", "Оплата"],
        ["04.03.2025", "16843", "1224,89", "ООО «Бета»", "Оплата"],
        ["05.03.2025", "88375", "48090,88", "ООО «Гамма»", "Оплата"],
    ]
    header = find_statement_header(rows)
    assert header is not None
    assert header.columns == {"date": 0, "number": 1, "amount": 2, "name": 3, "purpose": 4}


def test_a_sums_caption_over_whole_sums_stays_the_sums() -> None:
    rows = [
        ["Дата", "№ док Сумма", "Примечание", "Корреспондент", "Назначение платежа"],
        ["03.03.2025", "52744", "1,5", "ООО «Альфа»", "Оплата"],
        ["04.03.2025", "1224", "2,5", "ООО «Бета»", "Оплата"],
    ]
    header = find_statement_header(rows)
    assert header is not None
    assert header.columns["amount"] == 1


def test_a_counterparty_column_whose_caption_went_unread_is_found_by_its_names() -> None:
    # "Получатель/Плательщик" read as one word, "ь/" as "ы": no caption names the column.
    rows = [
        ["Дата", "№ док.", "Сумма", "ПолучателыПлательщик", "УНП", "Назначение платежа"],
        ["03.03.2025", "15", "-100,00", "ООО «Альфа»", "190000001", "Оплата"],
        ["04.03.2025", "16", "50,00", "ИП Ковалёв А. Н.", "190000002", "Оплата"],
        ["05.03.2025", "17", "70,00", "0АО «Гамма»", "190000003", "Оплата"],
    ]
    header = find_statement_header(rows)
    assert header is not None
    assert header.columns["name"] == 3
    assert header.columns["purpose"] == 5


def test_a_name_caption_wrapped_into_the_band_of_the_group_captions_names_the_column() -> None:
    # "НАИМЕНОВАНИЕ СЧЕТА" wrapped: its first word stands in the band of "САЛЬДО", "ОБОРОТЫ".
    rows = [
        ["СЧЕТ", "НАИМЕНОВАНИЕ", "САЛЬДО НА НАЧАЛО", None, "ОБОРОТЫ", None, "САЛЬДО НА КОНЕЦ"],
        [None, "СЧЕТА", *SIDES],
        ["01", "Основные средства", 100.0, None, None, None, 100.0, None],
        ["02", "Амортизация", None, 30.0, None, 5.0, None, 35.0],
    ]
    header = find_osv_header(rows)
    assert header is not None
    assert (header.label_col, header.name_col) == (0, 1)


def test_a_tax_id_column_whose_caption_went_unread_is_found_by_its_check_digits() -> None:
    # "УНП" read as "yon"; the document numbers beside it are no taxpayer's numbers.
    rows = [
        ["Дата", "№ док.", "Сумма", "Наименование", "yon", "Назначение платежа"],
        ["06.12.2024", "65483", "20157,37", "ОАО «Керамин»", "257245662", "Возврат"],
        ["06.12.2024", "57710", "46891,58", "ООО «ТрансЛогистик»", "246027938", "Предоплата"],
        ["08.12.2024", "50494", "38364,18", "ООО «Ромашка и Ко»", "368588830", "Оплата"],
        ["09.12.2024", "2619", "409,02", "ООО «Евроопт-Снаб»", "170765614", "Оплата"],
    ]  # fmt: skip
    header = find_statement_header(rows)
    assert header is not None
    assert header.columns["tax_id"] == 4
    assert header.columns["number"] == 1


def test_a_bic_column_whose_caption_went_unread_is_found_by_its_codes() -> None:
    # "БИК" read as "BUK"; the codes themselves read with Cyrillic look-alikes or a mark.
    rows = [
        ["Дата", "Сумма", "УНП", "IBAN", "BUK", "Назначение платежа"],
        ["03.03.2025", "-100,00", "190000001", "BY40ALFA30121619100800197800", "ALFABY2X", "Оплата"],
        ["04.03.2025", "50,00", "190000002", "BY53AKBB30127208797920197800", "АКВВВУ2Х", "Оплата"],
        ["05.03.2025", "70,00", "190000003", "BY67PJCB30125122562100197800", "Р)СВВУ2Х", "Оплата"],
        ["06.03.2025", "80,00", "190000004", "BY53BPSB30125007903790197800", "BPSB BY2X", "Оплата"],
    ]  # fmt: skip
    header = find_statement_header(rows)
    assert header is not None
    assert header.columns["bic"] == 4
    assert header.columns["account"] == 3


def _statement_rows(captions: list[str], numbers: list[object]) -> list[list[object]]:
    day = datetime.date(2024, 6, 3)
    rows: list[list[object]] = [["Выписка по счету BY20ALFA30122658940010270000"], captions]
    for k, number in enumerate(numbers, start=1):
        rows.append([k, day, number, 100.0 * k, None, "ООО «Ромашка»", "Оплата"])
    return rows


@pytest.mark.parametrize(
    ("first", "numbers"),
    [
        ("№ п/п", ["4711", "815", None]),  # the document number column has a gap
        ("№", ["4711", "815", "97"]),  # a bare «№» that counts 1, 2, 3 beside «№ док»
        ("Порядковый номер", ["4711", "815", "97", "12", "8"]),
    ],
)
def test_a_column_counting_the_lines_is_not_the_document_number(
    first: str, numbers: list[object]
) -> None:
    captions = [first, "Дата", "№ док", "Дебет", "Кредит", "Контрагент", "Назначение"]
    header = find_statement_header(_statement_rows(captions, numbers))
    assert header is not None
    assert header.columns["number"] == 2
    assert header.extra.get("sequence") == 0
    assert 0 not in header.columns.values()


def test_a_sole_number_column_that_does_not_count_is_the_number() -> None:
    day = datetime.date(2024, 6, 3)
    rows: list[list[object]] = [
        ["Выписка по счету BY20ALFA30122658940010270000"],
        ["№", "Дата", "Дебет", "Кредит", "Контрагент", "Назначение"],
        *([number, day, 100.0, None, "ООО «Ромашка»", "Оплата"] for number in ("17", "3", "18")),
    ]
    header = find_statement_header(rows)
    assert header is not None and header.columns["number"] == 0
    assert "sequence" not in header.extra
