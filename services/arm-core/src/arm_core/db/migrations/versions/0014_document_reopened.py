"""A correction after a confirmation reopens the document, visibly: who reopened it and when
stay on the document until it is confirmed again (the audit trail keeps every one).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("document", sa.Column("reopened_by", sa.Text()))
    op.add_column("document", sa.Column("reopened_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    op.drop_column("document", "reopened_at")
    op.drop_column("document", "reopened_by")
