"""MT940 and camt.053: the direction and the account are the file's own; messages of one
account chain into one statement; XML that declares anything is refused, never expanded."""

from __future__ import annotations

import datetime

import pytest

from document_extraction.exchange import ExchangeFormat, Refused, exchange_format, read_exchange
from recognition_contract import ErrorCode, Statement

MT940 = """{1:F01BANKKZKAXXXX0000000000}{2:O9401200240601BANKKZKAXXXX00000000002406011200N}{4:
:20:STMT1
:25:KZ12345678901234567890 KZT
:28C:1/1
:60F:C240531KZT1000,00
:61:2406010601D100,50NTRFREF1//BANK1
:86:/NAME/TOO Alpha/IBAN/KZ99000000000000000001/REMI/Payment for goods
:61:2406010601CR250,NTRFNONREF
:86:?20Invoice 12?21 and 13?30BANKKZKA?31KZ9911?32TOO Beta
:62M:C240601KZT1149,50
-}
{4:
:20:STMT2
:25:KZ12345678901234567890 KZT
:28C:2/1
:60M:C240601KZT1149,50
:61:2406020602RC49,50NTRFREF3
:86:Reversal of an earlier credit
:62F:C240602KZT1100,00
-}
"""


def test_mt940_messages_of_one_account_chain_into_one_statement() -> None:
    assert exchange_format(MT940.encode()) is ExchangeFormat.MT940
    read = read_exchange(MT940.encode())
    [statement] = read.extraction.documents
    assert isinstance(statement, Statement)
    assert read.extraction.status == "done", statement.warnings
    header = statement.header
    assert (header.account, header.currency) == ("KZ12345678901234567890", "KZT")
    assert (header.opening_balance, header.closing_balance) == ("1000.00", "1100.00")
    debit, credit, reversal = statement.transactions
    assert (debit.debit, debit.counterparty_name, debit.purpose) == (
        "100.50", "TOO Alpha", "Payment for goods",
    )  # fmt: skip
    assert debit.counterparty_account == "KZ99000000000000000001"
    assert debit.number == "REF1" and credit.number is None
    assert (credit.credit, credit.counterparty_name, credit.purpose) == (
        "250.00", "TOO Beta", "Invoice 12 and 13",
    )  # fmt: skip
    assert (reversal.debit, reversal.date) == ("49.50", datetime.date(2024, 6, 2))


def test_mt940_lines_that_do_not_reach_the_closing_balance_name_the_message() -> None:
    broken = MT940.replace(":62M:C240601KZT1149,50", ":62M:C240601KZT1150,50")
    read = read_exchange(broken.encode())
    [statement] = read.extraction.documents
    codes = [w.code for w in statement.warnings]
    assert read.extraction.status == "needs_check"
    assert "SECTION_BALANCE_MISMATCH" in codes and "SECTION_CHAIN_BROKEN" in codes


def test_an_unreadable_mt940_line_is_said() -> None:
    read = read_exchange(MT940.replace(":61:2406010601D100,50", ":61:24060X").encode())
    assert read.extraction.status == "needs_check"
    assert "LINE_UNREADABLE" in {w.code for w in read.extraction.warnings}


CAMT = """<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
 <BkToCstmrStmt>
  <GrpHdr><MsgId>1</MsgId><CreDtTm>2024-06-03T10:00:00</CreDtTm></GrpHdr>
  <Stmt>
   <Id>S1</Id>
   <FrToDt><FrDtTm>2024-06-01T00:00:00</FrDtTm><ToDtTm>2024-06-02T23:59:59</ToDtTm></FrToDt>
   <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy>
    <Ownr><Nm>Borrower GmbH</Nm></Ownr>
    <Svcr><FinInstnId><BICFI>COBADEFFXXX</BICFI><Nm>Commerzbank</Nm></FinInstnId></Svcr></Acct>
   <Bal><Tp><CdOrPrtry><Cd>PRCD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">500.00</Amt>
    <CdtDbtInd>DBIT</CdtDbtInd><Dt><Dt>2024-05-31</Dt></Dt></Bal>
   <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">150.00</Amt>
    <CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-06-02</Dt></Dt></Bal>
   <TxsSummry><TtlCdtNtries><Sum>700.00</Sum></TtlCdtNtries>
    <TtlDbtNtries><Sum>50.00</Sum></TtlDbtNtries></TxsSummry>
   <Ntry><Amt Ccy="EUR">700.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
    <BookgDt><Dt>2024-06-01</Dt></BookgDt><AcctSvcrRef>R1</AcctSvcrRef>
    <NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>Customer AG</Nm></Pty></Dbtr>
     <DbtrAcct><Id><IBAN>DE02100100100006820101</IBAN></Id></DbtrAcct></RltdPties>
     <RltdAgts><DbtrAgt><FinInstnId><BICFI>PBNKDEFFXXX</BICFI></FinInstnId></DbtrAgt></RltdAgts>
     <RmtInf><Ustrd>Invoice 4711</Ustrd><Ustrd>and 4712</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
   <Ntry><Amt Ccy="EUR">50.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
    <BookgDt><Dt>2024-06-02</Dt></BookgDt><AddtlNtryInf>Account fee</AddtlNtryInf></Ntry>
   <Ntry><Amt Ccy="EUR">999.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>PDNG</Sts>
    <BookgDt><Dt>2024-06-02</Dt></BookgDt></Ntry>
  </Stmt>
 </BkToCstmrStmt>
</Document>
"""


def test_camt_entries_balances_and_parties() -> None:
    assert exchange_format(CAMT.encode()) is ExchangeFormat.CAMT053
    read = read_exchange(CAMT.encode())
    [statement] = read.extraction.documents
    assert isinstance(statement, Statement)
    assert read.extraction.status == "done", statement.warnings
    header = statement.header
    assert (header.account, header.currency, header.holder_name) == (
        "DE89370400440532013000", "EUR", "Borrower GmbH",
    )  # fmt: skip
    assert (header.bank_name, header.bank_bic) == ("Commerzbank", "COBADEFFXXX")
    assert (header.opening_balance, header.closing_balance) == ("-500.00", "150.00")
    assert (header.total_credit, header.total_debit) == ("700.00", "50.00")
    credit, fee = statement.transactions
    assert (credit.credit, credit.counterparty_name, credit.counterparty_bank_bic) == (
        "700.00", "Customer AG", "PBNKDEFFXXX",
    )  # fmt: skip
    assert credit.purpose == "Invoice 4711 and 4712"
    assert (fee.debit, fee.purpose) == ("50.00", "Account fee")
    # The pending entry is not an operation of the statement, and it is said.
    assert "ENTRY_NOT_BOOKED" in {w.code for w in read.extraction.warnings}


def test_camt_totals_that_differ_from_the_entries_need_a_check() -> None:
    read = read_exchange(CAMT.replace("<Sum>50.00</Sum>", "<Sum>60.00</Sum>").encode())
    assert read.extraction.status == "needs_check"
    [statement] = read.extraction.documents
    assert "TOTALS_MISMATCH" in {w.code for w in statement.warnings}


BOMB = """<?xml version="1.0"?>
<!DOCTYPE Document [
 <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>&c;</BkToCstmrStmt></Document>
"""
EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE Document [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>&x;</BkToCstmrStmt></Document>
"""


@pytest.mark.parametrize("text", [BOMB, EXTERNAL], ids=["entity-bomb", "external-entity"])
def test_xml_with_a_document_type_is_refused_before_anything_is_expanded(text: str) -> None:
    with pytest.raises(Refused) as caught:
        read_exchange(text.encode())
    assert caught.value.code is ErrorCode.UNREADABLE
    assert "/etc/passwd" not in caught.value.reason


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (CAMT.replace("</Document>", ""), ErrorCode.UNREADABLE),
        (CAMT.replace("BkToCstmrStmt", "BkToCstmrDbtCdtNtfctn"), ErrorCode.INVALID_FORMAT),
        (
            "<Document>" + "<a>" * 200 + "camt.053." + "</a>" * 200 + "</Document>",
            ErrorCode.UNREADABLE,
        ),
    ],
    ids=["cut-short", "not-a-statement", "too-deep"],
)
def test_damaged_or_other_xml_is_a_clear_error(text: str, code: ErrorCode) -> None:
    with pytest.raises(Refused) as caught:
        read_exchange(text.encode())
    assert caught.value.code is code
