"""Recognised documents: trial balances with their rows, statements with header and lines.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

UUID = pg.UUID(as_uuid=True)
MONEY = sa.Numeric(20, 2)
TS = sa.DateTime(timezone=True)
CONFIDENCE = sa.Numeric(5, 2)
ROW_MONEY = (
    "opening_debit",
    "opening_credit",
    "turnover_debit",
    "turnover_credit",
    "closing_debit",
    "closing_credit",
)


def _money(*names: str) -> list[sa.Column[object]]:
    return [sa.Column(name, MONEY) for name in names]


def upgrade() -> None:
    op.add_column("stored_file", sa.Column("mapping_error", sa.Text()))
    op.add_column("recognition_job", sa.Column("mapped_at", sa.DateTime(timezone=True)))
    op.create_index(
        "ix_recognition_job_unmapped",
        "recognition_job",
        ["finished_at"],
        postgresql_where=sa.text("status IN ('done', 'needs_check') AND mapped_at IS NULL"),
    )
    op.create_table(
        "document",
        sa.Column("id", UUID, server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("job_id", UUID, nullable=False),
        sa.Column("file_id", UUID, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("variant", sa.Text()),
        sa.Column("title", sa.Text()),
        sa.Column("organisation_name", sa.Text()),
        sa.Column("organisation_tax_id", sa.Text()),
        sa.Column("period_from", sa.Date()),
        sa.Column("period_to", sa.Date()),
        sa.Column("period_text", sa.Text()),
        sa.Column("currency", sa.Text()),
        sa.Column("unit", sa.Text()),
        sa.Column("account_code", sa.Text()),
        sa.Column("account_name", sa.Text()),
        sa.Column("confidence", CONFIDENCE, nullable=False),
        sa.Column("warnings", pg.JSONB(), server_default=sa.text("'[]'::jsonb"), nullable=False),
        sa.Column("locator", pg.JSONB(), nullable=False),
        sa.Column("totals", pg.JSONB()),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name="pk_document"),
        sa.UniqueConstraint("job_id", "position", name="uq_document_job_id_position"),
        sa.ForeignKeyConstraint(
            ["job_id"], ["recognition_job.id"], name="fk_document_job_id_recognition_job"
        ),
        sa.ForeignKeyConstraint(
            ["file_id"], ["stored_file.id"], name="fk_document_file_id_stored_file"
        ),
        sa.CheckConstraint("kind IN ('osv', 'statement')", name="ck_document_kind"),
        sa.CheckConstraint("confidence BETWEEN 0 AND 100", name="ck_document_confidence_range"),
    )
    op.create_index("ix_document_file_id", "document", ["file_id"])
    op.create_table(
        "trial_balance_row",
        sa.Column("document_id", UUID, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("row_id", sa.Integer(), nullable=False),
        sa.Column("parent_row_id", sa.Integer()),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("account", sa.Text()),
        sa.Column("name", sa.Text()),
        *_money(*ROW_MONEY),
        sa.Column("confidence", CONFIDENCE, nullable=False),
        sa.Column("locator", pg.JSONB(), nullable=False),
        sa.PrimaryKeyConstraint("document_id", "position", name="pk_trial_balance_row"),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["document.id"],
            name="fk_trial_balance_row_document_id_document",
            ondelete="CASCADE",
        ),
    )
    op.create_table(
        "statement_header",
        sa.Column("document_id", UUID, nullable=False),
        sa.Column("bank_name", sa.Text()),
        sa.Column("bank_bic", sa.Text()),
        sa.Column("account", sa.Text()),
        sa.Column("currency", sa.Text()),
        sa.Column("holder_name", sa.Text()),
        sa.Column("holder_tax_id", sa.Text()),
        sa.Column("period_from", sa.Date()),
        sa.Column("period_to", sa.Date()),
        sa.Column("period_text", sa.Text()),
        *_money("opening_balance", "closing_balance", "total_debit", "total_credit"),
        sa.PrimaryKeyConstraint("document_id", name="pk_statement_header"),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["document.id"],
            name="fk_statement_header_document_id_document",
            ondelete="CASCADE",
        ),
    )
    op.create_table(
        "statement_transaction",
        sa.Column("document_id", UUID, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("date", sa.Date()),
        sa.Column("number", sa.Text()),
        *_money("debit", "credit", "debit_equivalent", "credit_equivalent"),
        sa.Column("counterparty_name", sa.Text()),
        sa.Column("counterparty_tax_id", sa.Text()),
        sa.Column("counterparty_account", sa.Text()),
        sa.Column("counterparty_bank", sa.Text()),
        sa.Column("counterparty_bank_bic", sa.Text()),
        sa.Column("purpose", sa.Text()),
        sa.Column("confidence", CONFIDENCE, nullable=False),
        sa.Column("locator", pg.JSONB(), nullable=False),
        sa.PrimaryKeyConstraint("document_id", "position", name="pk_statement_transaction"),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["document.id"],
            name="fk_statement_transaction_document_id_document",
            ondelete="CASCADE",
        ),
    )
    # A finished job wakes the mapping loop of whichever core instance listens.
    op.execute(
        """
        CREATE FUNCTION notify_recognition_job_finished() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('recognition_job_finished', NEW.id::text);
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER recognition_job_finished
            AFTER UPDATE OF status ON recognition_job
            FOR EACH ROW WHEN (NEW.status IN ('done', 'needs_check'))
            EXECUTE FUNCTION notify_recognition_job_finished();
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS recognition_job_finished ON recognition_job")
    op.execute("DROP FUNCTION IF EXISTS notify_recognition_job_finished()")
    op.drop_table("statement_transaction")
    op.drop_table("statement_header")
    op.drop_table("trial_balance_row")
    op.drop_table("document")
    op.drop_index("ix_recognition_job_unmapped", table_name="recognition_job")
    op.drop_column("recognition_job", "mapped_at")
    op.drop_column("stored_file", "mapping_error")
