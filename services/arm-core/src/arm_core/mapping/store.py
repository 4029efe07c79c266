"""Writing the documents of result files: one COPY per table for a whole batch of jobs, so a
100,000-row trial balance, or a thousand small ones, is cheap. The columns and cells come
from the contract's fields (``mapping.columns``); a 1.x warning is stored as its
``LEGACY_WARNING`` structure."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from arm_core.db.ids import new_id
from arm_core.db.pool import Connection
from arm_core.mapping.columns import DOCUMENTS, HEADERS, ROWS, TRANSACTIONS
from recognition_contract import Document, Organisation, Statement, TrialBalance, names_of

COPY_DOCUMENTS = DOCUMENTS.copy("document")
COPY_HEADERS = HEADERS.copy("statement_header")
COPY_ROWS = ROWS.copy("trial_balance_row")
COPY_TRANSACTIONS = TRANSACTIONS.copy("statement_transaction")


def _document_fields(doc: Document) -> Any:
    """What fills the ``document`` columns: a trial balance itself; of a statement, its
    holder as the organisation, its header's period and currency, nothing else a trial
    balance has."""
    if isinstance(doc, TrialBalance):
        return doc
    header = doc.header
    return SimpleNamespace(
        **{
            **dict.fromkeys(names_of(TrialBalance)),
            "organisation": Organisation(header.holder_name, header.holder_tax_id),
            "period": header.period,
            "currency": header.currency,
            "confidence": doc.confidence,
            "locator": doc.locator,
            "warnings": doc.warnings,
        }
    )


@dataclass(frozen=True, slots=True)
class JobDocuments:
    """The documents of one job's result, to be written."""

    job_id: uuid.UUID
    file_id: uuid.UUID
    documents: Sequence[Document]


async def write_documents(conn: Connection, jobs: Sequence[JobDocuments]) -> None:
    """Every document of ``jobs``, with their rows, headers and transactions: one COPY per
    table however many jobs and documents there are."""
    documents: list[tuple[object, ...]] = []
    headers: list[tuple[object, ...]] = []
    trial_balances: list[tuple[uuid.UUID, TrialBalance]] = []
    statements: list[tuple[uuid.UUID, Statement]] = []
    for job in jobs:
        for position, doc in enumerate(job.documents):
            document_id = new_id()
            kind = "osv" if isinstance(doc, TrialBalance) else "statement"
            lead = (document_id, job.job_id, job.file_id, position, kind)
            documents.append((*lead, *DOCUMENTS.cells(_document_fields(doc))))
            if isinstance(doc, Statement):
                headers.append((document_id, *HEADERS.cells(doc.header)))
                statements.append((document_id, doc))
            else:
                trial_balances.append((document_id, doc))
    await _copy(conn, COPY_DOCUMENTS, documents)
    await _copy(conn, COPY_HEADERS, headers)
    await _copy(conn, COPY_ROWS, _rows(trial_balances))
    await _copy(conn, COPY_TRANSACTIONS, _transactions(statements))


async def _copy(conn: Connection, statement: str, rows: Iterable[tuple[object, ...]]) -> None:
    iterator = iter(rows)
    first = next(iterator, None)
    if first is None:
        return
    async with conn.cursor().copy(statement) as copy:
        await copy.write_row(first)
        for row in iterator:
            await copy.write_row(row)


def _rows(documents: Sequence[tuple[uuid.UUID, TrialBalance]]) -> Iterator[tuple[object, ...]]:
    cells = ROWS.cells
    for document_id, doc in documents:
        for index, row in enumerate(doc.rows):
            yield (document_id, index, *cells(row))


def _transactions(documents: Sequence[tuple[uuid.UUID, Statement]]) -> Iterator[tuple[object, ...]]:
    cells = TRANSACTIONS.cells
    for document_id, doc in documents:
        for index, line in enumerate(doc.transactions):
            yield (document_id, index, *cells(line))
