"""Reconciliation of a consolidation's documents with one another:

* statements of one account (and currency) in consecutive periods chain: the closing balance
  of one is the opening balance of the next; gaps and overlaps of periods are named;
* trial balances of one organisation (and kind) in consecutive periods chain the same way,
  account by account;
* the bank accounts' line of a trial balance (51 «Расчетные счета») agrees with the statements
  in national currency of the same period: its debit turnover is their incoming money, its
  credit turnover their outgoing, its balances theirs;
* the same bytes uploaded twice (and the same statement in two files, ``duplicates``): each
  counted once in the checks above.

A trial balance is compared only with statements of its own organisation (by tax id, else by
name), and a file the analyst excluded takes part in nothing (``reconcile``).

Every finding names the documents (and rows) that disagree and by how much. Pure: the
documents come in as the API gives them, nothing is read or written here.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Generic, Literal, TypeVar

from recognition_contract import (
    Document,
    Locator,
    Organisation,
    Period,
    Statement,
    TrialBalance,
    TrialBalanceRow,
    locator_to_wire,
)

ZERO = Decimal(0)
DAY = dt.timedelta(days=1)
# Statements in these currencies are the national currency a trial balance keeps 51 in.
NATIONAL = frozenset({None, "", "BYN", "BYR", "933", "974", "RUB", "RUR", "643", "810"})
BANK_ACCOUNT = "51"


@dataclass(frozen=True)
class Place:
    """A document, or a row of one, that a finding points at."""

    file_id: str
    file_name: str
    document: int  # its position in the file, from 1
    what: str  # in the analyst's words: «выписка BY… за 01.01–31.01.2024»
    locator: dict[str, Any] | None = None


@dataclass(frozen=True)
class Finding:
    check: str
    code: str
    message: str
    places: tuple[Place, ...]
    difference: Decimal | None = None


@dataclass
class Check:
    """One kind of check: what it compared, and what disagreed."""

    code: str
    title: str
    compared: int = 0
    findings: list[Finding] = field(default_factory=list)


@dataclass(frozen=True)
class FileDocuments:
    file_id: str
    name: str
    sha256: str | None
    # None: a document counted in another file (``duplicates.distinct``), kept so that every
    # other document keeps its position (the links point at #doc-N).
    documents: list[Document | None]
    excluded: bool = False


D = TypeVar("D", TrialBalance, Statement)


@dataclass(frozen=True)
class _Doc(Generic[D]):
    place: Place
    start: dt.date
    end: dt.date
    doc: D


def _money(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _fmt(value: Decimal) -> str:
    sign = "−" if value < 0 else ""
    whole, _, cents = f"{abs(value):.2f}".partition(".")
    groups = f"{int(whole):,}".replace(",", "\u00a0")
    return f"{sign}{groups},{cents}"


def _day(value: dt.date) -> str:
    return value.strftime("%d.%m.%Y")


def _span(start: dt.date, end: dt.date) -> str:
    return f"{_day(start)}–{_day(end)}"


def _period_of(period: Period | None) -> tuple[dt.date, dt.date] | None:
    if period is None or not period.start or not period.end:
        return None
    start, end = period.start, period.end
    return (start, end) if start <= end else None


def _account(value: str | None) -> str:
    return "".join((value or "").split()).upper()


def statement_what(doc: Statement) -> str:
    """A statement in the analyst's words: «выписка BY… за 01.01.2024–31.01.2024»."""
    header = doc.header
    period = _period_of(header.period)
    during = f" за {_span(*period)}" if period else ""
    return f"выписка {header.account or 'без счёта'}{during}"


def _statements(files: list[FileDocuments]) -> list[_Doc[Statement]]:
    out = []
    for file in files:
        for index, doc in enumerate(file.documents, start=1):
            if not isinstance(doc, Statement):
                continue
            period = _period_of(doc.header.period)
            if period is None:
                continue
            what = statement_what(doc)
            out.append(_Doc(Place(file.file_id, file.name, index, what), *period, doc))
    return out


def _trial_balances(files: list[FileDocuments]) -> list[_Doc[TrialBalance]]:
    out = []
    for file in files:
        for index, doc in enumerate(file.documents, start=1):
            if not isinstance(doc, TrialBalance):
                continue
            period = _period_of(doc.period)
            if period is None:
                continue
            code = doc.account.code if doc.account else None
            what = f"ОСВ{f' по счёту {code}' if code else ''} за {_span(*period)}"
            out.append(_Doc(Place(file.file_id, file.name, index, what), *period, doc))
    return out


def _periods(check: Check, docs: list[_Doc[D]], subject: str) -> list[tuple[_Doc[D], _Doc[D]]]:
    """Consecutive documents of one subject, their gaps and overlaps added to ``check``;
    the pairs that meet end to start, to be chained."""
    ordered = sorted(docs, key=lambda d: (d.start, d.end))
    adjacent = []
    for before, after in itertools.pairwise(ordered):
        check.compared += 1
        if after.start > before.end + DAY:
            check.findings.append(
                Finding(
                    check.code,
                    "PERIOD_GAP",
                    f"{subject}: нет документа за {_span(before.end + DAY, after.start - DAY)}",
                    (before.place, after.place),
                )
            )
        elif after.start <= before.end:
            check.findings.append(
                Finding(
                    check.code,
                    "PERIOD_OVERLAP",
                    f"{subject}: периоды пересекаются ({_day(after.start)}–"
                    f"{_day(min(before.end, after.end))})",
                    (before.place, after.place),
                )
            )
        else:
            adjacent.append((before, after))
    return adjacent


def statement_chain(files: list[FileDocuments]) -> Check:
    check = Check("STATEMENT_CHAIN", "Выписки по одному счёту идут без разрывов")
    by_account: dict[tuple[str, str], list[_Doc[Statement]]] = defaultdict(list)
    for doc in _statements(files):
        header = doc.doc.header
        if header.account:
            by_account[(_account(header.account), header.currency or "")].append(doc)
    for (account, _currency), docs in sorted(by_account.items()):
        for before, after in _periods(check, docs, f"Счёт {account}"):
            closing = _money(before.doc.header.closing_balance)
            opening = _money(after.doc.header.opening_balance)
            if closing is None or opening is None or closing == opening:
                continue
            check.findings.append(
                Finding(
                    check.code,
                    "BALANCE_BREAK",
                    f"Счёт {account}: остаток на конец {_day(before.end)} {_fmt(closing)}, "
                    f"а на начало {_day(after.start)} {_fmt(opening)}",
                    (before.place, after.place),
                    opening - closing,
                )
            )
    return check


def _net(row: TrialBalanceRow, side: Literal["opening", "closing"]) -> Decimal:
    debit, credit = getattr(row, f"{side}_debit"), getattr(row, f"{side}_credit")
    return (_money(debit) or ZERO) - (_money(credit) or ZERO)


def _row_key(row: TrialBalanceRow) -> tuple[str, str]:
    return (_account(row.code), " ".join((row.name or "").split()).lower())


def trial_balance_chain(files: list[FileDocuments]) -> Check:
    check = Check("TRIAL_BALANCE_CHAIN", "ОСВ соседних периодов продолжают друг друга")
    subjects: dict[tuple[str, str, str, str], list[_Doc[TrialBalance]]] = defaultdict(list)
    for doc in _trial_balances(files):
        organisation, ref = doc.doc.organisation, doc.doc.account
        who = (organisation.tax_id or (organisation.name or "").lower()) if organisation else ""
        account = (ref.code if ref else None) or ""
        subjects[(who, doc.doc.variant, account, doc.doc.currency or "")].append(doc)
    for (_who, _variant, account, _currency), docs in sorted(subjects.items()):
        subject = f"ОСВ по счёту {account}" if account else "ОСВ"
        for before, after in _periods(check, docs, subject):
            closing = {_row_key(row): row for row in before.doc.rows}
            for row in after.doc.rows:
                key = _row_key(row)
                if key not in closing:
                    continue
                was, now = _net(closing[key], "closing"), _net(row, "opening")
                if was == now:
                    continue
                label = " ".join(v for v in (row.code, row.name) if v)
                check.findings.append(
                    Finding(
                        check.code,
                        "BALANCE_BREAK",
                        f"{label}: сальдо на конец {_day(before.end)} {_fmt(was)}, "
                        f"на начало {_day(after.start)} {_fmt(now)} (Дт − Кт)",
                        (
                            _at(before.place, closing[key].locator),
                            _at(after.place, row.locator),
                        ),
                        now - was,
                    )
                )
    return check


def _at(place: Place, locator: Locator) -> Place:
    # As the API shows a locator: the fields that are set.
    wire = locator_to_wire(locator)
    return Place(place.file_id, place.file_name, place.document, place.what, wire)


def _covered(start: dt.date, end: dt.date, docs: Iterable[_Doc[Statement]]) -> bool:
    reach = start - DAY
    for doc in sorted(docs, key=lambda d: d.start):
        if doc.start > reach + DAY:
            return False
        reach = max(reach, doc.end)
    return reach >= end


def bank_accounts(files: list[FileDocuments]) -> Check:
    check = Check("BANK_ACCOUNTS", "Счёт 51 в ОСВ сходится с выписками")
    statements = [
        doc for doc in _statements(files) if (doc.doc.header.currency or None) in NATIONAL
    ]
    if not statements:
        return check
    for osv in _trial_balances(files):
        if osv.doc.variant != "general":
            continue
        row = next((r for r in osv.doc.rows if _account(r.code) == BANK_ACCOUNT), None)
        if row is None:
            continue
        inside = [
            s
            for s in statements
            if osv.start <= s.start and s.end <= osv.end and same_holder(osv.doc, s.doc)
        ]
        by_account: dict[str, list[_Doc[Statement]]] = defaultdict(list)
        for statement in inside:
            by_account[_account(statement.doc.header.account)].append(statement)
        if not by_account or not all(
            _covered(osv.start, osv.end, docs) for docs in by_account.values()
        ):
            continue
        check.compared += 1
        firsts = [min(docs, key=lambda d: d.start) for docs in by_account.values()]
        lasts = [max(docs, key=lambda d: d.end) for docs in by_account.values()]
        sums = {
            "opening": sum((_money(d.doc.header.opening_balance) or ZERO for d in firsts), ZERO),
            "closing": sum((_money(d.doc.header.closing_balance) or ZERO for d in lasts), ZERO),
            "in": sum((_money(t.credit) or ZERO for d in inside for t in d.doc.transactions), ZERO),
            "out": sum((_money(t.debit) or ZERO for d in inside for t in d.doc.transactions), ZERO),
        }
        ledger = {
            "opening": _net(row, "opening"),
            "closing": _net(row, "closing"),
            "in": _money(row.turnover_debit) or ZERO,
            "out": _money(row.turnover_credit) or ZERO,
        }
        words = {
            "opening": "сальдо на начало",
            "closing": "сальдо на конец",
            "in": "оборот по дебету (поступления)",
            "out": "оборот по кредиту (списания)",
        }
        places = (_at(osv.place, row.locator), *(d.place for d in inside))
        for key, word in words.items():
            if ledger[key] == sums[key]:
                continue
            check.findings.append(
                Finding(
                    check.code,
                    "BANK_MISMATCH",
                    f"Счёт 51, {word}: в ОСВ {_fmt(ledger[key])}, по выпискам {_fmt(sums[key])}",
                    places,
                    ledger[key] - sums[key],
                )
            )
    return check


def same_files(files: list[FileDocuments]) -> Check:
    check = Check("SAME_FILE", "Нет одинаковых файлов и документов")
    by_digest: dict[str, list[FileDocuments]] = defaultdict(list)
    for file in files:
        if file.sha256:
            by_digest[file.sha256].append(file)
    check.compared = len(files)
    for copies in by_digest.values():
        if len(copies) < 2:
            continue
        names = ", ".join(f"«{f.name}»" for f in copies)
        check.findings.append(
            Finding(
                check.code,
                "SAME_FILE",
                f"Один и тот же файл загружен {len(copies)} раза: {names}; в сверках учтён "
                "один раз",
                tuple(Place(f.file_id, f.name, 0, "файл целиком") for f in copies),
            )
        )
    return check


_LEGAL_FORMS = frozenset(
    {"ооо", "оао", "зао", "ао", "пао", "одо", "чуп", "чтуп", "уп", "ип", "тоо", "llc", "ltd"}
)


def _name(value: str | None) -> str:
    words = "".join(c if c.isalnum() else " " for c in (value or "").lower()).split()
    return " ".join(w for w in words if w not in _LEGAL_FORMS)


def same_holder(osv: TrialBalance, statement: Statement) -> bool:
    """Whether a statement may be compared with a trial balance: its holder is the trial
    balance's organisation, by tax id where both name one, else by name; where either names
    nobody there is nothing to tell them apart by."""
    organisation = osv.organisation or Organisation(None, None)
    header = statement.header
    ours, theirs = organisation.tax_id, header.holder_tax_id
    if ours and theirs:
        return "".join(filter(str.isdigit, ours)) == "".join(filter(str.isdigit, theirs))
    ours, theirs = _name(organisation.name), _name(header.holder_name)
    return not (ours and theirs) or ours == theirs
