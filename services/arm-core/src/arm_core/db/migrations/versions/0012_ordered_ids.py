"""Ids in the order they are made: the ids the database assigns (objects, files, jobs,
documents, consolidations) are UUID version 7, as those arm-core makes (``arm_core.db.ids``),
so a table's newest rows sit together at the end of its indexes however long its history.

``uuid_v7()`` takes a random version-4 UUID and lays the clock's milliseconds over its first
six bytes; setting bits 52 and 53 turns version 0100 into 0111 (PostgreSQL numbers a byte's
bits from its least significant). The variant bits stay those of ``gen_random_uuid()``.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

TABLES = ("consolidation", "s3_object", "stored_file", "recognition_job", "document")


def upgrade() -> None:
    op.execute(
        """
CREATE FUNCTION uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
SELECT encode(
    set_bit(set_bit(
        overlay(uuid_send(gen_random_uuid())
                PLACING substring(int8send(
                    floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                FROM 1 FOR 6),
        52, 1), 53, 1),
    'hex')::uuid
$$
"""
    )
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN id SET DEFAULT uuid_v7()")


def downgrade() -> None:
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN id SET DEFAULT gen_random_uuid()")
    op.execute("DROP FUNCTION uuid_v7()")
