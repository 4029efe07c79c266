"""Initial schema: consolidations, objects, files, recognition jobs, audit log.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

UUID = pg.UUID(as_uuid=True)
NOW = sa.text("now()")
GEN_ID = sa.text("gen_random_uuid()")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "consolidation",
        sa.Column("id", UUID, server_default=GEN_ID, nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("created_at", TS, server_default=NOW, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_consolidation"),
        sa.CheckConstraint("length(btrim(name)) > 0", name="ck_consolidation_name_not_blank"),
    )
    op.create_table(
        "s3_object",
        sa.Column("id", UUID, server_default=GEN_ID, nullable=False),
        sa.Column("bucket", sa.Text(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("bucket_role", sa.Text(), nullable=False),
        sa.Column("size", sa.BigInteger()),
        sa.Column("content_type", sa.Text()),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("created_at", TS, server_default=NOW, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_s3_object"),
        sa.UniqueConstraint("bucket", "key", name="uq_s3_object_bucket_key"),
        sa.CheckConstraint(
            "bucket_role IN ('uploads', 'results', 'raw')", name="ck_s3_object_bucket_role"
        ),
        sa.CheckConstraint("size IS NULL OR size >= 0", name="ck_s3_object_size_not_negative"),
    )
    op.create_table(
        "stored_file",
        sa.Column("id", UUID, server_default=GEN_ID, nullable=False),
        sa.Column("original_name", sa.Text(), nullable=False),
        sa.Column("file_type", sa.Text(), nullable=False),
        sa.Column("s3_object_id", UUID, nullable=False),
        sa.Column("consolidation_id", UUID),
        sa.Column("status", sa.Text(), server_default=sa.text("'UPLOADED'"), nullable=False),
        sa.Column("error_code", sa.Text()),
        sa.Column("error_message", sa.Text()),
        sa.Column("current_recognition_job_id", UUID),
        sa.Column("created_at", TS, server_default=NOW, nullable=False),
        sa.Column("updated_at", TS, server_default=NOW, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_stored_file"),
        sa.ForeignKeyConstraint(
            ["s3_object_id"], ["s3_object.id"], name="fk_stored_file_s3_object_id_s3_object"
        ),
        sa.ForeignKeyConstraint(
            ["consolidation_id"],
            ["consolidation.id"],
            name="fk_stored_file_consolidation_id_consolidation",
        ),
        sa.CheckConstraint(
            "status IN ('UPLOADED', 'PROCESSING', 'RECOGNIZED', 'NEEDS_CHECK', 'ERROR')",
            name="ck_stored_file_status",
        ),
        sa.CheckConstraint(
            "file_type IN ('XLS', 'XLSX', 'XLSB', 'PDF', 'PNG', 'JPG')",
            name="ck_stored_file_file_type",
        ),
    )
    op.create_index("ix_stored_file_status", "stored_file", ["status"])
    op.create_index("ix_stored_file_consolidation_id", "stored_file", ["consolidation_id"])
    op.create_table(
        "recognition_job",
        sa.Column("id", UUID, server_default=GEN_ID, nullable=False),
        sa.Column("file_id", UUID, nullable=False),
        sa.Column("pipeline", sa.Text(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("status", sa.Text(), server_default=sa.text("'queued'"), nullable=False),
        sa.Column("requested_at", TS, server_default=NOW, nullable=False),
        sa.Column("published_at", TS),
        sa.Column("started_at", TS),
        sa.Column("finished_at", TS),
        sa.Column("reply_deadline", TS),
        sa.Column("request_msg_id", sa.Text()),
        sa.Column("request_subject", sa.Text()),
        sa.Column("result_msg_id", sa.Text()),
        sa.Column("service_name", sa.Text()),
        sa.Column("service_version", sa.Text()),
        sa.Column("metrics", pg.JSONB(), server_default=sa.text("'{}'::jsonb"), nullable=False),
        sa.Column("error_code", sa.Text()),
        sa.Column("error_message", sa.Text()),
        sa.Column("result_schema_version", sa.Text()),
        sa.Column("result_s3_object_id", UUID),
        sa.Column("group_schema", sa.Text()),
        sa.Column("statements_version", sa.Text()),
        sa.PrimaryKeyConstraint("id", name="pk_recognition_job"),
        sa.UniqueConstraint("file_id", "attempt", name="uq_recognition_job_file_id_attempt"),
        sa.ForeignKeyConstraint(
            ["file_id"], ["stored_file.id"], name="fk_recognition_job_file_id_stored_file"
        ),
        sa.ForeignKeyConstraint(
            ["result_s3_object_id"],
            ["s3_object.id"],
            name="fk_recognition_job_result_s3_object_id_s3_object",
        ),
        sa.CheckConstraint(
            "status IN ('queued', 'published', 'processing', 'done', 'needs_check', 'error', "
            "'timeout', 'dlq')",
            name="ck_recognition_job_status",
        ),
        sa.CheckConstraint("pipeline IN ('tabular', 'image')", name="ck_recognition_job_pipeline"),
        sa.CheckConstraint("attempt >= 1", name="ck_recognition_job_attempt_positive"),
        sa.CheckConstraint("max_attempts >= 1", name="ck_recognition_job_max_attempts_positive"),
    )
    op.create_index(
        "ix_recognition_job_queued",
        "recognition_job",
        ["requested_at"],
        postgresql_where=sa.text("status = 'queued'"),
    )
    op.create_index(
        "ix_recognition_job_in_flight",
        "recognition_job",
        ["published_at"],
        postgresql_where=sa.text("status IN ('published', 'processing')"),
    )
    op.create_foreign_key(
        "fk_stored_file_current_recognition_job_id_recognition_job",
        "stored_file",
        "recognition_job",
        ["current_recognition_job_id"],
        ["id"],
        deferrable=True,
        initially="DEFERRED",
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("at", TS, server_default=NOW, nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("file_id", UUID),
        sa.Column("job_id", UUID),
        sa.Column("details", pg.JSONB(), server_default=sa.text("'{}'::jsonb"), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
        sa.ForeignKeyConstraint(
            ["file_id"], ["stored_file.id"], name="fk_audit_log_file_id_stored_file"
        ),
        sa.ForeignKeyConstraint(
            ["job_id"], ["recognition_job.id"], name="fk_audit_log_job_id_recognition_job"
        ),
    )
    op.create_index("ix_audit_log_file_id", "audit_log", ["file_id"])
    # A job that becomes queued wakes the outbox at once instead of at its next poll.
    op.execute(
        """
        CREATE FUNCTION notify_recognition_job_queued() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('recognition_job_queued', NEW.id::text);
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER recognition_job_queued
            AFTER INSERT OR UPDATE OF status ON recognition_job
            FOR EACH ROW WHEN (NEW.status = 'queued')
            EXECUTE FUNCTION notify_recognition_job_queued();
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS recognition_job_queued ON recognition_job")
    op.execute("DROP FUNCTION IF EXISTS notify_recognition_job_queued()")
    op.drop_table("audit_log")
    op.drop_constraint("fk_stored_file_current_recognition_job_id_recognition_job", "stored_file")
    op.drop_table("recognition_job")
    op.drop_table("stored_file")
    op.drop_table("s3_object")
    op.drop_table("consolidation")
