"""Statements banks export for accounting are files too: TXT (1CClientBankExchange, MT940)
and XML (camt.053).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

NAME = "ck_stored_file_file_type"
BEFORE = "'XLS', 'XLSX', 'XLSB', 'PDF', 'PNG', 'JPG'"


def upgrade() -> None:
    op.drop_constraint(NAME, "stored_file", type_="check")
    op.create_check_constraint(NAME, "stored_file", f"file_type IN ({BEFORE}, 'TXT', 'XML')")


def downgrade() -> None:
    op.drop_constraint(NAME, "stored_file", type_="check")
    op.create_check_constraint(NAME, "stored_file", f"file_type IN ({BEFORE})")
