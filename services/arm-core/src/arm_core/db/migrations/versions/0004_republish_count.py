"""Republishes counted in a column of their own; unmapped current jobs found by index.

``republish_count`` decides ``dlq``, so it is a column the guarded statements can read and
compare, not a key inside ``metrics``. The mapping claim no longer looks at the file's status,
only at finished jobs not yet mapped, which the partial index of 0002 already serves.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "recognition_job",
        sa.Column("republish_count", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )
    op.create_check_constraint(
        "ck_recognition_job_republish_count_not_negative",
        "recognition_job",
        "republish_count >= 0",
    )
    op.execute(
        """
        UPDATE recognition_job
           SET republish_count = (metrics ->> 'republish_count')::int,
               metrics = metrics - 'republish_count'
         WHERE metrics ? 'republish_count'
        """
    )


def downgrade() -> None:
    op.execute(
        """
        UPDATE recognition_job
           SET metrics = metrics || jsonb_build_object('republish_count', republish_count)
         WHERE republish_count > 0
        """
    )
    op.drop_constraint(
        "ck_recognition_job_republish_count_not_negative", "recognition_job", type_="check"
    )
    op.drop_column("recognition_job", "republish_count")
