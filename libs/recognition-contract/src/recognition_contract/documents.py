"""The documents of a result file as typed values, defined once for the producers
(document-extraction, the recognition services) and the core, and serialised per MAJOR at the
edge: ``to_wire(document, major)`` and ``from_wire(data, major)`` (``document_wire``, derived
from the fields declared here).

Both MAJORs share the document shapes; MAJOR 1 writes warnings as text and reads text back as
``LEGACY_WARNING`` warnings, so that everything on this side of the wire sees one form.

Money stays the contract's decimal string (``Money``), exactly as the producer wrote it: a
trial balance of 100,000 rows carries 600,000 amounts, and a string costs a fraction of a
``Decimal`` to build and to keep; ``amount()`` gives the ``Decimal`` where arithmetic needs it.
Confidence is the number the producer computed (an ``int`` when whole), written as it is, so a
file says ``100`` or ``99.5`` the same before and after a round trip.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import date
from decimal import Decimal
from typing import Any, Final, Literal, NamedTuple, NewType

from recognition_contract.enums import LEGACY_WARNING, Severity
from recognition_contract.versions import SchemaVersion

Money = NewType("Money", str)
"""An amount as the contract writes it: ``-?digits(.d|.dd)?``, in the document's unit."""

Variant = Literal["general", "account", "subconto"]
RowKind = Literal["account", "subconto"]
Unit = Literal["units", "thousands"]


def amount(value: Money | None) -> Decimal | None:
    return Decimal(value) if value is not None else None


@dataclass(frozen=True, slots=True)
class BBox:
    """Box on a page as fractions of its width (x) and height (y), origin top-left."""

    x0: float
    y0: float
    x1: float
    y1: float


class Locator(NamedTuple):
    """Where something is in the source: a ``sheet`` (workbooks) or a ``page`` (PDF, images),
    optionally narrowed to rows, a column (sheets) or a box (pages).

    A named tuple rather than a frozen dataclass, like ``TrialBalanceRow``: a 100,000-row
    sheet makes one of each per row, and a frozen dataclass costs three times as much to
    build; both are immutable values all the same (``_replace`` makes a changed copy)."""

    sheet: str | None = None
    page: int | None = None
    page_end: int | None = None
    row: int | None = None
    row_end: int | None = None
    column: str | None = None
    bbox: BBox | None = None


@dataclass(frozen=True, slots=True)
class Warning:
    """Something a person should look at; 1.x text becomes one by ``legacy_warning``."""

    code: str
    severity: Severity
    message: str
    locator: Locator | None = None


@dataclass(frozen=True, slots=True)
class Period:
    """A reporting period: the text as printed and the dates read from it. ``text`` is None
    only in a document as an analyst corrected it (the core's review: corrected dates no
    longer say what the printed text does); the wire requires it, and a result file is
    checked by its schema."""

    start: date | None
    end: date | None
    text: str | None


@dataclass(frozen=True, slots=True)
class Organisation:
    """``name`` is None only as an analyst corrected it (see ``Period``)."""

    name: str | None
    tax_id: str | None


@dataclass(frozen=True, slots=True)
class AccountRef:
    """The account a per-account trial balance is about (``code`` None only as an analyst
    corrected it, see ``Period``)."""

    code: str | None
    name: str | None


class TrialBalanceRow(NamedTuple):
    id: int
    parent: int | None
    kind: RowKind
    level: int
    code: str | None
    name: str | None
    opening_debit: Money | None
    opening_credit: Money | None
    turnover_debit: Money | None
    turnover_credit: Money | None
    closing_debit: Money | None
    closing_credit: Money | None
    confidence: float
    locator: Locator


@dataclass(frozen=True, slots=True)
class Totals:
    """The Итого row as printed."""

    opening_debit: Money | None
    opening_credit: Money | None
    turnover_debit: Money | None
    turnover_credit: Money | None
    closing_debit: Money | None
    closing_credit: Money | None
    locator: Locator


MONEY_FIELDS: Final = tuple(f.name for f in fields(Totals) if f.name != "locator")
"""The six amounts of a trial balance row and of its totals, in the order of the schema."""


@dataclass(frozen=True, slots=True)
class TrialBalance:
    """A trial balance (ОСВ, ``type: "osv"``): one sheet or one printed report."""

    variant: Variant
    title: str | None
    organisation: Organisation | None
    period: Period | None
    currency: str | None
    unit: Unit
    account: AccountRef | None
    rows: tuple[TrialBalanceRow, ...]
    totals: Totals | None
    confidence: float
    locator: Locator
    warnings: tuple[Warning, ...]


@dataclass(frozen=True, slots=True)
class StatementHeader:
    bank_name: str | None
    bank_bic: str | None
    account: str | None
    currency: str | None
    holder_name: str | None
    holder_tax_id: str | None
    period: Period | None
    opening_balance: Money | None
    closing_balance: Money | None
    total_debit: Money | None
    total_credit: Money | None


@dataclass(frozen=True, slots=True)
class Equivalents:
    """National-currency equivalents of a line of a currency account's statement."""

    debit: Money | None
    credit: Money | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Transaction:
    """One statement line: ``debit`` is money out of the account, ``credit`` money in.
    ``equivalents`` is ``None`` on a statement that prints no equivalent columns;
    ``document_kind`` and ``counterparty_kpp`` (since 2.3) where the source names them.

    Fields in the order of the schema (the wire is written in it); keyword-only, so that the
    optional ones (a default: absent on the wire means None) sit where the schema has them."""

    date: date | None
    number: str | None
    debit: Money | None
    credit: Money | None
    equivalents: Equivalents | None
    counterparty_name: str | None
    counterparty_tax_id: str | None
    counterparty_account: str | None
    counterparty_bank: str | None
    counterparty_bank_bic: str | None = None
    document_kind: str | None = None
    counterparty_kpp: str | None = None
    purpose: str | None
    confidence: float
    locator: Locator


@dataclass(frozen=True, slots=True)
class Statement:
    """A bank statement (выписка, ``type: "statement"``) of one account."""

    header: StatementHeader
    transactions: tuple[Transaction, ...]
    confidence: float
    locator: Locator
    warnings: tuple[Warning, ...]


Document = TrialBalance | Statement

_BBOX: Final = tuple(f.name for f in fields(BBox))


# ---------------------------------------------------------------- warnings


def legacy_warning(text: str) -> Warning:
    """A 1.x free-text warning as a structured one."""
    return Warning(code=LEGACY_WARNING, severity=Severity.INFO, message=text, locator=None)


def warning_text(warning: Warning) -> str:
    """A structured warning as 1.x free text; a wrapped legacy warning gets its text back."""
    if warning.code == LEGACY_WARNING and warning.locator is None:
        return warning.message
    where = ""
    if warning.locator is not None:
        where = " ".join(
            f"{k}={v}" for k, v in locator_to_wire(warning.locator).items() if k != "bbox"
        )
    prefix = f"{where} {warning.code}" if where else warning.code
    return f"{prefix}: {warning.message}"


def warning_to_wire(warning: Warning, major: int) -> str | dict[str, Any]:
    """Text in 1.x; in 2.x ``{code, severity, message, locator}`` with ``locator: None`` when
    the warning points nowhere, which is also how the core stores warnings."""
    if major == 1:
        return warning_text(warning)
    locator = warning.locator
    return {
        "code": warning.code,
        "severity": warning.severity.value,
        "message": warning.message,
        "locator": locator_to_wire(locator) if locator is not None else None,
    }


def warnings_to_wire(warnings: Iterable[Warning], major: int) -> list[Any]:
    return [warning_to_wire(w, major) for w in warnings]


def _warning(data: Any, major: int) -> Warning:
    if major == 1:
        return legacy_warning(str(data))
    locator = data.get("locator")
    return Warning(
        code=data["code"],
        severity=Severity(data["severity"]),
        message=data["message"],
        locator=_locator(locator) if locator is not None else None,
    )


def warnings_from(raw: Iterable[object], version: SchemaVersion) -> tuple[Warning, ...]:
    """Warnings of a payload that already matched its MAJOR's schema, as they come on the wire
    of ``version``: strings in 1.x, objects in 2.x."""
    return tuple(_warning(item, version.major) for item in raw)


# ---------------------------------------------------------------- locators


def locator_to_wire(locator: Locator) -> dict[str, Any]:
    """The fields that are set, in the order of the schema (the order declared above)."""
    out: dict[str, Any] = {
        name: value
        for name, value in zip(Locator._fields, locator, strict=True)
        if value is not None
    }
    box = locator.bbox
    if box is not None:
        out["bbox"] = {name: getattr(box, name) for name in _BBOX}
    return out


def locator_from_wire(data: Mapping[str, Any]) -> Locator:
    """A locator as the wire (and the core's storage) has it."""
    return _locator(data)


def _locator(data: Mapping[str, Any]) -> Locator:
    box = data.get("bbox")
    return Locator._make(data.get(name) for name in Locator._fields)._replace(
        bbox=BBox(**{name: box[name] for name in _BBOX}) if box is not None else None
    )
