"""extract() end to end on small grids: each check failing on purpose, confidence, pages,
files without documents, and the contract schema."""

from __future__ import annotations

import copy
from datetime import date
from typing import Any

import pytest

from document_extraction import BBox, Extraction, Grid, NoDocumentFound, extract
from document_extraction.checks import AmountCell, amount_outliers
from recognition_contract import (
    AccountRef,
    Locator,
    Organisation,
    Period,
    locator_to_wire,
    to_wire,
    validate_result_file,
    warnings_to_wire,
)

CAPTIONS = [
    "Сальдо на начало периода",
    None,
    "Обороты за период",
    None,
    "Сальдо на конец периода",
    None,
]
SIDES = ["Дебет", "Кредит"] * 3
TITLE = [
    ["ООО «Промтехснаб», УНП 192745313"],
    ["Оборотно-сальдовая ведомость за 1 квартал 2025 г."],
    [],
    ["Счет", "Наименование счета", *CAPTIONS],
    [None, None, *SIDES],
]
# Rows 6..: balanced, parents equal their children.
BODY = [
    ["01", "Основные средства", 1000.0, None, None, None, 1000.0, None],
    ["60", "Расчеты с поставщиками", None, 700.0, 500.0, 300.0, None, 500.0],
    ["60.1", "Поставщики", None, 700.0, 400.0, 300.0, None, 600.0],
    ["60.2", "Авансы выданные", None, None, 100.0, None, 100.0, None],
    ["80", "Уставный капитал", None, 300.0, None, 500.0, None, 800.0],
    ["51", "Расчетные счета", None, None, 300.0, None, 300.0, None],
]
TOTALS = ["Итого", None, 1000.0, 1000.0, 800.0, 800.0, 1400.0, 1300.0]


def osv(body: list[list[Any]] | None = None, totals: list[Any] | None = None) -> list[list[Any]]:
    return [*TITLE, *copy.deepcopy(body if body is not None else BODY), list(totals or TOTALS)]


def codes(extraction: Extraction) -> list[tuple[str, dict[str, Any] | None]]:
    return [(w.code, where(w.locator)) for d in extraction.documents for w in d.warnings]


def where(locator: Locator | None) -> dict[str, Any] | None:
    return locator_to_wire(locator) if locator is not None else None


def wrap(extraction: Extraction) -> dict[str, Any]:
    return {
        "schema_version": "2.0",
        "job_id": "0f1e2d3c-4b5a-4968-a7b6-c5d4e3f2a1b0",
        "file_id": "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
        "status": extraction.status,
        "service": {"name": "tabular-parser", "version": "0.1.0"},
        "group_schema": extraction.group_schema,
        "documents": [to_wire(document, 2) for document in extraction.documents],
        "warnings": warnings_to_wire(extraction.warnings, 2),
    }


def test_consistent_balance_is_done() -> None:
    balanced = [
        ["01", "Основные средства", 1000.0, None, None, None, 1000.0, None],
        ["60", "Расчеты с поставщиками", None, 700.0, 500.0, 300.0, None, 500.0],
        ["60.1", "Поставщики", None, 700.0, 400.0, 300.0, None, 600.0],
        ["60.2", "Авансы выданные", None, None, 100.0, None, 100.0, None],
        ["80", "Уставный капитал", None, 300.0, None, None, None, 300.0],
        ["51", "Расчетные счета", None, None, 300.0, 500.0, None, 200.0],
    ]
    totals = ["Итого", None, 1000, 1000, 800, 800, 1000, 1000]
    extraction = extract([Grid("TDSheet", osv(balanced, totals))])
    assert codes(extraction) == []
    assert extraction.status == "done"
    document = extraction.documents[0]
    assert [(r.code, r.level, r.parent) for r in document.rows] == [
        ("01", 0, None), ("60", 0, None), ("60.1", 1, 2), ("60.2", 1, 2), ("80", 0, None),
        ("51", 0, None),
    ]  # fmt: skip
    assert document.period == Period(date(2025, 1, 1), date(2025, 3, 31), "за 1 квартал 2025 г.")
    assert document.organisation == Organisation("ООО «Промтехснаб»", "192745313")
    validate_result_file(wrap(extraction))


def test_row_balance_mismatch_points_at_the_row() -> None:
    body = copy.deepcopy(BODY)
    body[0][6] = 999.0  # 1000 + 0 - 0 printed as 999
    found = codes(extract([Grid("TDSheet", osv(body))]))
    assert ("ROW_BALANCE_MISMATCH", {"sheet": "TDSheet", "row": 6}) in found


def test_parent_not_equal_to_children_points_at_parent_cell() -> None:
    body = copy.deepcopy(BODY)
    body[1][4] = 600.0  # 60 turnover debit, children sum to 500
    body[1][7] = 400.0  # keep the row itself balanced
    extraction = extract([Grid("TDSheet", osv(body))])
    assert ("PARENT_SUM_MISMATCH", {"sheet": "TDSheet", "row": 7, "column": "E"}) in codes(
        extraction
    )
    assert extraction.status == "needs_check"
    validate_result_file(wrap(extraction))


def test_totals_not_equal_to_top_level_rows() -> None:
    totals = list(TOTALS)
    totals[3] = 1001.0
    found = codes(extract([Grid("TDSheet", osv(totals=totals))]))
    assert ("TOTALS_MISMATCH", {"sheet": "TDSheet", "row": 12, "column": "D"}) in found
    assert ("DEBIT_CREDIT_MISMATCH", {"sheet": "TDSheet", "row": 12}) in found


def test_parent_with_collapsed_balance_is_accepted() -> None:
    body = copy.deepcopy(BODY)
    body[1][7] = 500.0  # 60: closing credit 600 - debit 100 collapsed into one side
    found = [c for c, _ in codes(extract([Grid("TDSheet", osv(body))]))]
    assert "PARENT_SUM_MISMATCH" not in found


def test_text_amounts_and_precision() -> None:
    body = copy.deepcopy(BODY)
    body[0][2] = "1\u00a0000,00"
    body[0][6] = "1 000,004"
    body[4][3] = "три сотни"
    extraction = extract([Grid("TDSheet", osv(body))])
    document = extraction.documents[0]
    assert document.rows[0].opening_debit == "1000.00"
    assert document.rows[0].closing_debit == "1000.00"
    assert document.rows[0].confidence == 99
    found = codes(extraction)
    assert ("AMOUNT_PRECISION", {"sheet": "TDSheet", "row": 6, "column": "G"}) in found
    assert ("AMOUNT_UNREADABLE", {"sheet": "TDSheet", "row": 10, "column": "D"}) in found
    assert document.rows[4].opening_credit is None
    assert document.rows[4].confidence == 70
    validate_result_file(wrap(extraction))


def test_numeric_codes_with_and_without_formats() -> None:
    body = copy.deepcopy(BODY)
    body[0][0] = 1.0
    with_format = extract([Grid("TDSheet", osv(body), number_formats={(5, 0): "00"})])
    without = extract([Grid("TDSheet", osv(body))])
    assert with_format.documents[0].rows[0].code == "01"
    assert without.documents[0].rows[0].code == "01"
    assert with_format.documents[0].rows[0].confidence == 100
    assert without.documents[0].rows[0].confidence < 100
    assert without.documents[0].confidence < with_format.documents[0].confidence


def test_quantity_rows_and_signature_are_not_rows() -> None:
    body = copy.deepcopy(BODY)
    body.insert(1, ["Количество", None, 5.0, None, 2.0, None, 7.0, None])
    rows = [*osv(body), [], ["Главный бухгалтер", None, "(подпись)"]]
    document = extract([Grid("TDSheet", rows)]).documents[0]
    assert [r.code for r in document.rows] == ["01", "60", "60.1", "60.2", "80", "51"]
    assert document.locator == Locator(sheet="TDSheet", row=1, row_end=13)


def test_thousands_and_outline_levels() -> None:
    rows = osv()
    rows.insert(2, ["Единица измерения: тыс. бел. руб."])
    outline = {8: 1, 9: 1}  # 60.1 and 60.2 one level below 60
    extraction = extract([Grid("TDSheet", rows, outline_levels=outline)])
    document = extraction.documents[0]
    assert (document.unit, document.currency) == ("thousands", "BYN")
    assert [r.level for r in document.rows] == [0, 0, 1, 1, 0, 0]
    assert document.rows[0].opening_debit == "1000.00"


def test_ocr_confidence_and_page_locators() -> None:
    rows = osv()
    confidence: list[list[float | None]] = [[None] * 8 for _ in rows]
    confidence[5] = [55.0, 90.0, 88.5, None, None, None, 92.0, None]
    boxes: list[list[BBox | None]] = [[None] * 8 for _ in rows]
    boxes[5] = [BBox(0.05, 0.30, 0.10, 0.32), None, BBox(0.40, 0.30, 0.50, 0.33)] + [None] * 5
    grid = Grid("page 1", rows, kind="page", page=2, cell_confidence=confidence, cell_boxes=boxes)
    extraction = extract([grid])
    document = extraction.documents[0]
    row = document.rows[0]
    assert row.confidence == 55
    assert row.locator == Locator(page=2, row=6, bbox=BBox(0.05, 0.30, 0.50, 0.33))
    assert document.locator == Locator(page=2)
    assert document.confidence < 100
    validate_result_file(wrap(extraction))


def test_amounts_read_unsurely_that_the_arithmetic_confirms_leave_the_row_sure() -> None:
    def first_row_confidence(totals: list[Any]) -> float:
        rows = osv(totals=totals)
        confidence: list[list[float | None]] = [[None] * 8 for _ in rows]
        confidence[5] = [95.0, 97.0, 40.0, None, None, None, 45.0, None]  # "01", two dashes
        grid = Grid("p", rows, kind="page", page=1, cell_confidence=confidence)
        return extract([grid]).documents[0].rows[0].confidence

    consistent = ["Итого", None, 1000.0, 1000.0, 800.0, 800.0, 1300.0, 1300.0]
    # The row balances, and Итого is the sum of the rows: the amounts are right.
    assert first_row_confidence(consistent) == 95
    # Итого disagrees with the rows: an amount may be misread, this one as any.
    assert first_row_confidence([*consistent[:2], 1001.0, *consistent[3:]]) == 40


def test_an_amount_whose_decimal_comma_ocr_lost_is_read_where_only_so_the_row_balances() -> None:
    body = copy.deepcopy(BODY)
    body[0][2:] = ["1 000,00", None, "25,50", None, "102550", None]  # 1025,50 printed
    rows = osv(body)
    grid = Grid("p", rows, kind="page", page=1, cell_confidence=[[90.0] * 8 for _ in rows])
    (document,) = extract([grid]).documents
    assert document.rows[0].closing_debit == "1025.50"
    assert ("AMOUNT_SEPARATOR_LOST", {"page": 1, "row": 6}) in [
        (w.code, where(w.locator)) for w in document.warnings
    ]
    # A workbook's cells are no OCR reading: nothing is read otherwise.
    (document,) = extract([Grid("Лист1", rows)]).documents
    assert document.rows[0].closing_debit == "102550.00"


def test_amounts_of_one_row_whose_commas_ocr_lost_are_read_where_only_so_it_balances() -> None:
    body = copy.deepcopy(BODY)
    body[0][2:] = ["1 000,00", None, "2550", None, "102550", None]  # 25,50 and 1025,50 printed
    rows = osv(body)
    grid = Grid("p", rows, kind="page", page=1, cell_confidence=[[90.0] * 8 for _ in rows])
    (document,) = extract([grid]).documents
    assert (document.rows[0].turnover_debit, document.rows[0].closing_debit) == (
        "25.50",
        "1025.50",
    )
    lost = [w for w in document.warnings if w.code == "AMOUNT_SEPARATOR_LOST"]
    assert len(lost) == 2


def test_an_amount_read_with_the_quantity_before_it_is_read_where_only_so_it_balances() -> None:
    body = copy.deepcopy(BODY)
    body[1][2:] = [None, "414700,00", "500,00", "300,00", None, "500,00"]  # 414 | 700,00
    rows = osv(body)
    grid = Grid("p", rows, kind="page", page=1, cell_confidence=[[90.0] * 8 for _ in rows])
    (document,) = extract([grid]).documents
    assert document.rows[1].opening_credit == "700.00"
    (glued,) = [w for w in document.warnings if w.code == "AMOUNT_DIGITS_GLUED"]
    assert "414700,00" in glued.message
    # A workbook's cell is as typed: nothing is cut.
    (typed,) = extract([Grid("s", rows)]).documents
    assert typed.rows[1].opening_credit == "414700.00"


def test_low_confidence_document_needs_check() -> None:
    rows = osv()
    confidence: list[list[float | None]] = [[40.0] * 8 for _ in rows]
    extraction = extract([Grid("p", rows, kind="page", page=1, cell_confidence=confidence)])
    assert ("LOW_CONFIDENCE", {"page": 1}) in codes(extraction)
    assert extraction.status == "needs_check"


def test_sheets_without_tables_are_named_and_files_without_documents_fail() -> None:
    letter = Grid("Письмо", [["Справка о задолженности"], ["Сумма", 100.0]])
    empty = Grid("Лист2", [[None, None], []])
    extraction = extract([letter, Grid("TDSheet", osv()), empty])
    assert len(extraction.documents) == 1
    skipped = [(w.code, w.severity, where(w.locator)) for w in extraction.warnings]
    assert skipped == [
        ("SHEET_SKIPPED", "info", {"sheet": "Письмо"}),
        ("SHEET_SKIPPED", "info", {"sheet": "Лист2"}),
    ]
    with pytest.raises(NoDocumentFound, match="ни ОСВ, ни выписки"):
        extract([letter])
    with pytest.raises(NoDocumentFound, match="не содержит данных"):
        extract([empty])
    with pytest.raises(NoDocumentFound):
        extract([])


def test_per_account_osv_by_subconto() -> None:
    rows = [
        ["ООО «Промтехснаб»"],
        ["Оборотно-сальдовая ведомость по счету 60 за март 2025 г."],
        [],
        ["Субконто", *CAPTIONS],
        [None, *SIDES],
        ["60.1", None, 700.0, 400.0, 300.0, None, 600.0],
        ["ЧТУП «МеталлСнаб»", None, 500.0, 400.0, 100.0, None, 200.0],
        ["Количество", 3.0, None, 1.0, None, 2.0, None],
        ["ООО «ТрансЛогистик»", None, 200.0, None, 200.0, None, 400.0],
        ["Итого", None, 700.0, 400.0, 300.0, None, 600.0],
    ]
    extraction = extract([Grid("ОСВ 60", rows)])
    document = extraction.documents[0]
    assert document.variant == "account"
    assert document.account == AccountRef("60", None)
    assert [(r.kind, r.level, r.parent) for r in document.rows] == [
        ("account", 0, None), ("subconto", 1, 1), ("subconto", 1, 1),
    ]  # fmt: skip
    assert document.rows[1].name == "ЧТУП «МеталлСнаб»"
    assert extraction.status == "done"
    assert extraction.group_schema == "unknown"


STATEMENT_HEAD = [
    ["Банк: ОАО «Приорбанк», БИК PJCBBY2X"],
    ["Выписка по счету BY66PJCB30120612341010000933 за период с 01.03.2025 по 31.03.2025"],
    ["Валюта: 933"],
    ["Клиент: ООО «Промтехснаб», УНП 192745313"],
    ["Входящий остаток:", None, "1 000,00"],
    [],
    ["Дата", "№ док", "Сумма", "Контрагент", "УНП", "Счет контрагента", "Назначение платежа"],
]


def statement(lines: list[list[Any]], closing: str = "1 300,00") -> list[list[Any]]:
    return [*STATEMENT_HEAD, *lines, ["Исходящий остаток:", None, closing]]


LINES = [
    [
        "03.03.2025",
        "1",
        500.0,
        "ОАО «Керамин»",
        "190657200",
        "BY95ALFA30122231870010270000",
        "Оплата",
    ],
    ["05.03.2025", "2", -200.0, "ООО «ТрансЛогистик»", "192745313", None, "Услуги"],
]


def test_signed_amount_statement() -> None:
    extraction = extract([Grid("Выписка", statement(LINES))])
    document = extraction.documents[0]
    assert extraction.status == "done", document.warnings
    assert document.header.currency == "BYN"
    assert document.header.opening_balance == "1000.00"
    assert [(t.debit, t.credit) for t in document.transactions] == [
        (None, "500.00"), ("200.00", None),
    ]  # fmt: skip
    assert document.transactions[0].confidence == 99  # the date was text
    validate_result_file(wrap(extraction))


def test_statement_checks_fail_on_purpose() -> None:
    lines = copy.deepcopy(LINES)
    lines[0][0] = "03.04.2025"  # outside the period
    lines[0][4] = "190657201"  # wrong check digit
    lines[1][5] = "BY96ALFA30122231870010270000"  # wrong IBAN check digits
    extraction = extract([Grid("Выписка", statement(lines, closing="1 299,00"))])
    found = codes(extraction)
    assert ("BALANCE_MISMATCH", {"sheet": "Выписка", "row": 10}) in found
    assert ("DATE_OUTSIDE_PERIOD", {"sheet": "Выписка", "row": 8, "column": "A"}) in found
    assert ("TAX_ID_CHECK_FAILED", {"sheet": "Выписка", "row": 8, "column": "E"}) in found
    assert ("IBAN_CHECK_FAILED", {"sheet": "Выписка", "row": 9, "column": "F"}) in found
    assert extraction.status == "needs_check"
    validate_result_file(wrap(extraction))


def test_statement_totals_must_equal_rows() -> None:
    head = [r for r in STATEMENT_HEAD[:-1]]
    rows = [
        *head,
        ["Дата", "№ док", "Дебет", "Кредит", "Корреспондент", "Назначение платежа"],
        ["03.03.2025", "1", None, 500.0, "ОАО «Керамин»", "Оплата"],
        ["05.03.2025", "2", 200.0, None, "ООО «ТрансЛогистик»", "Услуги"],
        ["Итого", None, 250.0, 500.0],
        ["Исходящий остаток: 1 300,00"],
    ]
    extraction = extract([Grid("Выписка", rows)])
    found = codes(extraction)
    assert ("TOTALS_MISMATCH", {"sheet": "Выписка", "row": 10}) in found
    header = extraction.documents[0].header
    assert (header.total_debit, header.total_credit) == ("250.00", "500.00")


def test_statement_without_balances_needs_check() -> None:
    rows = [
        r
        for r in statement(LINES)
        if not str(r[0] if r else "").startswith(("Входящий", "Исходящий"))
    ]
    found = codes(extract([Grid("Выписка", rows)]))
    assert [c for c, _ in found] == ["BALANCE_MISSING"]


def test_statement_dates_that_lost_their_format() -> None:
    lines = copy.deepcopy(LINES)
    lines[0][0] = 45719.0  # 2025-03-03 as an Excel serial number
    document = extract([Grid("Выписка", statement(lines))]).documents[0]
    assert document.transactions[0].date == date(2025, 3, 3)
    assert document.transactions[0].confidence == 98


def test_untitled_table_of_dates_and_amounts_is_less_certain() -> None:
    titled = extract([Grid("Выписка", statement(LINES))]).documents[0]
    rows = [r for r in statement(LINES) if not (r and "Выписка" in str(r[0]))]
    untitled = extract([Grid("Лист1", rows)]).documents[0]
    assert titled.confidence > 90
    assert untitled.confidence == 90


def test_kazakh_statement_with_dated_balances_and_totals_on_the_closing_line() -> None:
    rows = [
        ["Период", "06.06.2022-18.06.2022"],
        ["Банк", 'АО "Народный Банк Казахстана"'],
        ["МФО", "HSBKKZKX"],
        ["ИИН/БИН", "201140019434"],
        ["Клиент", "ТОО Caspian est RND"],
        ["Счет", "KZ94601A231000356121"],
        ["Валюта", "KZT"],
        [],
        ["Входящий остаток на:", None, "06.06.2022", "7 320.28"],
        [],
        ["Дата валютирования", "Номер документа", "БИК банка контрагента", "Банк контрагента",
         "Контрагент", "БИН контрагента", "Счет контрагента", "Дебет", "Кредит",
         "Назначение платежа"],
        ["07.06.2022", "161", "HSBKKZKX", "Halyk", "ТОО Альфа", "201140019434",
         None, "100.00", None, "Оплата"],
        ["08.06.2022", "162", "HSBKKZKX", "Halyk", "ТОО Бета", None, None, None, "500.00",
         "Возврат"],
        ["Исходящий остаток на:", None, "18.06.2022", "7 720.28", None, None, "Итого обороты",
         "100.00", "500.00"],
    ]  # fmt: skip
    extraction = extract([Grid("export", rows)])
    document = extraction.documents[0]
    header = document.header
    assert (header.opening_balance, header.closing_balance) == ("7320.28", "7720.28")
    assert (header.total_debit, header.total_credit) == ("100.00", "500.00")
    assert (header.bank_bic, header.holder_tax_id) == ("HSBKKZKX", "201140019434")
    assert len(document.transactions) == 2
    assert document.transactions[0].counterparty_tax_id == "201140019434"
    assert extraction.status == "done", document.warnings


def test_a_balances_date_and_amount_read_as_one_cell_give_the_amount() -> None:
    rows = statement(LINES)
    opening = next(k for k, row in enumerate(rows) if row and "Входящий" in str(row[0]))
    rows[opening] = ["Остаток на начало периода", "01.03.2025 1 000,00"]
    document = extract([Grid("Выписка", rows)]).documents[0]
    assert document.header.opening_balance == "1000.00"


def test_a_balance_parted_between_its_thousands_over_two_cells_is_read_whole() -> None:
    rows = statement(LINES)
    opening = next(k for k, row in enumerate(rows) if row and "Входящий" in str(row[0]))
    rows[opening] = ["Остаток на начало периода", "-1", "000,00"]
    document = extract([Grid("Выписка", rows)]).documents[0]
    assert document.header.opening_balance == "-1000.00"


def test_a_statements_account_set_over_two_cells_is_read_whole() -> None:
    rows = [
        ["Выписка по счету"],
        ["Счет:", None, "ВУ40", "ВАРВ 3012 6228 3200 5018 4000"],
        ["Период", "с 01.08.2024 по 31.08.2024"],
        ["Дата", "№ док.", "Дебет", "Кредит", "Назначение платежа"],
        ["03.08.2024", "15", "1 200,00", None, "Оплата по договору № 7"],
    ]
    document = extract([Grid("page", rows)]).documents[0]
    assert document.header.account == "BY40BAPB30126228320050184000"


def test_statement_of_a_quiet_account_without_a_table() -> None:
    rows = [
        ["Выписка по счету"],
        ["Номер счета", "№ KZ61914082203KZ017H9 (KZT)"],
        ["Владелец счета", "ТОО Caspian est RND"],
        ["Период", "с 11.04.2022 по 16.04.2022"],
        [],
        ["Остаток на начало периода", None, "2 684,67"],
        ["Остаток на конец периода", None, "2 684,67"],
    ]
    extraction = extract([Grid("KZ61914082203KZ017H9", rows)])
    document = extraction.documents[0]
    header = document.header
    assert (header.account, header.currency) == ("KZ61914082203KZ017H9", "KZT")
    assert (header.opening_balance, header.closing_balance) == ("2684.67", "2684.67")
    assert document.transactions == ()
    assert [(w.code, w.severity) for w in document.warnings] == [("NO_ROWS", "info")]
    assert extraction.status == "done"
    validate_result_file(wrap(extraction))


def test_balances_side_by_side_a_split_period_and_a_currency_by_its_number() -> None:
    rows = [
        ["ВЫПИСКА"],
        ["Номер счета:", "40702156916110000346", "Валюта:", "Валюта 156, Китайский юань"],
        ["Начальная дата: ", "01.02.2026", "Конечная дата: ", "06.03.2026"],
        ["Входящий остаток CNY:", 621.99, "Исходящий остаток CNY:", "0.00 на 06.03.2026"],
        [],
        ["Дата", "Номер документа", "Дебет, CNY", "Кредит, CNY", "Контрагент", "Назначение"],
        ["03.02.2026", "1", 621.99, 0, "ООО «Альфа»", "Оплата"],
        ["ИТОГО:", 621.99, 0],
    ]
    document = to_wire(extract([Grid("40702156916110000346", rows)]).documents[0], 2)
    header = document["header"]
    assert header["currency"] == "CNY"
    assert (header["opening_balance"], header["closing_balance"]) == ("621.99", "0.00")
    assert header["period"]["from"] == "2026-02-01"
    assert (header["total_debit"], header["total_credit"]) == ("621.99", "0.00")
    assert [w["code"] for w in document["warnings"]] == []


def _account_block(account: str, opening: str, amount: float, closing: str) -> list[list[Any]]:
    return [
        [f"Выписка по счету {account} за период с 01.03.2025 по 31.03.2025"],
        ["Входящий остаток:", None, opening],
        ["Дата", "№ док", "Дебет", "Кредит", "Контрагент", "Назначение платежа"],
        ["03.03.2025", "1", None, amount, "ООО «Альфа»", "Оплата"],
        ["Исходящий остаток:", None, closing],
        [],
    ]


def test_statements_of_two_accounts_on_one_sheet_are_two_documents() -> None:
    rows = [
        *_account_block("BY66PJCB30120612341010000933", "1 000,00", 500.0, "1 500,00"),
        *_account_block("BY95ALFA30122231870010270000", "0,00", 75.0, "75,00"),
    ]
    extraction = extract([Grid("Выписка", rows)])
    documents = [to_wire(d, 2) for d in extraction.documents]
    assert [d["header"]["account"] for d in documents] == [
        "BY66PJCB30120612341010000933", "BY95ALFA30122231870010270000",
    ]  # fmt: skip
    assert documents[1]["transactions"][0]["locator"] == {"sheet": "Выписка", "row": 10}
    assert extraction.status == "done", [d["warnings"] for d in documents]


def test_a_title_repeated_on_every_page_keeps_one_statement() -> None:
    block = _account_block("BY66PJCB30120612341010000933", "1 000,00", 500.0, "1 500,00")
    rows = [*block[:4], block[0], block[2], ["04.03.2025", "2", None, 100.0, "ООО «Бета»", "X"]]
    rows.append(["Исходящий остаток:", None, "1 600,00"])
    extraction = extract([Grid("Выписка", rows)])
    assert len(extraction.documents) == 1


def test_a_bank_as_the_counterparty_read_off_a_page_is_named_as_the_directory_names_it() -> None:
    fee = ["31.03.2025", "3", -1.0, "ОАО «АСВ Беларусбанк»", None, None, "Комиссия банка"]
    rows = statement([*LINES, fee], closing="1 299,00")
    confidence: list[list[float | None]] = [[90.0] * 7 for _ in rows]
    ocr = Grid("p", rows, kind="page", page=1, cell_confidence=confidence)
    read = extract([ocr]).documents[0]
    assert read.transactions[-1].counterparty_name == "ОАО «АСБ Беларусбанк»"
    # A workbook's cell is as typed.
    typed = extract([Grid("Выписка", rows)]).documents[0]
    assert typed.transactions[-1].counterparty_name == "ОАО «АСВ Беларусбанк»"


def test_a_bic_in_the_bank_line_that_ocr_parted_from_its_location_code_is_one_bic() -> None:
    rows = statement(LINES)
    rows[0] = ["Банк: ОАО «Приорбанк», БИК PJCBBY 2Х"]
    document = extract([Grid("Выписка", rows)]).documents[0]
    assert document.header.bank_bic == "PJCBBY2X"
    assert document.header.bank_name == "ОАО «Приорбанк»"


def test_a_statement_read_off_a_scan_keeps_what_its_arithmetic_vouches_for() -> None:
    # OCR of a Cyrillic page: the BIC in Cyrillic look-alikes with «J» read as «З», the
    # caption of the counterparty's account unreadable. The account's IBAN (valid) names the
    # bank code; the column of valid IBANs is the counterparty's account.
    rows = statement(
        [
            [*LINES[0][:5], "BY95ALFA30122231870010270000", "Оплата", "ЗАО «Альфа-Банк», ALFABY2X"],
            [
                "05.03.2025",
                "2",
                -200.0,
                "ООО «ТрансЛогистик»",
                "192745313",
                "BY25PJCB30120000000000000000",
                "Услуги",
                "ОАО «Приорбанк», PICBBY2X =",
            ],
        ]
    )
    rows[0] = ["Банк: ОАО «Приорбанк», БИК РЗСВВУ2Х"]
    rows[6] = [*rows[6][:5], "ВАМ", rows[6][6], "Банк контрагента"]
    document = extract([Grid("Выписка", rows)]).documents[0]
    assert document.header.bank_bic == "PJCBBY2X"
    assert document.header.bank_name == "ОАО «Приорбанк»"
    assert [
        (t.counterparty_account, t.counterparty_bank, t.counterparty_bank_bic)
        for t in document.transactions
    ] == [
        ("BY95ALFA30122231870010270000", "ЗАО «Альфа-Банк»", "ALFABY2X"),
        # «J» read as «I», a speck after the code: the account's bank code is the BIC's.
        ("BY25PJCB30120000000000000000", "ОАО «Приорбанк»", "PJCBBY2X"),
    ]


def test_a_scanned_statements_lines_are_as_sure_as_what_no_check_vouches_for() -> None:
    def read(closing: str, tax_id: str = "190657200") -> tuple[list[float], list[str]]:
        lines = copy.deepcopy(LINES)
        lines[0][4] = tax_id
        rows = statement(lines, closing)
        # Date, number, amount, name, УНП, IBAN, purpose: OCR unsure of the amounts and the
        # identifiers, sure of the rest.
        confidence: list[list[float | None]] = [[None] * 8 for _ in rows]
        confidence[7] = [95.0, 95.0, 60.0, 95.0, 45.0, 42.0, 92.0, None]
        confidence[8] = [95.0, 95.0, 60.0, 95.0, 45.0, None, 92.0, None]
        (document,) = extract(
            [Grid("p", rows, kind="page", page=1, cell_confidence=confidence)]
        ).documents
        return [t.confidence for t in document.transactions], [w.code for w in document.warnings]

    # The balances hold: the amounts are right; the УНП and the IBAN have their check digits.
    sure, found = read("1 300,00")
    assert sure == [92, 92] and "LOW_CONFIDENCE" not in found
    # The balances do not hold: the amounts are as doubtful as OCR says.
    sure, found = read("1 299,00")
    assert sure == [60, 60] and "LOW_CONFIDENCE" in found
    # An УНП whose check digit fails vouches for nothing.
    sure, found = read("1 300,00", tax_id="190657201")
    assert sure == [45, 92]


def test_a_counterparty_account_misread_by_ocr_is_put_right_by_its_check_digits() -> None:
    rows = statement(
        [
            # OCR read the account into the name cell before it.
            [*LINES[0][:3], "ОАО «Керамин» BY95ALFA30122231870010270000", "190657200", None],
            # A letter of the bank code lost; the BIC beside it has it.
            [*LINES[1][:5], "BY25PCB30120000000000000000", "Услуги", "ОАО «Приорбанк», PJCBBY2X"],
        ]
    )
    rows[6] = [*rows[6], "Банк контрагента"]
    document = extract([Grid("Выписка", rows)]).documents[0]
    assert [(t.counterparty_name, t.counterparty_account) for t in document.transactions] == [
        ("ОАО «Керамин»", "BY95ALFA30122231870010270000"),
        ("ООО «ТрансЛогистик»", "BY25PJCB30120000000000000000"),
    ]
    assert not [w for w in document.warnings if w.code == "IBAN_CHECK_FAILED"]


# Amounts beyond what their document allows: flagged on their rows, never changed.


class _Rows:
    def where(self) -> Locator:
        return Locator(sheet="S")

    def row(self, index: int, column: int | None = None) -> Locator:
        return Locator(sheet="S", row=index + 1)


def _cells(*cents: int) -> list[AmountCell]:
    return [AmountCell(index, 0, value) for index, value in enumerate(cents)]


def test_an_amount_a_million_times_the_typical_one_is_flagged_on_its_row() -> None:
    found = amount_outliers(_cells(10_000, 25_000, 2 * 10**18, 40_000), [None], ["Дебет"], _Rows())
    assert [(w.code, w.locator) for w in found] == [("AMOUNT_OUTLIER", Locator(sheet="S", row=3))]
    assert "20000000000000000.00" in found[0].message


def test_a_large_payment_among_small_ones_is_no_outlier() -> None:
    # A loan of a billion among payments of tens of thousands: a hundred thousand times.
    found = amount_outliers(
        _cells(1_000_000, 2_500_000, 10**11, 4_000_000), [None], ["Дебет"], _Rows()
    )
    assert found == []


def test_an_amount_above_its_columns_printed_total_is_flagged() -> None:
    found = amount_outliers(_cells(10_000, 90_000), [50_000], ["Кредит"], _Rows())
    assert [w.locator for w in found] == [Locator(sheet="S", row=2)]
    assert "больше итога по этой графе 500.00" in found[0].message


def test_a_statement_line_of_2e16_needs_check_and_keeps_its_value() -> None:
    lines = copy.deepcopy(LINES)
    lines.append(["06.03.2025", "3", 2.0e16, "ООО «Ромашка»", "192745313", None, "Оплата"])
    extraction = extract([Grid("Выписка", statement(lines))])
    found = codes(extraction)
    assert ("AMOUNT_OUTLIER", {"sheet": "Выписка", "row": 10}) in found
    assert extraction.status == "needs_check"
    assert extraction.documents[0].transactions[-1].credit == "20000000000000000.00"


def test_a_trial_balance_row_of_2e16_is_flagged_on_its_row() -> None:
    body = copy.deepcopy(BODY)
    body.append(["99", "Прибыли и убытки", 2.0e16, None, None, None, 2.0e16, None])
    totals = list(TOTALS)
    found = codes(extract([Grid("TDSheet", osv(body, totals))]))
    assert ("AMOUNT_OUTLIER", {"sheet": "TDSheet", "row": 12}) in found
