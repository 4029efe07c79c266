"""SWIFT MT940, the customer statement of foreign-currency and Central Asian accounts: one or
more messages, each ``:20:`` reference, ``:25:`` account, ``:28C:`` number, ``:60F:``/``:60M:``
opening balance, ``:61:`` lines each with an optional ``:86:`` description, ``:62F:``/``:62M:``
closing balance. Messages of one account chain into one statement."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Final

from document_extraction.dates import swift_date
from document_extraction.exchange.decoding import decode
from document_extraction.exchange.model import (
    Direction,
    Entry,
    Ledger,
    Lines,
    Party,
    Refused,
    Section,
    text_locator,
)
from document_extraction.findings import warning
from document_extraction.identifiers import compact
from document_extraction.numbers import exchange_amount
from recognition_contract import ErrorCode, Warning

_TAG: Final = re.compile(r"^:(\d{2}[A-Z]?|NS):(.*)$")
_BALANCE: Final = re.compile(r"^([CD])(\d{6})([A-Z]{3})(\d+,?\d*)")
_LINE: Final = re.compile(
    r"^(?P<value>\d{6})(?P<entry>\d{4}| {4})?(?P<mark>RC|RD|C|D)[A-Z]?(?P<amount>\d+,\d*)"
    r"(?P<kind>[NSF][A-Z0-9]{3})?(?P<reference>[^/\n]*)(?://(?P<bank>[^\n]*))?"
)
# A debit or credit mark, and what a reversal of it moves.
_DIRECTIONS: Final[dict[str, Direction]] = {
    "C": "credit",
    "D": "debit",
    "RC": "debit",
    "RD": "credit",
}
# Structured :86: of German banks: ?20-?29 purpose, ?30 BIC, ?31 account, ?32-?33 name.
_SUBFIELD: Final = re.compile(r"\?(\d{2})")
_SLASHED: Final = re.compile(r"/(NAME|CNTP|REMI|IBAN|BIC|ORDP|BENM|ADDR)/")


@dataclass
class _Field:
    tag: str
    value: str
    first: int
    last: int


@dataclass
class _Message:
    fields: list[_Field] = field(default_factory=list)


def read_mt940(source: bytes) -> tuple[Ledger, tuple[str, ...]]:
    text = decode(source)
    messages = list(_messages(text.lines))
    if not messages:
        raise Refused(ErrorCode.INVALID_DOCUMENT, "В файле MT940 нет ни одного сообщения")
    sections: list[Section] = []
    entries: list[Entry] = []
    currencies: dict[str, str] = {}
    notes: list[Warning] = []
    for message in messages:
        section, lines, problems = _message(message)
        notes += problems
        if section is None:
            continue
        sections.append(section)
        entries += lines
        if section.currency is not None:
            currencies.setdefault(section.account, section.currency)
    return (
        Ledger(
            sections=tuple(sections),
            entries=tuple(entries),
            currencies=currencies,
            warnings=tuple(notes),
        ),
        text.lines,
    )


def _messages(lines: Sequence[str]) -> Iterator[_Message]:
    """Fields grouped into messages (a message starts at ``:20:``); continuation lines join
    the field before them, SWIFT block wrappers are dropped."""
    message: _Message | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.strip("\x01\x03").rstrip()
        if line.startswith("{") and ":20:" in line:
            line = line[line.index(":20:") :]
        if not line or line.startswith(("{", "-}")) or line == "-":
            continue
        tag = _TAG.match(line)
        if tag is not None:
            if tag[1] == "20" and message is not None:
                yield message
                message = None
            message = message or _Message()
            message.fields.append(_Field(tag[1], tag[2], number, number))
        elif message is not None and message.fields:
            last = message.fields[-1]
            last.value += "\n" + line
            last.last = number
    if message is not None:
        yield message


def _message(message: _Message) -> tuple[Section | None, list[Entry], list[Warning]]:
    account: str | None = None
    opening: tuple[Decimal, datetime.date | None, str] | None = None
    closing: tuple[Decimal, datetime.date | None, str] | None = None
    problems: list[Warning] = []
    # Each :61: with the :86: that describes it, when one follows.
    lines: list[tuple[_Field, _Field | None]] = []
    for item in message.fields:
        if item.tag == "25":
            # ``NL69INGB0123456789 EUR``, ``INGBNL2A/0123456789``: the account is the first word.
            account = compact((item.value.split() or [""])[0]) or None
        elif item.tag in ("60F", "60M"):
            opening = _balance(item.value)
        elif item.tag in ("62F", "62M"):
            closing = _balance(item.value)
        elif item.tag == "61":
            lines.append((item, None))
        elif item.tag == "86" and lines and lines[-1][1] is None:
            lines[-1] = (lines[-1][0], item)
    entries = [
        entry
        for line, info in lines
        if (entry := _entry(line, info, account, problems)) is not None
    ]
    if account is None:
        return None, [], problems
    first, last = message.fields[0].first, message.fields[-1].last
    currency = (opening or closing or (None, None, None))[2]
    section = Section(
        lines=Lines(first, last),
        account=account,
        # Balances are dated the day before the first entry or after the last: the period
        # is the entries' days.
        start=None,
        end=None,
        opening=opening[0] if opening else None,
        credits=None,
        debits=None,
        closing=closing[0] if closing else None,
        currency=currency,
    )
    return section, entries, problems


def _balance(value: str) -> tuple[Decimal, datetime.date | None, str] | None:
    found = _BALANCE.match(value.strip())
    if found is None:
        return None
    amount = exchange_amount(found[4])
    if amount is None:
        return None
    return (-amount if found[1] == "D" else amount), swift_date(found[2]), found[3]


def _entry(
    line: _Field, info: _Field | None, account: str | None, problems: list[Warning]
) -> Entry | None:
    found = _LINE.match(line.value)
    amount = exchange_amount(found["amount"]) if found else None
    if found is None or amount is None:
        problems.append(
            warning(
                "LINE_UNREADABLE",
                f"Строка :61: «{line.value[:40]}» не читается: операция не включена в выписку",
                text_locator(Lines(line.first, line.last)),
            )
        )
        return None
    value_date = swift_date(found["value"])
    description = info.value if info is not None else None
    counterparty, purpose = _details(description)
    reference = (found["reference"] or "").strip()
    direction = _DIRECTIONS[found["mark"]]
    return Entry(
        lines=Lines(line.first, info.last if info is not None else line.last),
        amount=amount,
        date=_booking_date(value_date, found["entry"]),
        number=reference if reference and reference.upper() != "NONREF" else None,
        purpose=purpose,
        payer=counterparty if direction == "credit" else Party(),
        receiver=counterparty if direction == "debit" else Party(),
        direction=direction,
        account=account,
    )


def _booking_date(value: datetime.date | None, entry: str | None) -> datetime.date | None:
    """The entry date (MMDD) in the value date's year, which may be the year before or after
    around New Year."""
    if value is None or entry is None or not entry.strip():
        return value
    try:
        booked = datetime.date(value.year, int(entry[:2]), int(entry[2:]))
    except ValueError:
        return value
    if (booked - value).days > 180:
        return booked.replace(year=value.year - 1)
    if (value - booked).days > 180:
        return booked.replace(year=value.year + 1)
    return booked


def _details(text: str | None) -> tuple[Party, str | None]:
    """The counterparty and purpose in a ``:86:`` description: German ``?NN`` subfields,
    Dutch ``/NAME/…/REMI/…`` codes, or free text (the purpose)."""
    if text is None:
        return Party(), None
    flat = text.replace("\n", "")
    if _SUBFIELD.search(flat[:6]):
        parts = dict[str, list[str]]()
        pieces = _SUBFIELD.split(flat)
        for code, value in zip(pieces[1::2], pieces[2::2], strict=False):
            parts.setdefault(code, []).append(value)
        purpose = "".join(v for c in sorted(parts) if "20" <= c <= "29" for v in parts[c])
        name = "".join(parts.get("32", []) + parts.get("33", []))
        return (
            Party(
                name=name or None,
                account="".join(parts.get("31", [])) or None,
                bic="".join(parts.get("30", [])) or None,
            ),
            purpose or None,
        )
    if _SLASHED.search(flat):
        codes = _slashed(flat)
        cntp = codes.get("CNTP", "").split("/")
        name = codes.get("NAME") or (cntp[2] if len(cntp) > 2 else "")
        account = codes.get("IBAN") or cntp[0]
        bic = codes.get("BIC") or (cntp[1] if len(cntp) > 1 else "")
        remi = codes.get("REMI", "").split("//", 1)[-1]
        return Party(name=name or None, account=account or None, bic=bic or None), remi or None
    return Party(), " ".join(text.split()) or None


def _slashed(text: str) -> dict[str, str]:
    pieces = _SLASHED.split(text)
    return {code: value.strip("/") for code, value in zip(pieces[1::2], pieces[2::2], strict=False)}
