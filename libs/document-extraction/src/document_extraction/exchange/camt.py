"""ISO 20022 camt.053 (BankToCustomerStatement, versions 001.02-001.08): ``Stmt`` per account
and period with ``Bal`` (OPBD or PRCD opening, CLBD closing), ``TxsSummry`` totals and ``Ntry``
entries whose ``CdtDbtInd`` says the direction; parties and remittance information from
``NtryDtls/TxDtls``. The XML is read by expat with no DTD at all: a document type, an entity or
an external reference is refused, never expanded or fetched."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final
from xml.parsers import expat

from document_extraction.dates import parse_date_or_none
from document_extraction.exchange.decoding import decode
from document_extraction.exchange.model import (
    Direction,
    Entry,
    Ledger,
    Lines,
    Party,
    Refused,
    Section,
)
from document_extraction.findings import INFO, warning
from document_extraction.identifiers import compact
from document_extraction.numbers import exchange_amount
from recognition_contract import ErrorCode, Warning

OPENING_CODES: Final = ("OPBD", "PRCD")
CLOSING_CODES: Final = ("CLBD",)
BOOKED: Final = "BOOK"
# Elements deeper than this are no statement of a bank: a hostile nesting is refused.
MAX_DEPTH: Final = 64


@dataclass
class Node:
    """An element by its local name (namespaces dropped), with the lines it spans."""

    tag: str
    attrs: dict[str, str]
    first: int
    last: int = 0
    text: str = ""
    children: list[Node] = field(default_factory=list)

    def find(self, path: str) -> Node | None:
        node: Node | None = self
        for step in path.split("/"):
            node = next((c for c in node.children if c.tag == step), None) if node else None
        return node

    def findall(self, tag: str) -> list[Node]:
        return [c for c in self.children if c.tag == tag]

    def value(self, path: str) -> str | None:
        node = self.find(path)
        return node.text.strip() or None if node is not None else None

    def first_value(self, *paths: str) -> str | None:
        return next((v for p in paths if (v := self.value(p)) is not None), None)


def parse_xml(source: bytes) -> Node:
    """The element tree with line numbers. ``Refused`` UNREADABLE for malformed XML or any
    DTD (entities, external references)."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Node] = []
    root: list[Node] = []

    def refuse(*_: Any) -> None:
        raise Refused(
            ErrorCode.UNREADABLE,
            "XML-файл содержит объявление типа документа или сущностей: такие файлы не "
            "принимаются (выписка camt.053 их не содержит)",
        )

    def start(name: str, attrs: dict[str, str]) -> None:
        if len(stack) >= MAX_DEPTH:
            raise Refused(ErrorCode.UNREADABLE, "XML-файл вложен слишком глубоко")
        node = Node(name.rsplit(":", 1)[-1].rsplit("}", 1)[-1], attrs, parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(node)
        stack.append(node)

    def end(_: str) -> None:
        stack.pop().last = parser.CurrentLineNumber

    def text(data: str) -> None:
        if stack:
            stack[-1].text += data

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse  # type: ignore[assignment]
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(source, True)
    except expat.ExpatError as exc:
        raise Refused(ErrorCode.UNREADABLE, f"XML-файл повреждён: {exc}") from None
    if not root:
        raise Refused(ErrorCode.INVALID_DOCUMENT, "XML-файл пуст")
    return root[0]


def read_camt(source: bytes) -> tuple[Ledger, tuple[str, ...]]:
    root = parse_xml(source)
    report = root.find("BkToCstmrStmt") if root.tag == "Document" else None
    if report is None:
        raise Refused(ErrorCode.INVALID_FORMAT, "XML-файл не является выпиской camt.053")
    sections: list[Section] = []
    entries: list[Entry] = []
    ledger_maps: dict[str, dict[str, Any]] = {"currencies": {}, "holders": {}, "banks": {}}
    notes: list[Warning] = []
    for statement in report.findall("Stmt"):
        section = _section(statement)
        if section is None:
            continue
        sections.append(section)
        _remember(statement, section, ledger_maps)
        for node in statement.findall("Ntry"):
            entry = _entry(node, section.account)
            if entry is None:
                notes.append(
                    warning(
                        "ENTRY_NOT_BOOKED",
                        f"Запись в строке {node.first} не проведена (статус "
                        f"{_status(node)}) и в выписку не включена",
                        None,
                        INFO,
                    )
                )
            else:
                entries.append(entry)
    lines = decode(source).lines
    return (
        Ledger(
            sections=tuple(sections),
            entries=tuple(entries),
            currencies=ledger_maps["currencies"],
            holders=ledger_maps["holders"],
            banks=ledger_maps["banks"],
            warnings=tuple(notes),
        ),
        lines,
    )


def _account(statement: Node) -> str | None:
    found = statement.first_value("Acct/Id/IBAN", "Acct/Id/Othr/Id")
    return compact(found) if found else None


def _section(statement: Node) -> Section | None:
    account = _account(statement)
    if account is None:
        return None
    balances = dict(_balances(statement))
    opening = next((balances[c] for c in OPENING_CODES if c in balances), None)
    closing = next((balances[c] for c in CLOSING_CODES if c in balances), None)
    currency = statement.value("Acct/Ccy") or _currency(statement)
    return Section(
        lines=Lines(statement.first, statement.last),
        account=account,
        # Without ``FrToDt`` the period is the entries' days: balances are often dated the
        # day before the first entry or after the last.
        start=_date(statement.first_value("FrToDt/FrDtTm", "FrToDt/FrDt")),
        end=_date(statement.first_value("FrToDt/ToDtTm", "FrToDt/ToDt")),
        opening=opening[0] if opening else None,
        credits=exchange_amount(statement.value("TxsSummry/TtlCdtNtries/Sum")),
        debits=exchange_amount(statement.value("TxsSummry/TtlDbtNtries/Sum")),
        closing=closing[0] if closing else None,
        currency=currency,
    )


def _balances(statement: Node) -> Iterator[tuple[str, tuple[Decimal, datetime.date | None]]]:
    for node in statement.findall("Bal"):
        code = node.first_value("Tp/CdOrPrtry/Cd", "Tp/CdOrPrtry/Prtry")
        amount = exchange_amount(node.value("Amt"))
        if code is None or amount is None:
            continue
        # A balance without its indicator is taken as a credit one (in funds).
        signed = -amount if node.value("CdtDbtInd") == "DBIT" else amount
        yield code, (signed, _date(node.first_value("Dt/Dt", "Dt/DtTm")))


def _currency(statement: Node) -> str | None:
    for node in statement.findall("Bal"):
        amount = node.find("Amt")
        if amount is not None and amount.attrs.get("Ccy"):
            return amount.attrs["Ccy"]
    return None


def _remember(statement: Node, section: Section, maps: dict[str, dict[str, Any]]) -> None:
    account = section.account
    if section.currency:
        maps["currencies"].setdefault(account, section.currency)
    holder = statement.first_value("Acct/Ownr/Nm", "Acct/Ownr/Pty/Nm")
    if holder:
        maps["holders"].setdefault(account, holder)
    bic = statement.first_value("Acct/Svcr/FinInstnId/BIC", "Acct/Svcr/FinInstnId/BICFI")
    bank = statement.value("Acct/Svcr/FinInstnId/Nm")
    if bic or bank:
        maps["banks"].setdefault(account, (bank, bic))


def _status(node: Node) -> str:
    return node.first_value("Sts/Cd", "Sts") or BOOKED


def _entry(node: Node, account: str) -> Entry | None:
    if _status(node) != BOOKED:
        return None
    amount = exchange_amount(node.value("Amt"))
    if amount is None:
        return None
    direction: Direction = "debit" if node.value("CdtDbtInd") == "DBIT" else "credit"
    details = node.findall("NtryDtls")
    transactions = [t for d in details for t in d.findall("TxDtls")]
    single = transactions[0] if len(transactions) == 1 else None
    other = _counterparty(single, direction) if single is not None else Party()
    purpose = _purpose(single) if single is not None else None
    return Entry(
        lines=Lines(node.first, node.last),
        amount=amount,
        date=_date(node.first_value("BookgDt/Dt", "BookgDt/DtTm", "ValDt/Dt", "ValDt/DtTm")),
        number=node.first_value("AcctSvcrRef", "NtryRef")
        or (single.value("Refs/EndToEndId") if single is not None else None),
        purpose=purpose or node.value("AddtlNtryInf"),
        payer=other if direction == "credit" else Party(),
        receiver=other if direction == "debit" else Party(),
        direction=direction,
        account=account,
    )


def _counterparty(details: Node, direction: Direction) -> Party:
    """The other side: the debtor of money in, the creditor of money out."""
    side, agent = ("Dbtr", "DbtrAgt") if direction == "credit" else ("Cdtr", "CdtrAgt")
    parties = details.find("RltdPties")
    agents = details.find("RltdAgts")
    account = (
        parties.first_value(f"{side}Acct/Id/IBAN", f"{side}Acct/Id/Othr/Id") if parties else None
    )
    return Party(
        name=parties.first_value(f"{side}/Nm", f"{side}/Pty/Nm") if parties else None,
        account=compact(account) if account else None,
        bank=agents.value(f"{agent}/FinInstnId/Nm") if agents else None,
        bic=agents.first_value(f"{agent}/FinInstnId/BIC", f"{agent}/FinInstnId/BICFI")
        if agents
        else None,
    )


def _purpose(details: Node) -> str | None:
    info = details.find("RmtInf")
    parts = [n.text.strip() for n in info.findall("Ustrd")] if info is not None else []
    text = " ".join(" ".join(p.split()) for p in parts if p)
    return text or details.value("AddtlTxInf")


def _date(text: str | None) -> datetime.date | None:
    return parse_date_or_none(text[:10]) if text else None
