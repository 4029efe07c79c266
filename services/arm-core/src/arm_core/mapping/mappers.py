"""Result files into documents: one mapper per contract MAJOR.

Both MAJORs share the document shapes; MAJOR 1 writes warnings as text, which the 1.x mapper
wraps as ``LEGACY_WARNING`` structures so that everything downstream sees one form.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

from arm_core.mapping.documents import (
    Document,
    MappedResult,
    Period,
    StatementHeader,
    Transaction,
    TrialBalanceRow,
)
from recognition_contract import ResultFile, legacy_warning

WarningsFn = Callable[[list[Any]], list[dict[str, Any]]]


def _v1_warnings(raw: list[Any]) -> list[dict[str, Any]]:
    return [legacy_warning(str(text)).as_json() for text in raw]


def _v2_warnings(raw: list[Any]) -> list[dict[str, Any]]:
    return [dict(item) for item in raw]


def _money(value: str | None) -> Decimal | None:
    return Decimal(value) if value is not None else None


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value is not None else None


def _period(raw: dict[str, Any] | None) -> Period | None:
    if raw is None:
        return None
    return Period(start=_date(raw.get("from")), end=_date(raw.get("to")), text=raw.get("text"))


def _row(raw: dict[str, Any]) -> TrialBalanceRow:
    return TrialBalanceRow(
        row_id=raw["id"],
        parent_row_id=raw["parent"],
        kind=raw["kind"],
        level=raw["level"],
        account=raw["code"],
        name=raw["name"],
        opening_debit=_money(raw["opening_debit"]),
        opening_credit=_money(raw["opening_credit"]),
        turnover_debit=_money(raw["turnover_debit"]),
        turnover_credit=_money(raw["turnover_credit"]),
        closing_debit=_money(raw["closing_debit"]),
        closing_credit=_money(raw["closing_credit"]),
        confidence=Decimal(str(raw["confidence"])),
        locator=raw["locator"],
    )


def _transaction(raw: dict[str, Any]) -> Transaction:
    return Transaction(
        date=_date(raw["date"]),
        number=raw["number"],
        debit=_money(raw["debit"]),
        credit=_money(raw["credit"]),
        debit_equivalent=_money(raw.get("debit_equivalent")),
        credit_equivalent=_money(raw.get("credit_equivalent")),
        counterparty_name=raw["counterparty_name"],
        counterparty_tax_id=raw["counterparty_tax_id"],
        counterparty_account=raw["counterparty_account"],
        counterparty_bank=raw["counterparty_bank"],
        counterparty_bank_bic=raw.get("counterparty_bank_bic"),
        purpose=raw["purpose"],
        confidence=Decimal(str(raw["confidence"])),
        locator=raw["locator"],
    )


def _document(raw: dict[str, Any], warnings: WarningsFn) -> Document:
    common = {
        "confidence": Decimal(str(raw["confidence"])),
        "locator": raw["locator"],
        "warnings": warnings(raw.get("warnings", [])),
    }
    if raw["type"] == "osv":
        organisation = raw["organisation"] or {}
        account = raw["account"] or {}
        return Document(
            kind="osv",
            variant=raw["variant"],
            title=raw["title"],
            organisation_name=organisation.get("name"),
            organisation_tax_id=organisation.get("tax_id"),
            period=_period(raw["period"]),
            currency=raw["currency"],
            unit=raw["unit"],
            account_code=account.get("code"),
            account_name=account.get("name"),
            totals=raw["totals"],
            rows=[_row(row) for row in raw["rows"]],
            **common,
        )
    header = raw["header"]
    return Document(
        kind="statement",
        period=_period(header["period"]),
        currency=header["currency"],
        organisation_name=header["holder_name"],
        organisation_tax_id=header["holder_tax_id"],
        header=StatementHeader(
            bank_name=header["bank_name"],
            bank_bic=header["bank_bic"],
            account=header["account"],
            currency=header["currency"],
            holder_name=header["holder_name"],
            holder_tax_id=header["holder_tax_id"],
            period=_period(header["period"]),
            opening_balance=_money(header["opening_balance"]),
            closing_balance=_money(header["closing_balance"]),
            total_debit=_money(header["total_debit"]),
            total_credit=_money(header["total_credit"]),
        ),
        transactions=[_transaction(line) for line in raw["transactions"]],
        **common,
    )


def _map(result: ResultFile, warnings: WarningsFn) -> MappedResult:
    data = result.data
    return MappedResult(
        job_id=data["job_id"],
        file_id=data["file_id"],
        status=data["status"],
        group_schema=data["group_schema"],
        documents=[_document(doc, warnings) for doc in data["documents"]],
        warnings=warnings(data.get("warnings", [])),
    )


def map_v1(result: ResultFile) -> MappedResult:
    return _map(result, _v1_warnings)


def map_v2(result: ResultFile) -> MappedResult:
    return _map(result, _v2_warnings)


MAPPERS: dict[int, Callable[[ResultFile], MappedResult]] = {1: map_v1, 2: map_v2}
