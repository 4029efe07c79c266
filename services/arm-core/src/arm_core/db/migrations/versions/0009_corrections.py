"""Corrections an analyst makes to a recognised document, and its confirmation.

A correction is a layer over what was recognised, never a change of it: the field, the value
as recognised, the value as corrected, who, when and why. A document is confirmed by a user
once its checks pass on the corrected values or every remaining warning is acknowledged with
a reason.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "correction",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("document_id", sa.Uuid(), nullable=False),
        sa.Column("target", sa.Text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("field", sa.Text(), nullable=False),
        sa.Column("recognised", sa.Text(), nullable=True),
        sa.Column("corrected", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column(
            "at", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")
        ),
        sa.PrimaryKeyConstraint("id", name="pk_correction"),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name="fk_correction_document_id_document"
        ),
        sa.CheckConstraint(
            "target IN ('header', 'row', 'transaction')", name="ck_correction_target"
        ),
    )
    op.create_index("ix_correction_document_id", "correction", ["document_id"])
    op.create_table(
        "acknowledgement",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("document_id", sa.Uuid(), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("locator", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column(
            "at", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")
        ),
        sa.PrimaryKeyConstraint("id", name="pk_acknowledgement"),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name="fk_acknowledgement_document_id_document"
        ),
    )
    op.create_index("ix_acknowledgement_document_id", "acknowledgement", ["document_id"])
    op.add_column("document", sa.Column("confirmed_by", sa.Text(), nullable=True))
    op.add_column("document", sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("document", "confirmed_at")
    op.drop_column("document", "confirmed_by")
    op.drop_index("ix_acknowledgement_document_id", table_name="acknowledgement")
    op.drop_table("acknowledgement")
    op.drop_index("ix_correction_document_id", table_name="correction")
    op.drop_table("correction")
