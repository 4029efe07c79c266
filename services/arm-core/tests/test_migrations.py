"""The schema comes only from migrations, and equals what the tables declare."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from arm_core.db.migrate import downgrade, make_engine, upgrade
from arm_core.db.tables import metadata
from arm_ka_devstack.postgres import EmbeddedPostgres


@pytest.fixture
def empty_database(postgres: EmbeddedPostgres):
    name = f"empty_{uuid.uuid4().hex[:12]}"
    url = postgres.ensure_database(name)
    yield url
    postgres.drop_database(name)


def _tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()
    return {row[0] for row in rows}


def _schema_diff(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, metadata))
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade_matches_declared_schema(empty_database: str) -> None:
    upgrade(empty_database)
    assert {"consolidation", "s3_object", "stored_file", "recognition_job", "audit_log"} <= _tables(
        empty_database
    )
    assert _schema_diff(empty_database) == []

    downgrade(empty_database, "base")
    assert _tables(empty_database) == {"alembic_version"}

    upgrade(empty_database)
    assert _schema_diff(empty_database) == []


def _insert_file(conn: psycopg.Connection) -> uuid.UUID:
    object_id = conn.execute(
        "INSERT INTO s3_object (bucket, key, bucket_role, created_by)"
        " VALUES ('arm-ka', %s, 'uploads', 'test') RETURNING id",
        (f"uploads/{uuid.uuid4()}",),
    ).fetchone()[0]
    return conn.execute(
        "INSERT INTO stored_file (original_name, file_type, s3_object_id)"
        " VALUES ('osv.xlsx', 'XLSX', %s) RETURNING id",
        (object_id,),
    ).fetchone()[0]


def test_constraints_guard_statuses_and_attempts(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        file_id = _insert_file(conn)
        conn.execute(
            "INSERT INTO recognition_job (file_id, pipeline, attempt, max_attempts)"
            " VALUES (%s, 'tabular', 1, 3)",
            (file_id,),
        )
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "INSERT INTO recognition_job (file_id, pipeline, attempt, max_attempts)"
                " VALUES (%s, 'tabular', 1, 3)",
                (file_id,),
            )
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                "INSERT INTO recognition_job (file_id, pipeline, attempt, max_attempts, status)"
                " VALUES (%s, 'tabular', 2, 3, 'lost')",
                (file_id,),
            )
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("UPDATE stored_file SET status = 'DONE' WHERE id = %s", (file_id,))
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                "INSERT INTO s3_object (bucket, key, bucket_role, created_by)"
                " VALUES ('arm-ka', 'x', 'temp', 'test')"
            )
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute(
                "INSERT INTO recognition_job (file_id, pipeline, attempt, max_attempts)"
                " VALUES (%s, 'tabular', 1, 3)",
                (uuid.uuid4(),),
            )


def test_outbox_claim_uses_partial_index(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(
            row[0]
            for row in conn.execute(
                "EXPLAIN SELECT id FROM recognition_job WHERE status = 'queued'"
                " ORDER BY requested_at LIMIT 10 FOR UPDATE SKIP LOCKED"
            ).fetchall()
        )
    assert "ix_recognition_job_queued" in plan


def test_queued_jobs_notify_once_per_transaction(database_url: str) -> None:
    """The notification only wakes the outbox: three jobs queued in one transaction, and one
    more in another, are two notifications."""
    with psycopg.connect(database_url, autocommit=True) as listener:
        listener.execute("LISTEN recognition_job_queued")
        with psycopg.connect(database_url, autocommit=True) as conn:
            files = [_insert_file(conn) for _ in range(4)]
            insert = (
                "INSERT INTO recognition_job (file_id, pipeline, attempt, max_attempts)"
                " SELECT unnest(%s::uuid[]), 'tabular', 1, 3"
            )
            conn.execute(insert, (files[:3],))
            conn.execute(insert, (files[3:],))
        payloads = [n.payload for n in listener.notifies(timeout=2, stop_after=3)]
    assert payloads == ["", ""]
