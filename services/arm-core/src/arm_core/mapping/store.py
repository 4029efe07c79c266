"""Writing mapped documents: one COPY per table, so a 100,000-row trial balance is cheap."""

from __future__ import annotations

import uuid

from psycopg.types.json import Jsonb

from arm_core.db.pool import Connection
from arm_core.mapping.documents import Document, Period

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


async def write_documents(
    conn: Connection, job_id: uuid.UUID, file_id: uuid.UUID, documents: list[Document]
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
                "kind": doc.kind,
                "variant": doc.variant,
                "title": doc.title,
                "organisation_name": doc.organisation_name,
                "organisation_tax_id": doc.organisation_tax_id,
                **_period(doc.period),
                "currency": doc.currency,
                "unit": doc.unit,
                "account_code": doc.account_code,
                "account_name": doc.account_name,
                "confidence": doc.confidence,
                "warnings": Jsonb(doc.warnings),
                "locator": Jsonb(doc.locator),
                "totals": Jsonb(doc.totals) if doc.totals is not None else None,
            },
        )
        if doc.header is not None:
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
                    "opening_balance": header.opening_balance,
                    "closing_balance": header.closing_balance,
                    "total_debit": header.total_debit,
                    "total_credit": header.total_credit,
                },
            )
        if doc.rows:
            async with conn.cursor().copy(COPY_ROWS) as copy:
                for index, row in enumerate(doc.rows):
                    await copy.write_row(
                        (
                            document_id, index, row.row_id, row.parent_row_id, row.kind,
                            row.level, row.account, row.name, row.opening_debit,
                            row.opening_credit, row.turnover_debit, row.turnover_credit,
                            row.closing_debit, row.closing_credit, row.confidence,
                            Jsonb(row.locator),
                        )
                    )  # fmt: skip
        if doc.transactions:
            async with conn.cursor().copy(COPY_TRANSACTIONS) as copy:
                for index, line in enumerate(doc.transactions):
                    await copy.write_row(
                        (
                            document_id, index, line.date, line.number, line.debit, line.credit,
                            line.debit_equivalent, line.credit_equivalent,
                            line.counterparty_name, line.counterparty_tax_id,
                            line.counterparty_account, line.counterparty_bank,
                            line.counterparty_bank_bic, line.purpose, line.confidence,
                            Jsonb(line.locator),
                        )
                    )  # fmt: skip
