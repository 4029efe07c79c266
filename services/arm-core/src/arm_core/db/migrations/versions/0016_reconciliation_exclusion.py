"""A file can be left out of its consolidation's «Сверки» by an analyst, to clear a false
finding: who left it out, when and why stay on the file (and in the audit trail) until it is
taken back in.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

COLUMNS = ("reconciliation_excluded_by", "reconciliation_excluded_reason")


def upgrade() -> None:
    for name in COLUMNS:
        op.add_column("stored_file", sa.Column(name, sa.Text()))
    op.add_column(
        "stored_file", sa.Column("reconciliation_excluded_at", sa.DateTime(timezone=True))
    )


def downgrade() -> None:
    op.drop_column("stored_file", "reconciliation_excluded_at")
    for name in reversed(COLUMNS):
        op.drop_column("stored_file", name)
