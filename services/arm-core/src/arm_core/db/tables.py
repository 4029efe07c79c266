"""The schema as SQLAlchemy Core tables.

Migrations are the only way the schema is created; these declarations exist so that a test can
prove the migrated schema equals what the code declares (Alembic's ``compare_metadata``).
Queries themselves are plain SQL next to the code that runs them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    ForeignKey,
    Identity,
    Index,
    Integer,
    MetaData,
    Numeric,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from recognition_contract import MONEY_FIELDS

MONEY = Numeric(20, 2)
CONFIDENCE = Numeric(5, 2)
# A trial balance row's six amount columns: the contract's names.
ROW_MONEY = MONEY_FIELDS

JOB_STATUSES = (
    "queued",
    "published",
    "processing",
    "done",
    "needs_check",
    "error",
    "timeout",
    "dlq",
)
FINAL_JOB_STATUSES = ("done", "needs_check", "error", "timeout", "dlq")
FILE_STATUSES = ("UPLOADED", "PROCESSING", "RECOGNIZED", "NEEDS_CHECK", "ERROR")
FILE_TYPES = ("XLS", "XLSX", "XLSB", "PDF", "PNG", "JPG", "TXT", "XML")
PIPELINES = ("tabular", "image")
BUCKET_ROLES = ("uploads", "results", "raw")

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _id() -> Column[object]:
    return Column("id", UUID(as_uuid=True), primary_key=True, server_default=text("uuid_v7()"))


consolidation = Table(
    "consolidation",
    metadata,
    _id(),
    Column("name", Text, nullable=False),
    # Analysts see the consolidations of their own teams (NULL: made before teams were kept).
    Column("team", Text, index=True),
    Column("created_by", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    CheckConstraint("length(btrim(name)) > 0", name="name_not_blank"),
)

s3_object = Table(
    "s3_object",
    metadata,
    _id(),
    Column("bucket", Text, nullable=False),
    Column("key", Text, nullable=False),
    Column("bucket_role", Text, nullable=False),
    Column("size", BigInteger),
    Column("content_type", Text),
    # An upload's SHA-256 (hex): the same bytes uploaded twice are told by it.
    Column("sha256", Text, index=True),
    Column("created_by", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    UniqueConstraint("bucket", "key"),
    CheckConstraint(_in("bucket_role", BUCKET_ROLES), name="bucket_role"),
    CheckConstraint("size IS NULL OR size >= 0", name="size_not_negative"),
)

stored_file = Table(
    "stored_file",
    metadata,
    _id(),
    Column("original_name", Text, nullable=False),
    Column("file_type", Text, nullable=False),
    # Indexed: an upload's twins are found from their object (the same SHA-256) to their file.
    Column(
        "s3_object_id",
        UUID(as_uuid=True),
        ForeignKey("s3_object.id"),
        nullable=False,
        index=True,
    ),
    Column("consolidation_id", UUID(as_uuid=True), ForeignKey("consolidation.id"), index=True),
    Column("status", Text, nullable=False, server_default=text("'UPLOADED'")),
    Column("error_code", Text),
    Column("error_message", Text),
    Column("mapping_error", Text),
    # Left out of the consolidation's «Сверки» by an analyst, and why (reconcile.exclusions).
    Column("reconciliation_excluded_by", Text),
    Column("reconciliation_excluded_reason", Text),
    Column("reconciliation_excluded_at", DateTime(timezone=True)),
    Column(
        "current_recognition_job_id",
        UUID(as_uuid=True),
        ForeignKey("recognition_job.id", use_alter=True, deferrable=True, initially="DEFERRED"),
    ),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    CheckConstraint(_in("status", FILE_STATUSES), name="status"),
    CheckConstraint(_in("file_type", FILE_TYPES), name="file_type"),
    Index("ix_stored_file_status", "status"),
)

recognition_job = Table(
    "recognition_job",
    metadata,
    _id(),
    Column("file_id", UUID(as_uuid=True), ForeignKey("stored_file.id"), nullable=False),
    Column("pipeline", Text, nullable=False),
    Column("attempt", Integer, nullable=False),
    Column("max_attempts", Integer, nullable=False),
    Column("status", Text, nullable=False, server_default=text("'queued'")),
    Column("requested_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    Column("published_at", DateTime(timezone=True)),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Column("reply_deadline", DateTime(timezone=True)),
    Column("request_msg_id", Text),
    Column("request_subject", Text),
    Column("result_msg_id", Text),
    Column("service_name", Text),
    Column("service_version", Text),
    # republish_count mirrors the column of that name (the exchange spec's name for it).
    Column(
        "metrics",
        JSONB,
        nullable=False,
        server_default=text("'{\"republish_count\": 0}'::jsonb"),
    ),
    Column("error_code", Text),
    Column("error_message", Text),
    Column("result_schema_version", Text),
    Column("result_s3_object_id", UUID(as_uuid=True), ForeignKey("s3_object.id")),
    Column("group_schema", Text),
    Column("statements_version", Text),
    Column("mapped_at", DateTime(timezone=True)),
    # Publishes beyond the first that may have reached NATS; decides dlq.
    Column("republish_count", Integer, nullable=False, server_default=text("0")),
    UniqueConstraint("file_id", "attempt"),
    CheckConstraint(_in("status", JOB_STATUSES), name="status"),
    CheckConstraint(_in("pipeline", PIPELINES), name="pipeline"),
    CheckConstraint("attempt >= 1", name="attempt_positive"),
    CheckConstraint("max_attempts >= 1", name="max_attempts_positive"),
    CheckConstraint("republish_count >= 0", name="republish_count_not_negative"),
    # The outbox claims queued jobs oldest first; a partial index keeps that claim cheap no
    # matter how many finished jobs the table holds.
    Index(
        "ix_recognition_job_queued",
        "requested_at",
        postgresql_where=text("status = 'queued'"),
    ),
    # The republisher and the watchdog scan only jobs in flight.
    Index(
        "ix_recognition_job_in_flight",
        "published_at",
        postgresql_where=text("status IN ('published', 'processing')"),
    ),
    # The mapping loop looks for finished jobs whose documents are not written yet.
    Index(
        "ix_recognition_job_unmapped",
        "finished_at",
        postgresql_where=text("status IN ('done', 'needs_check') AND mapped_at IS NULL"),
    ),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False, server_default=text("now()"), index=True),
    Column("actor", Text, nullable=False, index=True),
    Column("action", Text, nullable=False),
    Column("file_id", UUID(as_uuid=True), ForeignKey("stored_file.id"), index=True),
    Column("job_id", UUID(as_uuid=True), ForeignKey("recognition_job.id")),
    Column("details", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    # "ok", or the error code a refused request was answered with.
    Column("outcome", Text, nullable=False, server_default=text("'ok'")),
)


document = Table(
    "document",
    metadata,
    _id(),
    Column("job_id", UUID(as_uuid=True), ForeignKey("recognition_job.id"), nullable=False),
    Column("file_id", UUID(as_uuid=True), ForeignKey("stored_file.id"), nullable=False, index=True),
    Column("position", Integer, nullable=False),
    Column("kind", Text, nullable=False),
    Column("variant", Text),
    Column("title", Text),
    Column("organisation_name", Text),
    Column("organisation_tax_id", Text),
    Column("period_from", Date),
    Column("period_to", Date),
    Column("period_text", Text),
    Column("currency", Text),
    Column("unit", Text),
    Column("account_code", Text),
    Column("account_name", Text),
    Column("confidence", CONFIDENCE, nullable=False),
    Column("warnings", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    Column("locator", JSONB, nullable=False),
    Column("totals", JSONB),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    Column("confirmed_by", Text),
    Column("confirmed_at", DateTime(timezone=True)),
    # Set by a correction made after a confirmation; cleared by the next confirmation.
    Column("reopened_by", Text),
    Column("reopened_at", DateTime(timezone=True)),
    UniqueConstraint("job_id", "position"),
    CheckConstraint("kind IN ('osv', 'statement')", name="kind"),
    CheckConstraint("confidence BETWEEN 0 AND 100", name="confidence_range"),
)


def _document_fk() -> ForeignKey:
    return ForeignKey("document.id", ondelete="CASCADE")


trial_balance_row = Table(
    "trial_balance_row",
    metadata,
    Column("document_id", UUID(as_uuid=True), _document_fk(), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("row_id", Integer, nullable=False),
    Column("parent_row_id", Integer),
    Column("kind", Text, nullable=False),
    Column("level", Integer, nullable=False),
    Column("account", Text),
    Column("name", Text),
    *(Column(name, MONEY) for name in ROW_MONEY),
    Column("confidence", CONFIDENCE, nullable=False),
    Column("locator", JSONB, nullable=False),
)

statement_header = Table(
    "statement_header",
    metadata,
    Column("document_id", UUID(as_uuid=True), _document_fk(), primary_key=True),
    Column("bank_name", Text),
    Column("bank_bic", Text),
    Column("account", Text),
    Column("currency", Text),
    Column("holder_name", Text),
    Column("holder_tax_id", Text),
    Column("period_from", Date),
    Column("period_to", Date),
    Column("period_text", Text),
    *(
        Column(name, MONEY)
        for name in ("opening_balance", "closing_balance", "total_debit", "total_credit")
    ),
)

statement_transaction = Table(
    "statement_transaction",
    metadata,
    Column("document_id", UUID(as_uuid=True), _document_fk(), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("date", Date),
    Column("number", Text),
    *(Column(name, MONEY) for name in ("debit", "credit", "debit_equivalent", "credit_equivalent")),
    Column("counterparty_name", Text),
    Column("counterparty_tax_id", Text),
    Column("counterparty_account", Text),
    Column("counterparty_bank", Text),
    Column("counterparty_bank_bic", Text),
    Column("purpose", Text),
    Column("confidence", CONFIDENCE, nullable=False),
    Column("document_kind", Text),
    Column("counterparty_kpp", Text),
    Column("locator", JSONB, nullable=False),
)

# Sign-in (OpenID Connect): found by hashes of the values the browser holds.
login_request = Table(
    "login_request",
    metadata,
    Column("state_hash", Text, primary_key=True),
    Column("code_verifier", Text, nullable=False),
    Column("nonce", Text, nullable=False),
    Column("next_path", Text, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False, index=True),
    # SHA-256 of the value the starting browser's cookie holds: the callback must bring it.
    Column("browser_hash", Text, nullable=False),
)

user_session = Table(
    "user_session",
    metadata,
    Column("token_hash", Text, primary_key=True),
    Column("user_name", Text, nullable=False),
    Column("roles", ARRAY(Text), nullable=False),
    Column("teams", ARRAY(Text), nullable=False),
    Column("csrf_token", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    Column("expires_at", DateTime(timezone=True), nullable=False, index=True),
)

# An analyst's corrections: a layer over what was recognised (see migration 0009).
correction = Table(
    "correction",
    metadata,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column(
        "document_id", UUID(as_uuid=True), ForeignKey("document.id"), nullable=False, index=True
    ),
    Column("target", Text, nullable=False),
    Column("position", Integer),
    Column("field", Text, nullable=False),
    Column("recognised", Text),
    Column("corrected", Text),
    Column("reason", Text, nullable=False),
    Column("actor", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    # Undone: kept, with who undid it and when, and no longer applied.
    Column("undone_by", Text),
    Column("undone_at", DateTime(timezone=True)),
    CheckConstraint("target IN ('header', 'row', 'transaction')", name="target"),
)

acknowledgement = Table(
    "acknowledgement",
    metadata,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column(
        "document_id", UUID(as_uuid=True), ForeignKey("document.id"), nullable=False, index=True
    ),
    Column("code", Text, nullable=False),
    Column("locator", JSONB),
    Column("reason", Text, nullable=False),
    Column("actor", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
)
