"""A correction can be undone: it stays in the table (and in the audit trail) with who undid
it and when, and no longer applies to the document.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("correction", sa.Column("undone_by", sa.Text()))
    op.add_column("correction", sa.Column("undone_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    op.drop_column("correction", "undone_at")
    op.drop_column("correction", "undone_by")
