"""A ledger into one statement per account (and currency): the account's sections give the
balances and printed turnovers, its entries the lines, and the document's arithmetic says
whether they agree. A disagreement is a warning naming the section; nothing is corrected."""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Final

from document_extraction.checks import StatementLine, check_statement
from document_extraction.exchange.booking import Booked, book, booked_date
from document_extraction.exchange.model import (
    Entry,
    Ledger,
    Lines,
    Section,
    text_locator,
)
from document_extraction.exchange.sections import section_warnings
from document_extraction.findings import capped, warning
from document_extraction.identifiers import currency_of_account
from document_extraction.numbers import format_money
from recognition_contract import (
    Locator,
    Period,
    Statement,
    StatementHeader,
    Transaction,
    Warning,
)

# Every value is read from a key that names it: nothing is guessed from a layout.
EXACT: Final = 100


class LinesLocate:
    """``Locating`` over the entries of one statement: line ``index`` is entry ``index``."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self._entries = entries

    def where(self) -> Locator:
        return text_locator()

    def row(self, index: int, column: int | None = None) -> Locator:
        return text_locator(self._entries[index].lines)


def statements(ledger: Ledger) -> tuple[list[Statement], list[Warning]]:
    """The statements of the ledger's accounts, and the file's own warnings (entries that
    belong to no account of the file among them)."""
    accounts = statement_accounts(ledger)
    found: list[Statement] = []
    placed: set[int] = set()
    sole = len(accounts) == 1
    for account, currency in accounts:
        mine = [
            (i, b)
            for i, e in enumerate(ledger.entries)
            if (b := book(e, account, sole=sole)) is not None
        ]
        placed.update(i for i, _ in mine)
        booked = [b for _, b in mine]
        sections = [
            s for s in ledger.sections if s.account == account and s.currency in (None, currency)
        ]
        if currency is not None:
            booked = [b for b in booked if _currency_of(b.entry, ledger) in (None, currency)]
        found.append(statement(ledger, account, currency, sections, booked))
    orphans = [e for i, e in enumerate(ledger.entries) if i not in placed]
    return found, list(ledger.warnings) + _orphan_warnings(orphans)


def statement_accounts(ledger: Ledger) -> list[tuple[str, str | None]]:
    """The accounts to make statements of, in the order the file names them: the header's and
    the sections' (with their currencies), else those the entries say they belong to, else
    the account every entry names (a 1C file of bare documents)."""
    keyed: dict[tuple[str, str | None], None] = {}
    for section in ledger.sections:
        keyed[(section.account, section.currency or ledger.currencies.get(section.account))] = None
    for account in ledger.accounts:
        if not any(a == account for a, _ in keyed):
            keyed[(account, ledger.currencies.get(account))] = None
    for entry in ledger.entries:
        if entry.account is not None and not any(a == entry.account for a, _ in keyed):
            keyed[(entry.account, ledger.currencies.get(entry.account))] = None
    if keyed or not ledger.entries:
        return list(keyed)
    return [(account, None) for account in _common_accounts(ledger.entries)]


def _common_accounts(entries: Sequence[Entry]) -> list[str]:
    """The holder's account of a file of bare documents: the one every document names, else
    the one most documents name; between accounts named as often, the one the bank's own dates
    point at (written off where it pays, received where it is paid), then the first named."""
    named: Counter[str] = Counter()
    evidence: Counter[str] = Counter()
    for entry in entries:
        for party, dated in ((entry.payer, entry.debited_on), (entry.receiver, entry.credited_on)):
            for account in dict.fromkeys((party.account, party.settlement_account)):
                if account:
                    named[account] += 1
                    evidence[account] += dated is not None
    if not named:
        return []
    order = {account: k for k, account in enumerate(named)}
    best = min(named, key=lambda a: (-named[a], -evidence[a], order[a]))
    return [best]


def _currency_of(entry: Entry, ledger: Ledger) -> str | None:
    return ledger.currencies.get(entry.account) if entry.account else None


def statement(
    ledger: Ledger,
    account: str,
    currency: str | None,
    sections: Sequence[Section],
    booked: Sequence[Booked],
) -> Statement:
    ordered = sorted(sections, key=lambda s: s.start or datetime.date.min)
    header = _header(ledger, account, currency, ordered, booked)
    lines = [
        StatementLine(
            i,
            booked_date(b),
            b.entry.amount if b.direction == "debit" else None,
            b.entry.amount if b.direction == "credit" else None,
        )
        for i, b in enumerate(booked)
    ]
    locate = LinesLocate([b.entry for b in booked])
    totals_where = (
        text_locator(Lines(ordered[0].lines.first, ordered[-1].lines.last))
        if ordered
        else text_locator()
    )
    period = header.period
    found = section_warnings(ordered, booked) + check_statement(
        lines,
        _amount(header.opening_balance),
        _amount(header.closing_balance),
        _amount(header.total_debit),
        _amount(header.total_credit),
        totals_where,
        (period.start, period.end) if period is not None else None,
        locate,
        None,
    )
    return Statement(
        header=header,
        transactions=tuple(transaction(b) for b in booked),
        confidence=EXACT,
        locator=totals_where if ordered else text_locator(),
        warnings=capped(found),
    )


def _amount(money: str | None) -> Decimal | None:
    return Decimal(money) if money is not None else None


def _header(
    ledger: Ledger,
    account: str,
    currency: str | None,
    sections: Sequence[Section],
    booked: Sequence[Booked],
) -> StatementHeader:
    holder = next((b.holder for b in booked if b.holder is not None), None)
    bank, bic = ledger.banks.get(account, (None, None))
    start = ledger.start or min((s.start for s in sections if s.start), default=None)
    end = ledger.end or max((s.end for s in sections if s.end), default=None)
    if start is None and end is None and booked:
        dates = [d for b in booked if (d := booked_date(b)) is not None]
        start, end = (min(dates), max(dates)) if dates else (None, None)
    return StatementHeader(
        bank_name=bank or (holder.bank if holder else None),
        bank_bic=bic or (holder.bic if holder else None),
        account=account,
        currency=currency or currency_of_account(account),
        holder_name=ledger.holders.get(account) or (holder.name if holder else None),
        holder_tax_id=holder.tax_id if holder else None,
        period=_period(start, end),
        opening_balance=format_money(sections[0].opening) if sections else None,
        closing_balance=format_money(sections[-1].closing) if sections else None,
        total_debit=format_money(_sum(s.debits for s in sections)) if sections else None,
        total_credit=format_money(_sum(s.credits for s in sections)) if sections else None,
    )


def _sum(values: Iterable[Decimal | None]) -> Decimal | None:
    """The sum of what every section prints; None when one of them leaves it out."""
    items = list(values)
    if any(v is None for v in items):
        return None
    return sum((v for v in items if v is not None), Decimal(0))


def _period(start: datetime.date | None, end: datetime.date | None) -> Period | None:
    if start is None and end is None:
        return None
    text = " – ".join(f"{d:%d.%m.%Y}" if d else "…" for d in (start, end))
    return Period(start, end, text)


def transaction(line: Booked) -> Transaction:
    entry, other = line.entry, line.counterparty
    return Transaction(
        date=booked_date(line),
        number=entry.number,
        debit=format_money(entry.amount) if line.direction == "debit" else None,
        credit=format_money(entry.amount) if line.direction == "credit" else None,
        equivalents=None,
        counterparty_name=other.name,
        counterparty_tax_id=other.tax_id,
        counterparty_account=other.settlement_account or other.account,
        counterparty_bank=other.bank,
        counterparty_bank_bic=other.bic,
        purpose=entry.purpose,
        confidence=EXACT,
        locator=text_locator(entry.lines),
        document_kind=entry.kind,
        counterparty_kpp=other.kpp,
    )


def _orphan_warnings(orphans: Sequence[Entry]) -> list[Warning]:
    if not orphans:
        return []
    first = orphans[0]
    return [
        warning(
            "ENTRIES_WITHOUT_ACCOUNT",
            f"Операций, не относящихся ни к одному счёту файла: {len(orphans)} (первая — "
            f"№ {first.number or '—'}, строка {first.lines.first}); они не вошли в выписки",
            text_locator(first.lines),
        )
    ]
