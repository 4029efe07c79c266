"""Statements banks export for accounting are files too: TXT (1CClientBankExchange, MT940)
and XML (camt.053); their operations name the kind of payment document and the
counterparty's КПП.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

NAME = "ck_stored_file_file_type"
BEFORE = "'XLS', 'XLSX', 'XLSB', 'PDF', 'PNG', 'JPG'"


COLUMNS = ("document_kind", "counterparty_kpp")


def upgrade() -> None:
    op.drop_constraint(NAME, "stored_file", type_="check")
    op.create_check_constraint(NAME, "stored_file", f"file_type IN ({BEFORE}, 'TXT', 'XML')")
    for column in COLUMNS:
        op.add_column("statement_transaction", sa.Column(column, sa.Text()))


def downgrade() -> None:
    for column in reversed(COLUMNS):
        op.drop_column("statement_transaction", column)
    op.drop_constraint(NAME, "stored_file", type_="check")
    op.create_check_constraint(NAME, "stored_file", f"file_type IN ({BEFORE})")
