"""The recognised documents as the core keeps them, apart from any wire version."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class Period:
    start: date | None
    end: date | None
    text: str | None


@dataclass(frozen=True)
class TrialBalanceRow:
    row_id: int
    parent_row_id: int | None
    kind: str
    level: int
    account: str | None
    name: str | None
    opening_debit: Decimal | None
    opening_credit: Decimal | None
    turnover_debit: Decimal | None
    turnover_credit: Decimal | None
    closing_debit: Decimal | None
    closing_credit: Decimal | None
    confidence: Decimal
    locator: dict[str, Any]


@dataclass(frozen=True)
class StatementHeader:
    bank_name: str | None
    bank_bic: str | None
    account: str | None
    currency: str | None
    holder_name: str | None
    holder_tax_id: str | None
    period: Period | None
    opening_balance: Decimal | None
    closing_balance: Decimal | None
    total_debit: Decimal | None
    total_credit: Decimal | None


@dataclass(frozen=True)
class Transaction:
    date: date | None
    number: str | None
    debit: Decimal | None
    credit: Decimal | None
    debit_equivalent: Decimal | None
    credit_equivalent: Decimal | None
    counterparty_name: str | None
    counterparty_tax_id: str | None
    counterparty_account: str | None
    counterparty_bank: str | None
    counterparty_bank_bic: str | None
    purpose: str | None
    confidence: Decimal
    locator: dict[str, Any]


@dataclass(frozen=True)
class Document:
    kind: str  # osv | statement
    confidence: Decimal
    locator: dict[str, Any]
    warnings: list[dict[str, Any]]
    variant: str | None = None
    title: str | None = None
    organisation_name: str | None = None
    organisation_tax_id: str | None = None
    period: Period | None = None
    currency: str | None = None
    unit: str | None = None
    account_code: str | None = None
    account_name: str | None = None
    totals: dict[str, Any] | None = None
    rows: list[TrialBalanceRow] = field(default_factory=list)
    header: StatementHeader | None = None
    transactions: list[Transaction] = field(default_factory=list)


@dataclass(frozen=True)
class MappedResult:
    job_id: str
    file_id: str
    status: str
    group_schema: str
    documents: list[Document]
    warnings: list[dict[str, Any]]
