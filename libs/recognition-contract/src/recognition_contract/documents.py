"""The documents of a result file as typed values, defined once for the producers
(document-extraction, the recognition services) and the core, and serialised per MAJOR at the
edge: ``to_wire(document, major)`` and ``from_wire(data, major)``.

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
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Final, Literal, NamedTuple, NewType

from recognition_contract.enums import LEGACY_WARNING, Severity
from recognition_contract.errors import ContractError, Reason
from recognition_contract.schemas import document_errors
from recognition_contract.versions import SchemaVersion

Money = NewType("Money", str)
"""An amount as the contract writes it: ``-?digits(.d|.dd)?``, in the document's unit."""

Variant = Literal["general", "account", "subconto"]
RowKind = Literal["account", "subconto"]
Unit = Literal["units", "thousands"]

MONEY_FIELDS: Final = (
    "opening_debit",
    "opening_credit",
    "turnover_debit",
    "turnover_credit",
    "closing_debit",
    "closing_credit",
)
"""The six amounts of a trial balance row and of its totals, in the order of the schema."""


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
    """A reporting period: the text as printed and the dates read from it."""

    start: date | None
    end: date | None
    text: str


@dataclass(frozen=True, slots=True)
class Organisation:
    name: str
    tax_id: str | None


@dataclass(frozen=True, slots=True)
class AccountRef:
    """The account a per-account trial balance is about."""

    code: str
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


@dataclass(frozen=True, slots=True)
class Transaction:
    """One statement line: ``debit`` is money out of the account, ``credit`` money in.
    ``equivalents`` is ``None`` on a statement that prints no equivalent columns;
    ``document_kind`` and ``counterparty_kpp`` (since 2.3) where the source names them."""

    date: date | None
    number: str | None
    debit: Money | None
    credit: Money | None
    equivalents: Equivalents | None
    counterparty_name: str | None
    counterparty_tax_id: str | None
    counterparty_account: str | None
    counterparty_bank: str | None
    counterparty_bank_bic: str | None
    purpose: str | None
    confidence: float
    locator: Locator
    document_kind: str | None = None
    counterparty_kpp: str | None = None


@dataclass(frozen=True, slots=True)
class Statement:
    """A bank statement (выписка, ``type: "statement"``) of one account."""

    header: StatementHeader
    transactions: tuple[Transaction, ...]
    confidence: float
    locator: Locator
    warnings: tuple[Warning, ...]


Document = TrialBalance | Statement


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
    """The fields that are set, in the order of the schema."""
    out: dict[str, Any] = {}
    if locator.sheet is not None:
        out["sheet"] = locator.sheet
    if locator.page is not None:
        out["page"] = locator.page
    if locator.page_end is not None:
        out["page_end"] = locator.page_end
    if locator.row is not None:
        out["row"] = locator.row
    if locator.row_end is not None:
        out["row_end"] = locator.row_end
    if locator.column is not None:
        out["column"] = locator.column
    box = locator.bbox
    if box is not None:
        out["bbox"] = {"x0": box.x0, "y0": box.y0, "x1": box.x1, "y1": box.y1}
    return out


def locator_from_wire(data: Mapping[str, Any]) -> Locator:
    """A locator as the wire (and the core's storage) has it."""
    return _locator(data)


def _locator(data: Mapping[str, Any]) -> Locator:
    box = data.get("bbox")
    return Locator(
        sheet=data.get("sheet"),
        page=data.get("page"),
        page_end=data.get("page_end"),
        row=data.get("row"),
        row_end=data.get("row_end"),
        column=data.get("column"),
        bbox=BBox(box["x0"], box["y0"], box["x1"], box["y1"]) if box is not None else None,
    )


# ---------------------------------------------------------------- documents to the wire


def _date_to_wire(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


def _period_to_wire(period: Period | None) -> dict[str, Any] | None:
    if period is None:
        return None
    start, end = _date_to_wire(period.start), _date_to_wire(period.end)
    return {"from": start, "to": end, "text": period.text}


def _row_to_wire(row: TrialBalanceRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "parent": row.parent,
        "kind": row.kind,
        "level": row.level,
        "code": row.code,
        "name": row.name,
        "opening_debit": row.opening_debit,
        "opening_credit": row.opening_credit,
        "turnover_debit": row.turnover_debit,
        "turnover_credit": row.turnover_credit,
        "closing_debit": row.closing_debit,
        "closing_credit": row.closing_credit,
        "confidence": row.confidence,
        "locator": locator_to_wire(row.locator),
    }


def totals_to_wire(totals: Totals) -> dict[str, Any]:
    return {
        "opening_debit": totals.opening_debit,
        "opening_credit": totals.opening_credit,
        "turnover_debit": totals.turnover_debit,
        "turnover_credit": totals.turnover_credit,
        "closing_debit": totals.closing_debit,
        "closing_credit": totals.closing_credit,
        "locator": locator_to_wire(totals.locator),
    }


def _transaction_to_wire(line: Transaction) -> dict[str, Any]:
    out: dict[str, Any] = {
        "date": _date_to_wire(line.date),
        "number": line.number,
        "debit": line.debit,
        "credit": line.credit,
    }
    if line.equivalents is not None:
        out["debit_equivalent"] = line.equivalents.debit
        out["credit_equivalent"] = line.equivalents.credit
    out["counterparty_name"] = line.counterparty_name
    out["counterparty_tax_id"] = line.counterparty_tax_id
    out["counterparty_account"] = line.counterparty_account
    out["counterparty_bank"] = line.counterparty_bank
    out["counterparty_bank_bic"] = line.counterparty_bank_bic
    # Optional since 2.3: written only where known, so that other lines stay as before.
    if line.document_kind is not None:
        out["document_kind"] = line.document_kind
    if line.counterparty_kpp is not None:
        out["counterparty_kpp"] = line.counterparty_kpp
    out["purpose"] = line.purpose
    out["confidence"] = line.confidence
    out["locator"] = locator_to_wire(line.locator)
    return out


def _header_to_wire(header: StatementHeader) -> dict[str, Any]:
    return {
        "bank_name": header.bank_name,
        "bank_bic": header.bank_bic,
        "account": header.account,
        "currency": header.currency,
        "holder_name": header.holder_name,
        "holder_tax_id": header.holder_tax_id,
        "period": _period_to_wire(header.period),
        "opening_balance": header.opening_balance,
        "closing_balance": header.closing_balance,
        "total_debit": header.total_debit,
        "total_credit": header.total_credit,
    }


def to_wire(document: Document, major: int) -> dict[str, Any]:
    """The osvDocument / statementDocument of MAJOR ``major``, ready for JSON. Not checked
    here: the result file it goes into is (``result_file_payload``)."""
    if isinstance(document, TrialBalance):
        organisation = document.organisation
        account = document.account
        return {
            "type": "osv",
            "variant": document.variant,
            "title": document.title,
            "organisation": (
                {"name": organisation.name, "tax_id": organisation.tax_id}
                if organisation is not None
                else None
            ),
            "period": _period_to_wire(document.period),
            "currency": document.currency,
            "unit": document.unit,
            "account": {"code": account.code, "name": account.name} if account else None,
            "rows": [_row_to_wire(row) for row in document.rows],
            "totals": totals_to_wire(document.totals) if document.totals is not None else None,
            "confidence": document.confidence,
            "locator": locator_to_wire(document.locator),
            "warnings": warnings_to_wire(document.warnings, major),
        }
    return {
        "type": "statement",
        "header": _header_to_wire(document.header),
        "transactions": [_transaction_to_wire(line) for line in document.transactions],
        "confidence": document.confidence,
        "locator": locator_to_wire(document.locator),
        "warnings": warnings_to_wire(document.warnings, major),
    }


# ---------------------------------------------------------------- documents from the wire


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value is not None else None


def _period(data: Mapping[str, Any] | None) -> Period | None:
    if data is None:
        return None
    return Period(start=_date(data["from"]), end=_date(data["to"]), text=data["text"])


def _row(data: Mapping[str, Any]) -> TrialBalanceRow:
    return TrialBalanceRow(
        id=data["id"],
        parent=data["parent"],
        kind=data["kind"],
        level=data["level"],
        code=data["code"],
        name=data["name"],
        opening_debit=data["opening_debit"],
        opening_credit=data["opening_credit"],
        turnover_debit=data["turnover_debit"],
        turnover_credit=data["turnover_credit"],
        closing_debit=data["closing_debit"],
        closing_credit=data["closing_credit"],
        confidence=data["confidence"],
        locator=_locator(data["locator"]),
    )


def _totals(data: Mapping[str, Any]) -> Totals:
    return Totals(
        opening_debit=data["opening_debit"],
        opening_credit=data["opening_credit"],
        turnover_debit=data["turnover_debit"],
        turnover_credit=data["turnover_credit"],
        closing_debit=data["closing_debit"],
        closing_credit=data["closing_credit"],
        locator=_locator(data["locator"]),
    )


def _transaction(data: Mapping[str, Any]) -> Transaction:
    equivalents = None
    if "debit_equivalent" in data or "credit_equivalent" in data:
        equivalents = Equivalents(data.get("debit_equivalent"), data.get("credit_equivalent"))
    return Transaction(
        date=_date(data["date"]),
        number=data["number"],
        debit=data["debit"],
        credit=data["credit"],
        equivalents=equivalents,
        counterparty_name=data["counterparty_name"],
        counterparty_tax_id=data["counterparty_tax_id"],
        counterparty_account=data["counterparty_account"],
        counterparty_bank=data["counterparty_bank"],
        counterparty_bank_bic=data.get("counterparty_bank_bic"),
        purpose=data["purpose"],
        confidence=data["confidence"],
        locator=_locator(data["locator"]),
        document_kind=data.get("document_kind"),
        counterparty_kpp=data.get("counterparty_kpp"),
    )


def _header(data: Mapping[str, Any]) -> StatementHeader:
    return StatementHeader(
        bank_name=data["bank_name"],
        bank_bic=data["bank_bic"],
        account=data["account"],
        currency=data["currency"],
        holder_name=data["holder_name"],
        holder_tax_id=data["holder_tax_id"],
        period=_period(data["period"]),
        opening_balance=data["opening_balance"],
        closing_balance=data["closing_balance"],
        total_debit=data["total_debit"],
        total_credit=data["total_credit"],
    )


def document_of(data: Mapping[str, Any], major: int) -> Document:
    """A document that already matched its MAJOR's schema (inside a checked result file)."""
    warnings = tuple(_warning(item, major) for item in data["warnings"])
    if data["type"] == "osv":
        organisation = data["organisation"]
        account = data["account"]
        totals = data["totals"]
        return TrialBalance(
            variant=data["variant"],
            title=data["title"],
            organisation=(
                Organisation(organisation["name"], organisation["tax_id"])
                if organisation is not None
                else None
            ),
            period=_period(data["period"]),
            currency=data["currency"],
            unit=data["unit"],
            account=AccountRef(account["code"], account["name"]) if account is not None else None,
            rows=tuple(_row(row) for row in data["rows"]),
            totals=_totals(totals) if totals is not None else None,
            confidence=data["confidence"],
            locator=_locator(data["locator"]),
            warnings=warnings,
        )
    return Statement(
        header=_header(data["header"]),
        transactions=tuple(_transaction(line) for line in data["transactions"]),
        confidence=data["confidence"],
        locator=_locator(data["locator"]),
        warnings=warnings,
    )


def from_wire(data: object, major: int) -> Document:
    """One osvDocument / statementDocument of MAJOR ``major`` as a typed value; the schema of
    that MAJOR judges it first, and ``ContractError`` says why it does not fit."""
    errors = document_errors(major, data)
    if errors:
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        message = f"document does not match MAJOR {major}: {errors[0]}{more}"
        raise ContractError(Reason.SCHEMA, message, errors=errors)
    assert isinstance(data, Mapping)  # the schema refuses anything else
    return document_of(data, major)
