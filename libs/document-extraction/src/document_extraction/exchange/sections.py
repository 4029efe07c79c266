"""An account's sections against themselves, each other and their operations: a disagreement
is a warning naming the section by its account, dates and line."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from decimal import Decimal

from document_extraction.exchange.booking import Booked, booked_date
from document_extraction.exchange.model import Section, text_locator
from document_extraction.findings import warning
from document_extraction.numbers import format_money
from recognition_contract import Warning


def section_warnings(sections: Sequence[Section], booked: Sequence[Booked]) -> list[Warning]:
    """Each section against itself (opening + credits − debits = closing), against the one
    before it (its opening is that one's closing), and, where a file has several sections,
    against its own operations."""
    found: list[Warning] = []
    previous: Section | None = None
    for section in sections:
        found += _section_identity(section)
        if previous is not None:
            found += _section_chain(previous, section)
        if len(sections) > 1:
            found += _section_turnovers(section, section_entries(section, booked))
        previous = section
    return found


def section_entries(section: Section, booked: Sequence[Booked]) -> list[Booked]:
    """The operations of a section: those inside its lines (MT940 and camt nest them), else
    those of its days (1C lists the documents after all the sections)."""
    inside = [
        b
        for b in booked
        if section.lines.first <= b.entry.lines.first and b.entry.lines.last <= section.lines.last
    ]
    if inside or (section.start is None and section.end is None):
        return inside
    return [b for b in booked if _within(booked_date(b), section)]


def section_name(section: Section) -> str:
    days = [f"{d:%d.%m.%Y}" for d in (section.start, section.end) if d is not None]
    span = " – ".join(dict.fromkeys(days)) or "без дат"
    return f"Раздел счёта {section.account} ({span}, строка {section.lines.first})"


def _m(value: Decimal | None) -> str:
    return format_money(value) or "—"


def _section_identity(section: Section) -> list[Warning]:
    opening, credits, debits, closing = (
        section.opening,
        section.credits,
        section.debits,
        section.closing,
    )
    if opening is None or credits is None or debits is None or closing is None:
        return []
    if opening + credits - debits == closing:
        return []
    return [
        warning(
            "SECTION_BALANCE_MISMATCH",
            f"{section_name(section)}: начальный остаток {_m(opening)} + поступило "
            f"{_m(credits)} − списано {_m(debits)} = {_m(opening + credits - debits)}, "
            f"а конечный остаток {_m(closing)}",
            text_locator(section.lines),
        )
    ]


def _section_chain(previous: Section, section: Section) -> list[Warning]:
    if previous.closing is None or section.opening is None:
        return []
    if previous.closing == section.opening:
        return []
    return [
        warning(
            "SECTION_CHAIN_BROKEN",
            f"{section_name(section)}: начальный остаток {_m(section.opening)} не равен "
            f"конечному остатку предыдущего раздела {_m(previous.closing)}",
            text_locator(section.lines),
        )
    ]


def _section_turnovers(section: Section, days: Sequence[Booked]) -> list[Warning]:
    """Printed turnovers against the section's operations; where none are printed (MT940),
    the balances against them."""
    sums = {
        direction: sum((b.entry.amount for b in days if b.direction == direction), Decimal(0))
        for direction in ("debit", "credit")
    }
    if section.debits is None and section.credits is None:
        return _section_moves(section, sums["credit"], sums["debit"])
    found: list[Warning] = []
    for direction, printed, word in (
        ("debit", section.debits, "списано"),
        ("credit", section.credits, "поступило"),
    ):
        total = sums[direction]
        if printed is not None and total != printed:
            found.append(
                warning(
                    "SECTION_TOTALS_MISMATCH",
                    f"{section_name(section)}: {word} {_m(printed)}, а сумма операций этих "
                    f"дат {_m(total)}",
                    text_locator(section.lines),
                )
            )
    return found


def _section_moves(section: Section, credits: Decimal, debits: Decimal) -> list[Warning]:
    if section.opening is None or section.closing is None:
        return []
    if section.opening + credits - debits == section.closing:
        return []
    return [
        warning(
            "SECTION_BALANCE_MISMATCH",
            f"{section_name(section)}: начальный остаток {_m(section.opening)} + операции "
            f"раздела (поступления {_m(credits)} − списания {_m(debits)}) = "
            f"{_m(section.opening + credits - debits)}, а конечный остаток {_m(section.closing)}",
            text_locator(section.lines),
        )
    ]


def _within(day: datetime.date | None, section: Section) -> bool:
    if day is None:
        return False
    return (section.start is None or day >= section.start) and (
        section.end is None or day <= section.end
    )
