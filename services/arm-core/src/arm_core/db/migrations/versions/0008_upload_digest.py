"""Each upload's SHA-256, so that the same file uploaded twice is told at once.

Uploads made before have none; they are never taken for anyone's duplicate.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("s3_object", sa.Column("sha256", sa.Text(), nullable=True))
    op.create_index("ix_s3_object_sha256", "s3_object", ["sha256"])


def downgrade() -> None:
    op.drop_index("ix_s3_object_sha256", table_name="s3_object")
    op.drop_column("s3_object", "sha256")
