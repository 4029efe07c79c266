"""A consolidation belongs to a team: analysts see the consolidations of their own teams.

Consolidations made before have no team; supervisors and admins see them, and an admin can
hand them to a team.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("consolidation", sa.Column("team", sa.Text(), nullable=True))
    op.create_index("ix_consolidation_team", "consolidation", ["team"])


def downgrade() -> None:
    op.drop_index("ix_consolidation_team", table_name="consolidation")
    op.drop_column("consolidation", "team")
