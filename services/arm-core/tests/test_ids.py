"""Ids in the order they are made: arm-core's ``new_id`` and the database's ``uuid_v7()``
make the same layout (RFC 9562 version 7), so the rows of both kinds sort by when they were
made."""

from __future__ import annotations

import time
import uuid

import psycopg

from arm_core.db.ids import first_id_of, made_at_millis, new_id


def _now_millis() -> int:
    return time.time_ns() // 1_000_000


def _is_version_7(value: uuid.UUID) -> bool:
    return value.version == 7 and value.variant == uuid.RFC_4122


def test_an_id_made_here_carries_its_time_and_version() -> None:
    before = _now_millis()
    ids = [new_id() for _ in range(10_000)]
    after = _now_millis()
    assert all(_is_version_7(value) for value in ids)
    assert all(before <= made_at_millis(value) <= after for value in ids)
    assert len(set(ids)) == len(ids)


def test_ids_made_in_later_milliseconds_sort_later() -> None:
    first = new_id()
    while _now_millis() <= made_at_millis(first):  # the next millisecond, not a guess at it
        pass
    assert str(first) < str(new_id())
    assert first.bytes < new_id().bytes


def test_the_database_makes_the_same_layout(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        before = _now_millis()
        made = [row[0] for row in conn.execute("SELECT uuid_v7() FROM generate_series(1, 1000)")]
        after = _now_millis()
        # The database's clock is this machine's: the ids carry the time of the statement.
        assert all(_is_version_7(value) for value in made)
        assert all(before <= made_at_millis(value) <= after for value in made)
        assert len(set(made)) == len(made)
        here = new_id()
        while _now_millis() <= made_at_millis(here):
            pass
        [(later,)] = conn.execute("SELECT uuid_v7()").fetchall()
    assert here < later
    assert made_at_millis(max(made)) <= made_at_millis(here)


def test_rows_the_database_adds_get_ordered_ids(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        [(object_id,)] = conn.execute(
            "INSERT INTO s3_object (bucket, key, bucket_role, created_by)"
            " VALUES ('arm-ka', 'uploads/x', 'uploads', 'test') RETURNING id"
        ).fetchall()
        [(file_id,)] = conn.execute(
            "INSERT INTO stored_file (original_name, file_type, s3_object_id)"
            " VALUES ('osv.xlsx', 'XLSX', %s) RETURNING id",
            (object_id,),
        ).fetchall()
        [(job_id,)] = conn.execute(
            "INSERT INTO recognition_job (file_id, pipeline, attempt, max_attempts)"
            " VALUES (%s, 'tabular', 1, 3) RETURNING id",
            (file_id,),
        ).fetchall()
    assert all(_is_version_7(value) for value in (object_id, file_id, job_id))


def test_every_id_made_since_a_moment_sorts_after_its_first_id(database_url: str) -> None:
    since = _now_millis()
    first = first_id_of(since)
    here = [new_id() for _ in range(1000)]
    with psycopg.connect(database_url, autocommit=True) as conn:
        there = [row[0] for row in conn.execute("SELECT uuid_v7() FROM generate_series(1, 1000)")]
        [(older,)] = conn.execute(
            "SELECT count(*) FROM unnest(%s::uuid[]) AS i WHERE i < %s", (here + there, first)
        ).fetchall()
    assert _is_version_7(first)
    assert made_at_millis(first) == since
    assert all(first <= value for value in here + there)
    assert older == 0
