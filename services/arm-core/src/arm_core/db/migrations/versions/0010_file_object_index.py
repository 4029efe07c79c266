"""An index from an object to its file: the files with an upload's bytes are found from the
objects of the same SHA-256, by key, however many files there are.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_stored_file_s3_object_id", "stored_file", ["s3_object_id"])


def downgrade() -> None:
    op.drop_index("ix_stored_file_s3_object_id", table_name="stored_file")
