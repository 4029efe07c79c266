"""Result files into documents: every example of both MAJORs, bad results, isolation."""

from __future__ import annotations

import json
import uuid
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from arm_core.db.pool import open_pool
from arm_core.jobs.transitions import Transitions
from arm_core.mapping.loop import Mapping
from arm_core.metrics import Metrics
from arm_core.testing import fetch_one, file_row, job_row
from arm_ka_platform.settings import StorageConfig
from arm_ka_platform.storage import open_storage
from recognition_contract import examples, result_key

VALID_RESULTS = [e for e in examples() if e.kind.value == "result" and e.valid]
MONEY_FIELDS = (
    "opening_debit", "opening_credit", "turnover_debit",
    "turnover_credit", "closing_debit", "closing_credit",
)  # fmt: skip


@pytest.fixture
async def mapping(database_url: str, tmp_path: Path):
    storage = open_storage(
        StorageConfig(
            url=f"file://{tmp_path}",
            bucket="arm-ka",
            s3_endpoint_url=None,
            s3_region="us-east-1",
            access_key_id=None,
            secret_access_key=None,
        )
    )
    pool = await open_pool(database_url, max_size=2)
    await pool.wait()
    try:
        metrics = Metrics()
        yield Mapping(pool, storage, metrics, Transitions(metrics)), storage
    finally:
        await pool.close()


async def _finished_job(
    dsn: str,
    *,
    file_id: uuid.UUID,
    job_id: uuid.UUID,
    status: str,
    key: str | None,
    current: bool = True,
    schema_version: str = "2.0",
) -> None:
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        source = (
            await (
                await conn.execute(
                    "INSERT INTO s3_object (bucket, key, bucket_role, created_by)"
                    " VALUES ('arm-ka', %s, 'uploads', 'test') RETURNING id",
                    (f"uploads/{file_id}/original.xlsx",),
                )
            ).fetchone()
        )[0]
        result = None
        if key is not None:
            result = (
                await (
                    await conn.execute(
                        "INSERT INTO s3_object (bucket, key, bucket_role, created_by)"
                        " VALUES ('arm-ka', %s, 'results', 'tabular-parser') RETURNING id",
                        (key,),
                    )
                ).fetchone()
            )[0]
        await conn.execute(
            "INSERT INTO stored_file (id, original_name, file_type, s3_object_id, status,"
            " current_recognition_job_id) VALUES (%s, 'osv.xlsx', 'XLSX', %s, 'PROCESSING', %s)",
            (file_id, source, job_id if current else None),
        )
        await conn.execute(
            "INSERT INTO recognition_job (id, file_id, pipeline, attempt, max_attempts, status,"
            " finished_at, result_s3_object_id, result_schema_version)"
            " VALUES (%s, %s, 'tabular', 1, 3, %s, now(), %s, %s)",
            (job_id, file_id, status, result, schema_version),
        )
        await conn.commit()


async def _count(dsn: str, table: str) -> int:
    row = await fetch_one(dsn, f"SELECT count(*) AS n FROM {table}")
    assert row is not None
    return int(row["n"])


@pytest.mark.parametrize("example", VALID_RESULTS, ids=lambda e: e.name)
async def test_every_example_result_maps(mapping, database_url, example) -> None:
    mapper, storage = mapping
    payload = example.load()
    file_id, job_id = uuid.UUID(payload["file_id"]), uuid.UUID(payload["job_id"])
    key = result_key(file_id, job_id)
    await storage.put(key, json.dumps(payload, ensure_ascii=False).encode())
    if payload["status"] == "error":
        # An error result never reaches mapping: the inbox fails the file on the envelope.
        await _finished_job(database_url, file_id=file_id, job_id=job_id, status="error", key=key)
        assert await mapper.run_pass() == 0
        return
    await _finished_job(
        database_url, file_id=file_id, job_id=job_id, status=payload["status"], key=key,
        schema_version=payload["schema_version"],
    )  # fmt: skip

    assert await mapper.run_pass() == 1

    file = await file_row(database_url, file_id)
    expected_status = {"done": "RECOGNIZED", "needs_check": "NEEDS_CHECK"}[payload["status"]]
    assert (file["status"], file["mapping_error"]) == (expected_status, None)
    job = await job_row(database_url, job_id)
    assert job["group_schema"] == payload["group_schema"]
    assert job["mapped_at"] is not None
    documents = payload["documents"]
    assert await _count(database_url, "document") == len(documents)
    for position, source in enumerate(documents):
        stored = await fetch_one(
            database_url,
            "SELECT * FROM document WHERE job_id = %s AND position = %s",
            job_id,
            position,
        )
        assert stored["kind"] == source["type"]
        assert stored["confidence"] == Decimal(str(source["confidence"]))
        assert stored["locator"] == source["locator"]
        major = payload["schema_version"].split(".")[0]
        if major == "1":
            assert stored["warnings"] == [
                {"code": "LEGACY_WARNING", "severity": "info", "message": text, "locator": None}
                for text in source["warnings"]
            ]
        else:
            assert stored["warnings"] == source["warnings"]
        if source["type"] == "osv":
            await _check_rows(database_url, stored["id"], source["rows"])
        else:
            await _check_statement(database_url, stored["id"], source)


async def _check_rows(dsn: str, document_id, rows: list[dict]) -> None:
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        cursor = conn.cursor(row_factory=psycopg.rows.dict_row)
        await cursor.execute(
            "SELECT * FROM trial_balance_row WHERE document_id = %s ORDER BY position",
            (document_id,),
        )
        stored = await cursor.fetchall()
    assert len(stored) == len(rows)
    for mine, theirs in zip(stored, rows, strict=True):
        assert (mine["row_id"], mine["parent_row_id"], mine["level"]) == (
            theirs["id"], theirs["parent"], theirs["level"],
        )  # fmt: skip
        assert (mine["account"], mine["name"]) == (theirs["code"], theirs["name"])
        for field in MONEY_FIELDS:
            expected = Decimal(theirs[field]) if theirs[field] is not None else None
            assert mine[field] == expected, field
        assert mine["locator"] == theirs["locator"]


async def _check_statement(dsn: str, document_id, source: dict) -> None:
    header = await fetch_one(
        dsn, "SELECT * FROM statement_header WHERE document_id = %s", document_id
    )
    assert header["account"] == source["header"]["account"]
    assert header["opening_balance"] == Decimal(source["header"]["opening_balance"])
    lines = source["transactions"]
    count = await fetch_one(
        dsn, "SELECT count(*) AS n, sum(debit) AS d FROM statement_transaction WHERE document_id = %s",
        document_id,
    )  # fmt: skip
    assert count["n"] == len(lines)
    assert count["d"] == sum(Decimal(x["debit"]) for x in lines if x["debit"] is not None)


def _base_result(file_id: uuid.UUID, job_id: uuid.UUID, version: str = "2.0") -> dict:
    example = next(e for e in VALID_RESULTS if e.name == "result-2.0-done-osv-general.json")
    payload = example.load()
    payload.update(job_id=str(job_id), file_id=str(file_id), schema_version=version)
    return payload


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("missing", "не найден"),
        ("not-json", "не соответствует схеме"),
        ("schema", "не соответствует схеме"),
        ("major-3", "неизвестная версия"),
        ("other-job", "другому заданию"),
        ("status-differs", "не совпадает"),
    ],
)
async def test_bad_result_sets_mapping_error_and_keeps_the_job_status(
    mapping, database_url, case, reason
) -> None:
    mapper, storage = mapping
    file_id, job_id = uuid.uuid4(), uuid.uuid4()
    key = result_key(file_id, job_id)
    payload = _base_result(file_id, job_id)
    if case == "not-json":
        await storage.put(key, b"{not json")
    elif case == "schema":
        payload["documents"][0]["rows"][0]["opening_debit"] = 12.5
        await storage.put(key, json.dumps(payload).encode())
    elif case == "major-3":
        payload["schema_version"] = "3.0"
        await storage.put(key, json.dumps(payload).encode())
    elif case == "other-job":
        payload["job_id"] = str(uuid.uuid4())
        await storage.put(key, json.dumps(payload).encode())
    elif case == "status-differs":
        await storage.put(key, json.dumps(payload).encode())
    status = "needs_check" if case == "status-differs" else "done"
    await _finished_job(database_url, file_id=file_id, job_id=job_id, status=status, key=key)
    before = await job_row(database_url, job_id)

    assert await mapper.run_pass() == 1

    file = await file_row(database_url, file_id)
    assert file["status"] == "ERROR"
    assert file["error_code"] == "MAPPING_ERROR"
    assert reason in file["mapping_error"]
    after = await job_row(database_url, job_id)
    # Mapping is over for this job (it is not claimed again); what the service said stays.
    assert after["mapped_at"] is not None
    assert {**after, "mapped_at": None} == before
    assert await _count(database_url, "document") == 0
    assert await _count(database_url, "trial_balance_row") == 0
    assert await mapper.run_pass() == 0


async def test_a_result_that_cannot_be_written_fails_its_file_and_blocks_no_other(
    mapping, database_url
) -> None:
    mapper, storage = mapping
    poisoned, good = (uuid.uuid4(), uuid.uuid4()), (uuid.uuid4(), uuid.uuid4())
    for file_id, job_id in (poisoned, good):
        payload = _base_result(file_id, job_id)
        if (file_id, job_id) == poisoned:
            # Valid JSON and valid by the schema, but PostgreSQL text cannot hold NUL.
            payload["documents"][0]["rows"][0]["name"] = "ООО \u0000 Альфа"
        key = result_key(file_id, job_id)
        await storage.put(key, json.dumps(payload).encode())
        await _finished_job(database_url, file_id=file_id, job_id=job_id, status="done", key=key)

    assert await mapper.run_pass() == 2

    failed = await file_row(database_url, poisoned[0])
    assert (failed["status"], failed["error_code"]) == ("ERROR", "MAPPING_ERROR")
    assert "DataError" in failed["mapping_error"]
    assert (await file_row(database_url, good[0]))["status"] == "RECOGNIZED"
    assert await fetch_one(
        database_url, "SELECT count(*) AS n FROM document WHERE job_id = %s", poisoned[1]
    ) == {"n": 0}


async def test_never_documents_for_a_job_that_is_not_current(mapping, database_url) -> None:
    mapper, storage = mapping
    file_id, job_id = uuid.uuid4(), uuid.uuid4()
    key = result_key(file_id, job_id)
    await storage.put(key, json.dumps(_base_result(file_id, job_id)).encode())
    await _finished_job(
        database_url, file_id=file_id, job_id=job_id, status="done", key=key, current=False
    )
    assert await mapper.run_pass() == 0
    assert await _count(database_url, "document") == 0
    assert (await file_row(database_url, file_id))["status"] == "PROCESSING"


async def test_never_twice_for_one_job(mapping, database_url) -> None:
    mapper, storage = mapping
    file_id, job_id = uuid.uuid4(), uuid.uuid4()
    key = result_key(file_id, job_id)
    await storage.put(key, json.dumps(_base_result(file_id, job_id)).encode())
    await _finished_job(database_url, file_id=file_id, job_id=job_id, status="done", key=key)
    assert await mapper.run_pass() == 1
    documents = await _count(database_url, "document")
    rows = await _count(database_url, "trial_balance_row")
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        # Even a file put back into PROCESSING by hand does not map the same job again.
        await conn.execute("UPDATE stored_file SET status = 'PROCESSING' WHERE id = %s", (file_id,))
    assert await mapper.run_pass() == 0
    assert (await _count(database_url, "document"), await _count(database_url, "trial_balance_row")) == (
        documents, rows,
    )  # fmt: skip


async def test_documents_api_shows_the_current_attempt(make_core_settings, tmp_path) -> None:
    from arm_core.testing import run_core, wait_until

    settings = make_core_settings(nats_enabled=True)
    dsn = settings.database_dsn
    file_id, job_id = uuid.uuid4(), uuid.uuid4()
    key = result_key(file_id, job_id)
    storage = open_storage(settings.storage)
    await storage.put(key, json.dumps(_base_result(file_id, job_id)).encode())
    await _finished_job(dsn, file_id=file_id, job_id=job_id, status="done", key=key)
    async with run_core(settings) as core:
        await wait_until(lambda: _file_status(dsn, file_id, "RECOGNIZED"))
        body = (await core.client.get(f"/api/v1/files/{file_id}/documents")).json()
        detail = (await core.client.get(f"/api/v1/files/{file_id}")).json()
        missing = await core.client.get(f"/api/v1/files/{uuid.uuid4()}/documents")
    assert missing.status_code == 404
    assert detail["status"] == "RECOGNIZED"
    assert body["job_id"] == str(job_id)
    [document] = body["documents"]
    source = _base_result(file_id, job_id)["documents"][0]
    assert document["kind"] == "osv"
    assert [row["account"] for row in document["rows"]] == [row["code"] for row in source["rows"]]
    assert [row["closing_debit"] for row in document["rows"]] == [
        row["closing_debit"] for row in source["rows"]
    ]
    assert document["period"]["from"] == source["period"]["from"]


async def _file_status(dsn, file_id, status):
    return (await file_row(dsn, file_id))["status"] == status


async def test_a_batch_stops_at_its_byte_budget_and_the_pass_maps_the_rest(
    mapping, database_url
) -> None:
    """Batches of three jobs, but a budget of one result's bytes: each transaction reads and
    maps one result, and the pass goes on until every job is mapped, oldest first."""
    mapper, storage = mapping
    small = Mapping(
        mapper._pool,
        storage,
        mapper._metrics,
        mapper._transitions,
        batch_size=3,
        batch_bytes=1,
    )
    files = []
    for _ in range(5):
        file_id, job_id = uuid.uuid4(), uuid.uuid4()
        key = result_key(file_id, job_id)
        await storage.put(key, json.dumps(_base_result(file_id, job_id)).encode())
        await _finished_job(database_url, file_id=file_id, job_id=job_id, status="done", key=key)
        files.append(file_id)
    batches = []
    while taken := await small.map_batch():
        batches.append(taken)
    assert batches == [1, 1, 1, 1, 1]
    assert [(await file_row(database_url, f))["status"] for f in files] == ["RECOGNIZED"] * 5
    assert await _count(database_url, "document") == 5
