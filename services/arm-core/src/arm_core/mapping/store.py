"""Writing the documents of a result file: one COPY per table, so a 100,000-row trial balance
is cheap. Amounts become ``numeric``, locators, totals and warnings ``jsonb`` in the contract's
2.x form (a 1.x warning is stored as its ``LEGACY_WARNING`` structure)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from decimal import Decimal

from psycopg.types.json import Jsonb

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

INSERT_DOCUMENT = """
INSERT INTO document (id, job_id, file_id, position, kind, variant, title, organisation_name,
                      organisation_tax_id, period_from, period_to, period_text, currency, unit,
                      account_code, account_name, confidence, warnings, locator, totals)
VALUES (%(id)s, %(job_id)s, %(file_id)s, %(position)s, %(kind)s, %(variant)s, %(title)s,
        %(organisation_name)s, %(organisation_tax_id)s, %(period_from)s, %(period_to)s,
        %(period_text)s, %(currency)s, %(unit)s, %(account_code)s, %(account_name)s,
        %(confidence)s, %(warnings)s, %(locator)s, %(totals)s)
"""

INSERT_HEADER = """
INSERT INTO statement_header (document_id, bank_name, bank_bic, account, currency, holder_name,
                              holder_tax_id, period_from, period_to, period_text,
                              opening_balance, closing_balance, total_debit, total_credit)
VALUES (%(document_id)s, %(bank_name)s, %(bank_bic)s, %(account)s, %(currency)s,
        %(holder_name)s, %(holder_tax_id)s, %(period_from)s, %(period_to)s, %(period_text)s,
        %(opening_balance)s, %(closing_balance)s, %(total_debit)s, %(total_credit)s)
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
                            purpose, confidence, locator) FROM STDIN
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


async def write_documents(
    conn: Connection, job_id: uuid.UUID, file_id: uuid.UUID, documents: Sequence[Document]
) -> None:
    for position, doc in enumerate(documents):
        document_id = uuid.uuid4()
        await conn.execute(
            INSERT_DOCUMENT,
            {
                "id": document_id,
                "job_id": job_id,
                "file_id": file_id,
                "position": position,
                **_columns(doc),
                "confidence": _confidence(doc.confidence),
                "warnings": Jsonb(warnings_to_wire(doc.warnings, 2)),
                "locator": Jsonb(locator_to_wire(doc.locator)),
            },
        )
        if isinstance(doc, Statement):
            await _write_statement(conn, document_id, doc)
        elif doc.rows:
            async with conn.cursor().copy(COPY_ROWS) as copy:
                for index, row in enumerate(doc.rows):
                    await copy.write_row(
                        (
                            document_id, index, row.id, row.parent, row.kind, row.level,
                            row.code, row.name, amount(row.opening_debit),
                            amount(row.opening_credit), amount(row.turnover_debit),
                            amount(row.turnover_credit), amount(row.closing_debit),
                            amount(row.closing_credit), _confidence(row.confidence),
                            Jsonb(locator_to_wire(row.locator)),
                        )
                    )  # fmt: skip


async def _write_statement(conn: Connection, document_id: uuid.UUID, doc: Statement) -> None:
    header = doc.header
    await conn.execute(
        INSERT_HEADER,
        {
            "document_id": document_id,
            "bank_name": header.bank_name,
            "bank_bic": header.bank_bic,
            "account": header.account,
            "currency": header.currency,
            "holder_name": header.holder_name,
            "holder_tax_id": header.holder_tax_id,
            **_period(header.period),
            "opening_balance": amount(header.opening_balance),
            "closing_balance": amount(header.closing_balance),
            "total_debit": amount(header.total_debit),
            "total_credit": amount(header.total_credit),
        },
    )
    if not doc.transactions:
        return
    async with conn.cursor().copy(COPY_TRANSACTIONS) as copy:
        for index, line in enumerate(doc.transactions):
            equivalents = line.equivalents
            await copy.write_row(
                (
                    document_id, index, line.date, line.number, amount(line.debit),
                    amount(line.credit),
                    amount(equivalents.debit) if equivalents else None,
                    amount(equivalents.credit) if equivalents else None,
                    line.counterparty_name, line.counterparty_tax_id,
                    line.counterparty_account, line.counterparty_bank,
                    line.counterparty_bank_bic, line.purpose, _confidence(line.confidence),
                    Jsonb(locator_to_wire(line.locator)),
                )
            )  # fmt: skip
