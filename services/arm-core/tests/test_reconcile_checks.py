"""Checks across a consolidation's documents, on documents built here: each planted
disagreement is found with the documents, rows and amount it concerns, and consistent
documents give no finding at all."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

from arm_core.reconcile.checks import (
    FileDocuments,
    bank_accounts,
    same_files,
    statement_chain,
    trial_balance_chain,
)
from arm_core.reconcile.run import reconcile
from recognition_contract import (
    MONEY_FIELDS,
    Document,
    Locator,
    Money,
    Organisation,
    Period,
    Statement,
    StatementHeader,
    Transaction,
    TrialBalance,
    TrialBalanceRow,
    empty,
    names_of,
)

ACCOUNT = "BY20 AKBB 3012 0000 0000 0000 0000"


def _d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def statement(
    start: str,
    end: str,
    opening: str,
    closing: str,
    lines: Sequence[tuple[str | None, str | None]] = (),
    *,
    account: str = ACCOUNT,
    currency: str = "BYN",
) -> Statement:
    header = empty(StatementHeader)
    return Statement(
        header=replace(
            header,
            account=account,
            currency=currency,
            period=Period(_d(start), _d(end), None),
            opening_balance=Money(opening),
            closing_balance=Money(closing),
        ),
        transactions=tuple(
            replace(
                _LINE,
                debit=Money(debit) if debit else None,
                credit=Money(credit) if credit else None,
            )
            for debit, credit in lines
        ),
        confidence=100,
        locator=Locator(),
        warnings=(),
    )


_LINE = Transaction(
    **{**dict.fromkeys(names_of(Transaction)), "confidence": 100, "locator": Locator()}
)


def osv(
    start: str, end: str, rows: list[tuple[str, ...]], *, tax_id: str = "190000001"
) -> TrialBalance:
    return TrialBalance(
        variant="general",
        title=None,
        organisation=Organisation("ООО «Ромашка»", tax_id),
        period=Period(_d(start), _d(end), None),
        currency=None,
        unit="units",
        account=None,
        rows=tuple(
            TrialBalanceRow(
                id=index,
                parent=None,
                kind="account",
                level=0,
                code=account,
                name=name,
                **{
                    key: Money(value) if value else None
                    for key, value in zip(MONEY_FIELDS, values, strict=True)
                },
                confidence=100,
                locator=Locator(sheet="ОСВ", row=10 + index),
            )
            for index, (account, name, *values) in enumerate(rows)
        ),
        totals=None,
        confidence=100,
        locator=Locator(),
        warnings=(),
    )


def files(*documents: Document, sha256: str | None = None) -> list[FileDocuments]:
    return [
        FileDocuments(f"f{index}", f"файл {index}.xlsx", sha256, [doc])
        for index, doc in enumerate(documents, start=1)
    ]


def test_statements_that_chain_give_no_finding() -> None:
    check = statement_chain(
        files(
            statement("2024-01-01", "2024-01-31", "100.00", "250.00"),
            statement("2024-02-01", "2024-02-29", "250.00", "90.00"),
        )
    )
    assert (check.compared, check.findings) == (1, [])


def test_a_closing_balance_that_is_not_the_next_opening_is_named_with_the_difference() -> None:
    check = statement_chain(
        files(
            statement("2024-02-01", "2024-02-29", "260.00", "90.00"),
            statement("2024-01-01", "2024-01-31", "100.00", "250.00"),
        )
    )
    [finding] = check.findings
    assert finding.code == "BALANCE_BREAK"
    assert finding.difference == Decimal("10.00")
    assert [place.file_id for place in finding.places] == ["f2", "f1"]
    assert "остаток на конец 31.01.2024 250,00, а на начало 01.02.2024 260,00" in finding.message


def test_gaps_and_overlaps_of_periods_are_named() -> None:
    gap = statement_chain(
        files(
            statement("2024-01-01", "2024-01-31", "100.00", "250.00"),
            statement("2024-03-01", "2024-03-31", "250.00", "90.00"),
        )
    )
    overlap = statement_chain(
        files(
            statement("2024-01-01", "2024-01-31", "100.00", "250.00"),
            statement("2024-01-15", "2024-02-15", "180.00", "90.00"),
        )
    )
    assert [(f.code, f.message) for f in gap.findings] == [
        ("PERIOD_GAP", f"Счёт {ACCOUNT.replace(' ', '')}: нет документа за 01.02.2024–29.02.2024")
    ]
    assert [f.code for f in overlap.findings] == ["PERIOD_OVERLAP"]
    assert "15.01.2024–31.01.2024" in overlap.findings[0].message


def test_statements_of_other_accounts_or_currencies_do_not_chain() -> None:
    check = statement_chain(
        files(
            statement("2024-01-01", "2024-01-31", "100.00", "250.00"),
            statement("2024-02-01", "2024-02-29", "999.00", "90.00", account="BY99 OTHER"),
            statement("2024-02-01", "2024-02-29", "5.00", "9.00", currency="USD"),
        )
    )
    assert (check.compared, check.findings) == (0, [])


def test_trial_balances_chain_account_by_account() -> None:
    january = osv(
        "2024-01-01",
        "2024-01-31",
        [
            ("01", "Основные средства", "500", "", "", "", "500", ""),
            ("60", "Поставщики", "", "100", "", "50", "", "150"),
        ],
    )
    february = osv(
        "2024-02-01",
        "2024-02-29",
        [
            ("01", "Основные средства", "500", "", "", "", "500", ""),
            ("60", "Поставщики", "", "170", "", "", "", "170"),
        ],
    )
    check = trial_balance_chain(files(january, february))
    [finding] = check.findings
    assert finding.code == "BALANCE_BREAK" and finding.difference == Decimal(-20)
    assert [place.locator for place in finding.places] == [
        {"sheet": "ОСВ", "row": 11},
        {"sheet": "ОСВ", "row": 11},
    ]
    assert finding.message.startswith("60 Поставщики: сальдо на конец 31.01.2024 −150,00")
    consistent = trial_balance_chain(
        files(
            january,
            osv("2024-02-01", "2024-02-29", [("60", "Поставщики", "", "150", "", "", "", "150")]),
        )
    )
    assert (consistent.compared, consistent.findings) == (1, [])


def test_trial_balances_of_another_organisation_do_not_chain() -> None:
    check = trial_balance_chain(
        files(
            osv("2024-01-01", "2024-01-31", [("60", "П", "", "100", "", "", "", "100")]),
            osv("2024-02-01", "2024-02-29", [("60", "П", "", "7", "", "", "", "7")], tax_id="2"),
        )
    )
    assert (check.compared, check.findings) == (0, [])


BANK_ROW = ("51", "Расчетные счета", "1000", "", "500", "300", "1200", "")


def test_account_51_agrees_with_the_statements_of_its_period() -> None:
    ledger = osv("2024-01-01", "2024-01-31", [BANK_ROW])
    statements = [
        statement("2024-01-01", "2024-01-15", "1000.00", "1400.00", [(None, "400.00")]),
        statement(
            "2024-01-16", "2024-01-31", "1400.00", "1200.00", [("300.00", None), (None, "100.00")]
        ),
    ]
    check = bank_accounts(files(ledger, *statements))
    assert (check.compared, check.findings) == (1, [])


def test_account_51_that_disagrees_names_each_line_and_the_amount() -> None:
    ledger = osv("2024-01-01", "2024-01-31", [BANK_ROW])
    short = statement(
        "2024-01-01", "2024-01-31", "1000.00", "1150.00", [("300.00", None), (None, "450.00")]
    )
    check = bank_accounts(files(ledger, short))
    assert [(f.message, f.difference) for f in check.findings] == [
        ("Счёт 51, сальдо на конец: в ОСВ 1\u00a0200,00, по выпискам 1\u00a0150,00", Decimal(50)),
        ("Счёт 51, оборот по дебету (поступления): в ОСВ 500,00, по выпискам 450,00", Decimal(50)),
    ]
    assert check.findings[0].places[0].locator == {"sheet": "ОСВ", "row": 10}


def test_account_51_is_not_compared_with_statements_that_leave_part_of_its_period_out() -> None:
    ledger = osv("2024-01-01", "2024-01-31", [BANK_ROW])
    half = statement("2024-01-01", "2024-01-15", "1000.00", "1400.00", [(None, "400.00")])
    foreign = statement("2024-01-01", "2024-01-31", "1.00", "1.00", currency="USD")
    assert bank_accounts(files(ledger, half, foreign)).compared == 0


def test_the_same_bytes_twice_are_one_finding_naming_both_files() -> None:
    doc = statement("2024-01-01", "2024-01-31", "1.00", "1.00")
    twice = files(doc, doc, sha256="ab" * 32) + files(doc, sha256="cd" * 32)
    check = same_files(twice)
    [finding] = check.findings
    assert finding.code == "SAME_FILE"
    assert [place.file_name for place in finding.places] == ["файл 1.xlsx", "файл 2.xlsx"]


def test_consistent_documents_give_no_finding_in_any_check() -> None:
    ledger = osv("2024-01-01", "2024-01-31", [BANK_ROW])
    january = statement("2024-01-01", "2024-01-31", "1000.00", "1200.00", [("300.00", "500.00")])
    february = statement("2024-02-01", "2024-02-29", "1200.00", "1200.00")
    checks = reconcile(files(ledger, january, february))
    assert [check.findings for check in checks] == [[], [], [], []]
    assert [check.compared for check in checks] == [1, 0, 1, 3]


def _holder(doc: Statement, name: str | None, tax_id: str | None) -> Statement:
    return replace(doc, header=replace(doc.header, holder_name=name, holder_tax_id=tax_id))


def test_the_same_statement_twice_is_counted_once_against_account_51() -> None:
    """The same statement in two files (other bytes: a PDF and its Excel twin) makes no false
    difference of account 51: it is named, and summed once."""
    ledger = osv("2024-01-01", "2024-01-31", [BANK_ROW])
    january = statement("2024-01-01", "2024-01-31", "1000.00", "1200.00", [("300.00", "500.00")])
    uploads = [
        FileDocuments("f1", "ОСВ.xlsx", "aa" * 32, [ledger]),
        FileDocuments("f2", "Выписка.pdf", "bb" * 32, [january]),
        FileDocuments("f3", "Выписка.xlsx", "cc" * 32, [replace(january)]),
    ]
    chain, _, bank, same = reconcile(uploads)
    assert bank.findings == [] and bank.compared == 1
    assert chain.findings == []
    [copy] = same.findings
    assert copy.code == "SAME_DOCUMENT"
    assert [p.file_name for p in copy.places] == ["Выписка.pdf", "Выписка.xlsx"]
    assert "учтена один раз" in copy.message


def test_the_same_bytes_twice_are_summed_once() -> None:
    ledger = osv("2024-01-01", "2024-01-31", [BANK_ROW])
    january = statement("2024-01-01", "2024-01-31", "1000.00", "1200.00", [("300.00", "500.00")])
    uploads = [
        FileDocuments("f1", "ОСВ.xlsx", "aa" * 32, [ledger]),
        FileDocuments("f2", "Выписка.xlsx", "bb" * 32, [january]),
        FileDocuments("f3", "Выписка (1).xlsx", "bb" * 32, [january]),
    ]
    _, _, bank, same = reconcile(uploads)
    assert bank.findings == []
    assert [f.code for f in same.findings] == ["SAME_FILE"]


def test_a_trial_balance_meets_only_its_own_organisations_statements() -> None:
    ledger = osv("2024-01-01", "2024-01-31", [BANK_ROW], tax_id="190000001")
    january = statement("2024-01-01", "2024-01-31", "1000.00", "1200.00", [("300.00", "500.00")])
    other = _holder(
        statement("2024-01-01", "2024-01-31", "5.00", "5.00", account="BY11 OTHR 0000"),
        "ООО «Лютик»",
        "190000002",
    )
    by_name = _holder(
        statement("2024-01-01", "2024-01-31", "7.00", "7.00", account="BY22 NAME 0000"),
        "Общество «Лютик»",
        None,
    )
    ours = _holder(january, "ООО «Ромашка»", "190 000 001")
    assert bank_accounts(files(ledger, ours, other)).findings == []
    assert bank_accounts(files(ledger, january, by_name)).findings == []


def test_an_excluded_file_takes_part_in_nothing() -> None:
    ledger = osv("2024-01-01", "2024-01-31", [BANK_ROW])
    january = statement("2024-01-01", "2024-01-31", "1000.00", "1200.00", [("300.00", "500.00")])
    wrong = statement("2024-01-01", "2024-01-31", "9.00", "9.00", account=ACCOUNT)
    uploads = [
        FileDocuments("f1", "ОСВ.xlsx", "aa" * 32, [ledger]),
        FileDocuments("f2", "Выписка.xlsx", "bb" * 32, [january]),
        FileDocuments("f3", "Чужая.xlsx", "cc" * 32, [wrong], excluded=True),
    ]
    checks = reconcile(uploads)
    assert [check.findings for check in checks] == [[], [], [], []]
