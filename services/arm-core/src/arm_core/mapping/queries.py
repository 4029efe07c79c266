"""The documents of a file's current attempt as the contract's typed documents, with what the
core keeps beside them (``StoredDocument``); the columns are those ``mapping.columns`` derives
from the contract's fields."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from arm_core.db.pool import Pool
from arm_core.mapping.columns import DOCUMENTS as DOCUMENT_COLUMNS
from arm_core.mapping.columns import HEADERS as HEADER_COLUMNS
from arm_core.mapping.columns import ROWS as ROW_COLUMNS
from arm_core.mapping.columns import TRANSACTIONS as TRANSACTION_COLUMNS
from recognition_contract import (
    Document,
    Statement,
    StatementHeader,
    Transaction,
    TrialBalance,
    TrialBalanceRow,
    empty,
)

DocumentKind = Literal["osv", "statement"]

DOCUMENTS = f"""
SELECT d.id, d.job_id, d.kind, {", ".join(f"d.{c}" for c in DOCUMENT_COLUMNS.columns)}
  FROM document d
  JOIN stored_file f ON f.id = d.file_id AND f.current_recognition_job_id = d.job_id
 WHERE f.id = %(file_id)s
 ORDER BY d.position
"""

ROWS = f"""
SELECT document_id, {ROW_COLUMNS.select}
  FROM trial_balance_row WHERE document_id = ANY(%(ids)s) ORDER BY document_id, position
"""

HEADERS = f"""
SELECT document_id, {HEADER_COLUMNS.select}
  FROM statement_header WHERE document_id = ANY(%(ids)s)
"""

TRANSACTIONS = f"""
SELECT document_id, {TRANSACTION_COLUMNS.select}
  FROM statement_transaction WHERE document_id = ANY(%(ids)s)
 ORDER BY document_id, position
"""


@dataclass(frozen=True, slots=True)
class StoredDocument:
    """A recognised document as stored: the contract's typed document, its id and the job
    (attempt) that recognised it."""

    id: uuid.UUID
    job_id: uuid.UUID
    document: Document

    @property
    def kind(self) -> DocumentKind:
        return "osv" if isinstance(self.document, TrialBalance) else "statement"


def _row(record: Mapping[str, Any]) -> TrialBalanceRow:
    return TrialBalanceRow(**ROW_COLUMNS.values(record))


def _transaction(record: Mapping[str, Any]) -> Transaction:
    return Transaction(**TRANSACTION_COLUMNS.values(record))


def _document(
    record: Mapping[str, Any],
    rows: tuple[TrialBalanceRow, ...],
    header: StatementHeader | None,
    lines: tuple[Transaction, ...],
) -> Document:
    values = DOCUMENT_COLUMNS.values(record)
    if record["kind"] == "osv":
        return TrialBalance(**values, rows=rows)
    return Statement(
        # Every statement is stored with its header; one without would show an empty one.
        header=header if header is not None else empty(StatementHeader),
        transactions=lines,
        confidence=values["confidence"],
        locator=values["locator"],
        warnings=values["warnings"],
    )


async def file_documents(pool: Pool, file_id: uuid.UUID) -> list[StoredDocument]:
    async with pool.connection() as conn:
        documents = await (await conn.execute(DOCUMENTS, {"file_id": file_id})).fetchall()
        ids = [doc["id"] for doc in documents]
        rows = await (await conn.execute(ROWS, {"ids": ids})).fetchall() if ids else []
        headers = await (await conn.execute(HEADERS, {"ids": ids})).fetchall() if ids else []
        lines = await (await conn.execute(TRANSACTIONS, {"ids": ids})).fetchall() if ids else []
    rows_of: dict[uuid.UUID, list[TrialBalanceRow]] = {doc_id: [] for doc_id in ids}
    for row in rows:
        rows_of[row["document_id"]].append(_row(row))
    lines_of: dict[uuid.UUID, list[Transaction]] = {doc_id: [] for doc_id in ids}
    for line in lines:
        lines_of[line["document_id"]].append(_transaction(line))
    header_of = {
        header["document_id"]: StatementHeader(**HEADER_COLUMNS.values(header))
        for header in headers
    }
    return [
        StoredDocument(
            id=doc["id"],
            job_id=doc["job_id"],
            document=_document(
                doc,
                tuple(rows_of[doc["id"]]),
                header_of.get(doc["id"]),
                tuple(lines_of[doc["id"]]),
            ),
        )
        for doc in documents
    ]
