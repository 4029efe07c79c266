"""1CClientBankExchange: statements per account from sections and documents, checked by the
file's own balances; what a file lacks or breaks is said, never fixed."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

from document_extraction.exchange import ExchangeFormat, Refused, exchange_format, read_exchange
from recognition_contract import ErrorCode, Locator, Statement

HOLDER = "40702810900000000001"
OTHER = "40702810100000000002"
HEADER = f"""1CClientBankExchange
ВерсияФормата=1.03
Кодировка=Windows
Отправитель=Банк-Клиент
ДатаНачала=01.06.2024
ДатаКонца=02.06.2024
РасчСчет={HOLDER}
"""


def section(day: str, opening: str, credits: str, debits: str, closing: str) -> str:
    return (
        f"СекцияРасчСчет\nДатаНачала={day}\nДатаКонца={day}\nРасчСчет={HOLDER}\n"
        f"НачальныйОстаток={opening}\nВсегоПоступило={credits}\nВсегоСписано={debits}\n"
        f"КонечныйОстаток={closing}\nКонецРасчСчет\n"
    )


def document(
    number: str, amount: str, payer: str, receiver: str, day: str = "01.06.2024", **extra: str
) -> str:
    keys = {
        "Номер": number,
        "Дата": day,
        "Сумма": amount,
        "ПлательщикСчет": payer,
        "Плательщик1": 'ООО "Заёмщик"' if payer == HOLDER else 'ООО "Поставщик"',
        "ПлательщикИНН": "7702345678" if payer == HOLDER else "7701234567",
        "ПлательщикКПП": "770201001",
        "ПлательщикБанк1": 'ПАО "Банк"',
        "ПлательщикБИК": "044525999",
        "ПолучательСчет": receiver,
        "Получатель1": 'ООО "Заёмщик"' if receiver == HOLDER else 'ООО "Поставщик"',
        "ПолучательИНН": "7702345678" if receiver == HOLDER else "7701234567",
        "НазначениеПлатежа": "Оплата по договору № 7",
        **extra,
    }
    kind = keys.pop("kind", "Платежное поручение")
    body = "\n".join(f"{k}={v}" for k, v in keys.items())
    return f"СекцияДокумент={kind}\n{body}\nКонецДокумента\n"


def one_statement(text: str, encoding: str = "cp1251") -> tuple[Statement, str]:
    read = read_exchange(text.encode(encoding))
    [statement] = read.extraction.documents
    assert isinstance(statement, Statement)
    return statement, read.extraction.status


GOOD = (
    HEADER
    + section("01.06.2024", "1000.00", "250.50", "100.00", "1150.50")
    + section("02.06.2024", "1150.50", "0", "50.25", "1100.25")
    + document("1", "100.00", HOLDER, OTHER)
    + document("2", "250.50", OTHER, HOLDER, kind="Банковский ордер")
    + document("3", "50.25", HOLDER, OTHER, day="02.06.2024", ДатаСписано="02.06.2024")
    + "КонецФайла\n"
)


def test_a_statement_whose_operations_add_up_is_done_with_every_party() -> None:
    statement, status = one_statement(GOOD)
    header = statement.header
    assert status == "done"
    assert (header.account, header.currency) == (HOLDER, "RUB")
    assert (header.opening_balance, header.closing_balance) == ("1000.00", "1100.25")
    assert (header.total_debit, header.total_credit) == ("150.25", "250.50")
    assert (header.holder_name, header.holder_tax_id) == ('ООО "Заёмщик"', "7702345678")
    assert header.period is not None and header.period.start == datetime.date(2024, 6, 1)
    first, second, third = statement.transactions
    assert (first.debit, first.credit, second.debit, second.credit) == (
        "100.00", None, None, "250.50",
    )  # fmt: skip
    assert (second.counterparty_name, second.counterparty_tax_id) == (
        'ООО "Поставщик"', "7701234567",
    )  # fmt: skip
    assert (second.counterparty_account, second.counterparty_bank_bic) == (OTHER, "044525999")
    assert (second.document_kind, second.counterparty_kpp) == ("Банковский ордер", "770201001")
    # The receiver's КПП is not given, and a КПП of 0 means none.
    assert (first.document_kind, first.counterparty_kpp) == ("Платежное поручение", None)
    assert third.date == datetime.date(2024, 6, 2)
    assert first.purpose == "Оплата по договору № 7"
    assert statement.warnings == ()


def test_every_operation_points_at_its_lines() -> None:
    statement, _ = one_statement(GOOD)
    lines = GOOD.split("\n")
    locator = statement.transactions[1].locator
    assert locator.sheet == "Текст" and locator.row is not None and locator.row_end is not None
    block = lines[locator.row - 1 : locator.row_end]
    assert block[0] == "СекцияДокумент=Банковский ордер"
    assert block[-1] == "КонецДокумента"
    assert "Номер=2" in block


@pytest.mark.parametrize("encoding", ["cp1251", "utf-8"])
@pytest.mark.parametrize("line_end", ["\r\n", "\n"])
def test_encoding_is_the_bytes_whatever_the_file_declares(encoding: str, line_end: str) -> None:
    statement, status = one_statement(GOOD.replace("\n", line_end), encoding)
    assert status == "done"
    assert statement.transactions[0].counterparty_name == 'ООО "Поставщик"'


def test_a_dos_file_is_read_in_its_own_encoding() -> None:
    statement, status = one_statement(GOOD.replace("Кодировка=Windows", "Кодировка=DOS"), "cp866")
    assert status == "done"
    assert statement.transactions[1].document_kind == "Банковский ордер"


def test_a_daily_section_whose_operations_differ_names_the_section() -> None:
    text = GOOD.replace("Сумма=50.25", "Сумма=60.25")
    statement, status = one_statement(text)
    assert status == "needs_check"
    found = {w.code: w for w in statement.warnings}
    assert {"SECTION_TOTALS_MISMATCH", "BALANCE_MISMATCH", "TOTALS_MISMATCH"} <= set(found)
    message = found["SECTION_TOTALS_MISMATCH"].message
    assert "02.06.2024" in message and "50.25" in message and "60.25" in message
    where = found["SECTION_TOTALS_MISMATCH"].locator
    assert where == Locator(sheet="Текст", row=17, row_end=25)
    lines = text.split("\n")
    assert (lines[16], lines[17], lines[24]) == (
        "СекцияРасчСчет", "ДатаНачала=02.06.2024", "КонецРасчСчет",
    )  # fmt: skip


def test_a_broken_chain_and_a_section_that_does_not_balance_are_said() -> None:
    text = GOOD.replace("НачальныйОстаток=1150.50", "НачальныйОстаток=1150.00").replace(
        "КонечныйОстаток=1150.50", "КонечныйОстаток=1150.40"
    )
    statement, status = one_statement(text)
    codes = {w.code for w in statement.warnings}
    assert status == "needs_check"
    assert {"SECTION_CHAIN_BROKEN", "SECTION_BALANCE_MISMATCH"} <= codes


def test_documents_without_sections_give_a_statement_without_balances_that_needs_a_check() -> None:
    text = document("1", "100.00", HOLDER, OTHER) + document("2", "7.00", OTHER, HOLDER)
    statement, status = one_statement(text)
    assert status == "needs_check"
    assert statement.header.account == HOLDER
    assert (statement.header.opening_balance, statement.header.closing_balance) == (None, None)
    assert [w.code for w in statement.warnings] == ["BALANCE_MISSING"]
    assert len(statement.transactions) == 2


def test_two_accounts_and_a_transfer_between_them() -> None:
    text = (
        HEADER.replace(f"РасчСчет={HOLDER}\n", f"РасчСчет={HOLDER}\nРасчСчет={OTHER}\n")
        + document("1", "10.00", OTHER, HOLDER)
        + "КонецФайла\n"
    )
    read = read_exchange(text.encode("cp1251"))
    first, second = read.extraction.documents
    assert isinstance(first, Statement) and isinstance(second, Statement)
    assert [(t.debit, t.credit) for t in first.transactions] == [(None, "10.00")]
    assert [(t.debit, t.credit) for t in second.transactions] == [("10.00", None)]


def test_a_document_through_a_correspondent_account_is_booked_by_its_dates() -> None:
    corr = "30101810400000000225"
    text = (
        GOOD.replace("КонецФайла\n", "")
        + document("9", "5.00", corr, OTHER, ДатаСписано="01.06.2024")
        + document("10", "6.00", OTHER, corr)
    )
    read = read_exchange(text.encode("cp1251"))
    [statement] = read.extraction.documents
    assert isinstance(statement, Statement)
    assert [t.number for t in statement.transactions][-1] == "9"
    assert statement.transactions[-1].debit == "5.00"
    # The one whose dates say nothing belongs to no statement, and that is said.
    assert "ENTRIES_WITHOUT_ACCOUNT" in {w.code for w in read.extraction.warnings}
    assert read.extraction.status == "needs_check"


def test_split_purpose_name_with_tax_id_and_zero_kpp() -> None:
    text = HEADER + document(
        "5",
        "1.00",
        OTHER,
        HOLDER,
        НазначениеПлатежа="",
        НазначениеПлатежа1="Оплата",
        НазначениеПлатежа2="по счёту 12",
        Плательщик1="",
        Плательщик='ИНН 7701234567 ООО "Поставщик"',
    )
    statement, _ = one_statement(text)
    [line] = statement.transactions
    assert line.purpose == "Оплата по счёту 12"
    assert line.counterparty_name == 'ООО "Поставщик"'


def test_unclosed_blocks_and_stray_lines_are_read_and_said() -> None:
    text = GOOD.replace(
        "КонецДокумента\nСекцияДокумент=Банковский ордер", "СекцияДокумент=Банковский ордер"
    )
    text = text.replace("КонецФайла\n", "строка без знака равенства\n")
    read = read_exchange(text.encode("cp1251"))
    codes = {w.code for w in read.extraction.warnings}
    assert {"BLOCK_NOT_CLOSED", "LINES_SKIPPED", "FILE_END_MISSING"} <= codes
    assert read.extraction.status == "done"  # the arithmetic still confirms every figure
    assert len(read.extraction.documents[0].transactions) == 3  # type: ignore[union-attr]


def test_malformed_header_dates_leave_the_period_to_the_sections() -> None:
    text = GOOD.replace(
        "ДатаНачала=01.06.2024\nДатаКонца=02.06.2024\nРасчСчет",
        "ДатаНачала=31.02.2024\nДатаКонца=2024/13/01\nРасчСчет",
        1,
    )
    read = read_exchange(text.encode("cp1251"))
    [statement] = read.extraction.documents
    assert isinstance(statement, Statement) and statement.header.period is not None
    assert statement.header.period.start == datetime.date(2024, 6, 1)
    assert "HEADER_DATE_UNREADABLE" in {w.code for w in read.extraction.warnings}
    assert read.extraction.status == "done"


def test_an_unreadable_amount_is_an_error_not_a_zero() -> None:
    text = GOOD.replace("Сумма=100.00", "Сумма=сто")
    read = read_exchange(text.encode("cp1251"))
    assert read.extraction.status == "needs_check"
    assert "AMOUNT_UNREADABLE" in {w.code for w in read.extraction.warnings}


def test_keys_destroyed_by_a_conversion_are_refused() -> None:
    garbled = "\n".join(
        "\ufffd" * 8 + "=" + value for value in ("1.03", "Windows", "01.01.2024", "100.00")
    )
    with pytest.raises(Refused) as caught:
        read_exchange(("1CClientBankExchange\n" + garbled).encode("utf-8"))
    assert caught.value.code is ErrorCode.UNREADABLE


@pytest.mark.parametrize(
    "head",
    [b"", b"just some notes\n", b"\x00\x01binary", b"<html><body>camt.053</body></html>"],
)
def test_other_files_are_no_exchange_file(head: bytes) -> None:
    assert exchange_format(head) is None
    with pytest.raises(Refused) as caught:
        read_exchange(head)
    assert caught.value.code is ErrorCode.INVALID_FORMAT


def test_a_file_starting_with_a_document_is_recognised_as_1c() -> None:
    assert exchange_format(document("1", "1.00", HOLDER, OTHER).encode("cp1251")) is (
        ExchangeFormat.ONEC
    )


def test_binary_content_after_a_1c_head_is_refused() -> None:
    with pytest.raises(Refused) as caught:
        read_exchange(HEADER.encode("cp1251") + b"\x00" * 100)
    assert caught.value.code is ErrorCode.INVALID_FORMAT


def test_ten_thousand_sections_are_read_and_checked() -> None:
    days = [datetime.date(2000, 1, 1) + datetime.timedelta(days=k) for k in range(10_000)]
    sections = "".join(
        section(f"{day:%d.%m.%Y}", str(k), "1", "0", str(k + 1)) for k, day in enumerate(days)
    )
    read = read_exchange((HEADER + sections + "КонецФайла\n").encode("cp1251"))
    [statement] = read.extraction.documents
    assert isinstance(statement, Statement)
    assert (statement.header.opening_balance, statement.header.closing_balance) == (
        "0.00", "10000.00",
    )  # fmt: skip
    # No documents for printed credits: each day says so, capped, and the file needs a check.
    assert read.extraction.status == "needs_check"
    assert len(statement.warnings) <= 60
    assert Decimal(statement.header.total_credit or 0) == 10_000
