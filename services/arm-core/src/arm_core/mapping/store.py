"""Writing the documents of result files: one COPY per table for a whole batch of jobs, so a
100,000-row trial balance, or a thousand small ones, is cheap. Amounts become ``numeric``,
locators, totals and warnings ``jsonb`` in the contract's 2.x form (a 1.x warning is stored
as its ``LEGACY_WARNING`` structure)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from psycopg.types.json import Jsonb

from arm_core.db.ids import new_id
from arm_core.db.pool import Connection
from recognition_contract import (
    Document,
    Period,
    Statement,
    TrialBalance,
    amount,
    locator_to_wire,
    totals_to_wire,
    warnings_to_wire,
)

COPY_DOCUMENTS = """
COPY document (id, job_id, file_id, position, kind, variant, title, organisation_name,
               organisation_tax_id, period_from, period_to, period_text, currency, unit,
               account_code, account_name, confidence, warnings, locator, totals) FROM STDIN
"""

COPY_HEADERS = """
COPY statement_header (document_id, bank_name, bank_bic, account, currency, holder_name,
                       holder_tax_id, period_from, period_to, period_text,
                       opening_balance, closing_balance, total_debit, total_credit) FROM STDIN
"""

COPY_ROWS = """
COPY trial_balance_row (document_id, position, row_id, parent_row_id, kind, level, account, name,
                        opening_debit, opening_credit, turnover_debit, turnover_credit,
                        closing_debit, closing_credit, confidence, locator) FROM STDIN
"""

COPY_TRANSACTIONS = """
COPY statement_transaction (document_id, position, date, number, debit, credit, debit_equivalent,
                            credit_equivalent, counterparty_name, counterparty_tax_id,
                            counterparty_account, counterparty_bank, counterparty_bank_bic,
                            purpose, confidence, locator, document_kind,
                            counterparty_kpp) FROM STDIN
"""


def _period(period: Period | None) -> dict[str, object]:
    return {
        "period_from": period.start if period else None,
        "period_to": period.end if period else None,
        "period_text": period.text if period else None,
    }


def _confidence(value: float) -> Decimal:
    # Through its shortest text, as the number was written in the file (99.9, not 99.90000...).
    return Decimal(str(value))


def _columns(doc: Document) -> dict[str, object]:
    """The ``document`` columns of a trial balance or of a statement (whose organisation,
    period and currency are its holder's, its header's period and its account's)."""
    if isinstance(doc, TrialBalance):
        organisation, account = doc.organisation, doc.account
        return {
            "kind": "osv",
            "variant": doc.variant,
            "title": doc.title,
            "organisation_name": organisation.name if organisation else None,
            "organisation_tax_id": organisation.tax_id if organisation else None,
            **_period(doc.period),
            "currency": doc.currency,
            "unit": doc.unit,
            "account_code": account.code if account else None,
            "account_name": account.name if account else None,
            "totals": Jsonb(totals_to_wire(doc.totals)) if doc.totals is not None else None,
        }
    header = doc.header
    return {
        "kind": "statement",
        "variant": None,
        "title": None,
        "organisation_name": header.holder_name,
        "organisation_tax_id": header.holder_tax_id,
        **_period(header.period),
        "currency": header.currency,
        "unit": None,
        "account_code": None,
        "account_name": None,
        "totals": None,
    }


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
            columns = _columns(doc)
            documents.append(
                (
                    document_id, job.job_id, job.file_id, position, columns["kind"],
                    columns["variant"], columns["title"], columns["organisation_name"],
                    columns["organisation_tax_id"], columns["period_from"],
                    columns["period_to"], columns["period_text"], columns["currency"],
                    columns["unit"], columns["account_code"], columns["account_name"],
                    _confidence(doc.confidence), Jsonb(warnings_to_wire(doc.warnings, 2)),
                    Jsonb(locator_to_wire(doc.locator)), columns["totals"],
                )
            )  # fmt: skip
            if isinstance(doc, Statement):
                headers.append(_header(document_id, doc))
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


def _header(document_id: uuid.UUID, doc: Statement) -> tuple[object, ...]:
    header = doc.header
    period = _period(header.period)
    return (
        document_id, header.bank_name, header.bank_bic, header.account, header.currency,
        header.holder_name, header.holder_tax_id, period["period_from"], period["period_to"],
        period["period_text"], amount(header.opening_balance), amount(header.closing_balance),
        amount(header.total_debit), amount(header.total_credit),
    )  # fmt: skip


def _rows(documents: Sequence[tuple[uuid.UUID, TrialBalance]]) -> Iterator[tuple[object, ...]]:
    for document_id, doc in documents:
        for index, row in enumerate(doc.rows):
            yield (
                document_id, index, row.id, row.parent, row.kind, row.level,
                row.code, row.name, amount(row.opening_debit),
                amount(row.opening_credit), amount(row.turnover_debit),
                amount(row.turnover_credit), amount(row.closing_debit),
                amount(row.closing_credit), _confidence(row.confidence),
                Jsonb(locator_to_wire(row.locator)),
            )  # fmt: skip


def _transactions(documents: Sequence[tuple[uuid.UUID, Statement]]) -> Iterator[tuple[object, ...]]:
    for document_id, doc in documents:
        for index, line in enumerate(doc.transactions):
            equivalents = line.equivalents
            yield (
                document_id, index, line.date, line.number, amount(line.debit),
                amount(line.credit),
                amount(equivalents.debit) if equivalents else None,
                amount(equivalents.credit) if equivalents else None,
                line.counterparty_name, line.counterparty_tax_id,
                line.counterparty_account, line.counterparty_bank,
                line.counterparty_bank_bic, line.purpose, _confidence(line.confidence),
                Jsonb(locator_to_wire(line.locator)), line.document_kind,
                line.counterparty_kpp,
            )  # fmt: skip
