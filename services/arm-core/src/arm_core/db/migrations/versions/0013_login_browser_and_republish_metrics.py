"""A sign-in is bound to the browser that started it: ``login_request.browser_hash`` holds the
SHA-256 of a random value only that browser's cookie carries, and the callback must bring it.
Logins under way when this runs were started without one; they are dropped (they last ten
minutes, and the analyst signs in again).

``recognition_job.metrics.republish_count`` carries the count of republishes, as the exchange
spec names it; the column of that name stays the one the guarded statements compare, and each
statement that changes it sets the key too. Jobs made from now on start with the key at 0.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DELETE FROM login_request")
    op.add_column("login_request", sa.Column("browser_hash", sa.Text(), nullable=False))
    op.alter_column(
        "recognition_job",
        "metrics",
        server_default=sa.text("'{\"republish_count\": 0}'::jsonb"),
    )
    op.execute(
        "UPDATE recognition_job"
        " SET metrics = metrics || jsonb_build_object('republish_count', republish_count)"
        " WHERE metrics -> 'republish_count' IS DISTINCT FROM to_jsonb(republish_count)"
    )


def downgrade() -> None:
    op.alter_column("recognition_job", "metrics", server_default=sa.text("'{}'::jsonb"))
    op.drop_column("login_request", "browser_hash")
