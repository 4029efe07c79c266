"""Every statement on the exchange, intake and mapping paths is planned without a sequential
scan of ``recognition_job``, ``stored_file``, ``document`` or ``s3_object`` on a database
holding 100,000 files with their jobs and documents: the cost of a job must not grow with how many jobs were
ever done. The statements are found, not listed: every SQL constant of the modules below is
explained, so a statement added later is held to the same rule."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from arm_core.testing import RECOGNISED_FILES

pytestmark = pytest.mark.timeout(300)

MODULES = (
    "arm_core.jobs.transitions",
    "arm_core.exchange.outbox",
    "arm_core.exchange.republisher",
    "arm_core.files.intake",
    "arm_core.mapping.queries",
)
WATCHED = {"recognition_job", "stored_file", "document", "s3_object"}
HISTORY = 100_000

# Existing rows the sample parameters name, filled in once the history is written.
_IDS: dict[str, Any] = {}


def _samples() -> dict[str, Any]:
    now = datetime.now(UTC)
    job_id, file_id = _IDS["job_id"], _IDS["file_id"]
    return {
        # Scalars.
        "job_id": job_id,
        "file_id": file_id,
        "consolidation_id": None,
        "limit": 100,
        "ack_timeout": 30.0,
        "max_republish": 3,
        "max_attempts": 3,
        "actor": "bench",
        "bucket": "arm-ka",
        "key": f"results/{file_id}/{job_id}/result.json",
        "raw_key": None,
        "name": "ОСВ.xlsx",
        "file_type": "XLSX",
        "pipeline": "tabular",
        "content_type": "application/octet-stream",
        "sha256": "0" * 64,
        "size": 1024,
        "details": Jsonb({}),
        "reason": "не разобрать",
        "group_schema": None,
        # Who asks (arm_core.auth.principal.Principal.sql).
        "user": "ivanova.a",
        "teams": ["team-a"],
        "sees_all": False,
        # One row's worth of each batch parameter.
        "ids": [job_id],
        "file_ids": [file_id],
        "deadlines": [now],
        "msg_ids": [f"{job_id}:1"],
        "subjects": ["files.tabular_uploaded"],
        "published_at": [now],
        "counts": [1],
        "service_names": ["tabular-parser"],
        "service_versions": ["1.0"],
        "statuses": ["done"],
        "statements_versions": [None],
        "metrics": [Jsonb({})],
        "error_codes": [None],
        "error_messages": [None],
        "result_schema_versions": ["2.0"],
        "buckets": ["arm-ka"],
        "keys": [f"results/{file_id}/{job_id}/result.json"],
        "raw_keys": [None],
        "group_schemas": [None],
    }


def _statements() -> dict[str, str]:
    """Every module-level SQL constant of MODULES that reads or changes rows (COPY aside)."""
    found: dict[str, str] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        tree = ast.parse(inspect.getsource(module))
        for node in tree.body:
            if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
                continue
            constant = node.targets[0].id
            value = getattr(module, constant, None)
            if not (constant.isupper() and isinstance(value, str)):
                continue
            if re.search(r"\b(SELECT|UPDATE|INSERT|DELETE)\b", value) and "COPY" not in value:
                found[f"{name.rsplit('.', 1)[-1]}.{constant}"] = value
    return found


def _history(conn: psycopg.Connection[Any]) -> None:
    """100,000 files: most recognised long ago, a few at each stage of the path."""
    conn.execute("ALTER TABLE recognition_job DISABLE TRIGGER recognition_job_queued")
    conn.execute(RECOGNISED_FILES, {"n": HISTORY})
    # A few hundred at each stage of the path, as a busy day leaves them.
    conn.execute(
        """
        WITH picked AS (
            SELECT id, file_id, row_number() OVER () AS n
              FROM recognition_job ORDER BY id LIMIT 1000
        )
        UPDATE recognition_job j
           SET status = (ARRAY['queued', 'published', 'processing', 'done'])[1 + p.n % 4],
               mapped_at = NULL,
               reply_deadline = now() + interval '10 minutes'
          FROM picked p
         WHERE j.id = p.id
        """
    )
    conn.execute(
        "UPDATE stored_file f SET status = 'PROCESSING' FROM recognition_job j"
        " WHERE j.id = f.current_recognition_job_id AND j.mapped_at IS NULL"
    )
    conn.execute("ALTER TABLE recognition_job ENABLE TRIGGER recognition_job_queued")
    row = conn.execute(
        "SELECT id, file_id FROM recognition_job WHERE status = 'processing' LIMIT 1"
    ).fetchone()
    assert row is not None
    _IDS.update(job_id=row[0], file_id=row[1])
    conn.execute("ANALYZE")


def _scans(plan: dict[str, Any]) -> list[str]:
    """The watched tables a plan reads whole."""
    found = []
    if plan.get("Node Type") == "Seq Scan" and plan.get("Relation Name") in WATCHED:
        found.append(plan["Relation Name"])
    for child in plan.get("Plans", []):
        found += _scans(child)
    return found


def test_the_walk_finds_the_paths_statements() -> None:
    statements = _statements()
    # The walk is only as good as what it finds: the statements every job goes through.
    for expected in (
        "outbox.CLAIM_QUEUED",
        "transitions.PUBLISH",
        "transitions.ACK",
        "transitions.RESULT",
        "transitions.CLAIM_UNMAPPED",
        "transitions.MAPPED",
        "intake.REGISTER",
    ):
        assert expected in statements


def test_no_statement_of_the_path_reads_a_whole_table(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        _history(conn)
        samples = _samples()
        unknown = {
            name: sorted(set(re.findall(r"%\((\w+)\)s", sql)) - set(samples))
            for name, sql in _statements().items()
        }
        assert {k: v for k, v in unknown.items() if v} == {}, "parameters without a sample"
        scans: dict[str, list[str]] = {}
        for name, sql in _statements().items():
            params = {p: samples[p] for p in set(re.findall(r"%\((\w+)\)s", sql))}
            # Planned as executed: with the values bound (a custom plan), never run.
            with conn.transaction(force_rollback=True):
                conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
                (plan,) = conn.execute(f"EXPLAIN (FORMAT JSON) {sql}", params).fetchone()
            found = _scans(plan[0]["Plan"])
            if found:
                scans[name] = found
    assert scans == {}


def test_a_sequential_scan_is_caught(database_url: str) -> None:
    """The check itself: a statement that must read the whole table is reported."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = on")
        (plan,) = conn.execute(
            "EXPLAIN (FORMAT JSON) SELECT * FROM recognition_job WHERE metrics ? 'x'"
        ).fetchone()
    assert _scans(plan[0]["Plan"]) == ["recognition_job"]
