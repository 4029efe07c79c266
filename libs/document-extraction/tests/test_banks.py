"""A bank's name read by OCR, spelled as the directory has it for the bank its code names."""

from __future__ import annotations

from document_extraction import Grid, extract
from document_extraction.banks import bank_code, bank_name


def test_a_letter_misread_in_a_banks_name_is_put_right_by_the_bank_its_code_names() -> None:
    assert bank_name("ОАО «АСВ Беларусбанк»", "AKBB") == "ОАО «АСБ Беларусбанк»"
    assert bank_name("ОАО «АСВ Беларусбанк»", None) == "ОАО «АСБ Беларусбанк»"
    assert bank_name("ОАО «БПС-Сбербаик»", "BPSB") == "ОАО «БПС-Сбербанк»"


def test_a_name_the_code_does_not_name_or_far_from_every_spelling_stays_as_read() -> None:
    assert bank_name("ОАО «АСВ Беларусбанк»", "PJCB") == "ОАО «АСВ Беларусбанк»"
    assert bank_name("ОАО «АСБ Беларусбанк», г. Минск", "AKBB") == (
        "ОАО «АСБ Беларусбанк», г. Минск"
    )
    assert bank_name("ООО «Банк Решение»", "XXXX") == "ООО «Банк Решение»"
    assert bank_name(None, "AKBB") is None


def test_the_bank_code_is_the_bics_or_the_valid_ibans() -> None:
    assert bank_code("AKBBBY2X", None) == "AKBB"
    assert bank_code(None, "BY08PJCB30123403466420193300") == "PJCB"
    assert bank_code(None, "BY09PJCB30123403466420193300") is None  # check digits fail
    assert bank_code(None, None) is None


def test_a_statements_counterparty_bank_is_spelled_as_the_directory_has_it() -> None:
    rows: list[list[object]] = [
        ["Выписка по счету BY66PJCB30120612341010000933 за период с 01.03.2025 по 31.03.2025"],
        ["Дата", "Сумма", "Контрагент", "Счет контрагента", "Банк", "Назначение платежа"],
        ["03.03.2025", "100,00", "ООО «Альфа»", "BY08PJCB30123403466420193300",
         "ОАО «Приорбаик»", "Оплата"],
        ["04.03.2025", "-50,00", "ООО «Бета»", "BY74AKBB30121398309580164300",
         "ОАО «АСВ Беларусбанк»", "Оплата"],
    ]  # fmt: skip
    document = extract([Grid("Выписка", rows)]).documents[0]
    assert [t.counterparty_bank for t in document.transactions] == [
        "ОАО «Приорбанк»",
        "ОАО «АСБ Беларусбанк»",
    ]


def test_a_bic_after_the_banks_name_is_its_bic_though_ocr_parted_its_location_code() -> None:
    rows: list[list[object]] = [
        ["Выписка по счету BY66PJCB30120612341010000933 за период с 01.03.2025 по 31.03.2025"],
        ["Дата", "Сумма", "Контрагент", "Банк", "Назначение платежа"],
        ["03.03.2025", "100,00", "ООО «Альфа»", "ОАО «БПС-Сбербанк», BPSBBY 2Х", "Оплата"],
        ["04.03.2025", "-50,00", "ООО «Бета»", "ОАО «Приорбанк», PJCBBY2X", "Оплата"],
    ]
    document = extract([Grid("Выписка", rows)]).documents[0]
    assert [(t.counterparty_bank, t.counterparty_bank_bic) for t in document.transactions] == [
        ("ОАО «БПС-Сбербанк»", "BPSBBY2X"),
        ("ОАО «Приорбанк»", "PJCBBY2X"),
    ]
