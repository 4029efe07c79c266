"""The documents of a file's current attempt, with their rows or transactions."""

from __future__ import annotations

import uuid
from typing import Any

from arm_core.db.pool import Pool
from arm_core.db.tables import ROW_MONEY

DOCUMENTS = """
SELECT d.*
  FROM document d
  JOIN stored_file f ON f.id = d.file_id AND f.current_recognition_job_id = d.job_id
 WHERE f.id = %(file_id)s
 ORDER BY d.position
"""

# Amounts come as text: numeric(20, 2) prints with its two decimals, as the API shows them,
# and a 100,000-row trial balance is spared as many Decimal-to-text conversions per column.
_AS_TEXT = ", ".join(f"{name}::text AS {name}" for name in ROW_MONEY)
_LINE_MONEY = ("debit", "credit", "debit_equivalent", "credit_equivalent")

ROWS = f"""
SELECT document_id, row_id, parent_row_id, kind, level, account, name, confidence, locator,
       {_AS_TEXT}
  FROM trial_balance_row WHERE document_id = ANY(%(ids)s) ORDER BY document_id, position
"""

HEADERS = "SELECT * FROM statement_header WHERE document_id = ANY(%(ids)s)"

TRANSACTIONS = f"""
SELECT document_id, date, number, counterparty_name, counterparty_tax_id, counterparty_account,
       counterparty_bank, counterparty_bank_bic, purpose, confidence, locator, document_kind,
       counterparty_kpp,
       {", ".join(f"{name}::text AS {name}" for name in _LINE_MONEY)}
  FROM statement_transaction WHERE document_id = ANY(%(ids)s)
 ORDER BY document_id, position
"""


def _money(value: Any) -> str | None:
    return None if value is None else f"{value:.2f}"


def _period(row: dict[str, Any]) -> dict[str, Any] | None:
    if row["period_from"] is None and row["period_to"] is None and row["period_text"] is None:
        return None
    return {"from": row["period_from"], "to": row["period_to"], "text": row["period_text"]}


def _row(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["row_id"],
        "parent": row["parent_row_id"],
        "kind": row["kind"],
        "level": row["level"],
        "account": row["account"],
        "name": row["name"],
        **{key: row[key] for key in ROW_MONEY},
        "confidence": float(row["confidence"]),
        "locator": row["locator"],
    }


def _transaction(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "date": row["date"],
        "number": row["number"],
        **{key: row[key] for key in _LINE_MONEY},
        "counterparty_name": row["counterparty_name"],
        "counterparty_tax_id": row["counterparty_tax_id"],
        "counterparty_account": row["counterparty_account"],
        "counterparty_bank": row["counterparty_bank"],
        "counterparty_bank_bic": row["counterparty_bank_bic"],
        "purpose": row["purpose"],
        "confidence": float(row["confidence"]),
        "locator": row["locator"],
        "document_kind": row["document_kind"],
        "counterparty_kpp": row["counterparty_kpp"],
    }


def _header(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "bank_name": row["bank_name"],
        "bank_bic": row["bank_bic"],
        "account": row["account"],
        "currency": row["currency"],
        "holder_name": row["holder_name"],
        "holder_tax_id": row["holder_tax_id"],
        "period": _period(row),
        **{
            key: _money(row[key])
            for key in ("opening_balance", "closing_balance", "total_debit", "total_credit")
        },
    }


async def file_documents(pool: Pool, file_id: uuid.UUID) -> list[dict[str, Any]]:
    async with pool.connection() as conn:
        documents = await (await conn.execute(DOCUMENTS, {"file_id": file_id})).fetchall()
        ids = [doc["id"] for doc in documents]
        rows = await (await conn.execute(ROWS, {"ids": ids})).fetchall() if ids else []
        headers = await (await conn.execute(HEADERS, {"ids": ids})).fetchall() if ids else []
        lines = await (await conn.execute(TRANSACTIONS, {"ids": ids})).fetchall() if ids else []
    rows_of: dict[Any, list[dict[str, Any]]] = {doc_id: [] for doc_id in ids}
    for row in rows:
        rows_of[row["document_id"]].append(_row(row))
    lines_of: dict[Any, list[dict[str, Any]]] = {doc_id: [] for doc_id in ids}
    for line in lines:
        lines_of[line["document_id"]].append(_transaction(line))
    header_of = {header["document_id"]: _header(header) for header in headers}
    result = []
    for doc in documents:
        view: dict[str, Any] = {
            "id": doc["id"],
            "job_id": doc["job_id"],
            "kind": doc["kind"],
            "confidence": float(doc["confidence"]),
            "locator": doc["locator"],
            "warnings": doc["warnings"],
        }
        if doc["kind"] == "osv":
            view.update(
                variant=doc["variant"],
                title=doc["title"],
                organisation={
                    "name": doc["organisation_name"],
                    "tax_id": doc["organisation_tax_id"],
                },
                period=_period(doc),
                currency=doc["currency"],
                unit=doc["unit"],
                account=(
                    {"code": doc["account_code"], "name": doc["account_name"]}
                    if doc["account_code"] or doc["account_name"]
                    else None
                ),
                totals=doc["totals"],
                rows=rows_of[doc["id"]],
            )
        else:
            view.update(header=header_of.get(doc["id"]), transactions=lines_of[doc["id"]])
        result.append(view)
    return result
