"""A core killed while mapping (result read, documents not yet committed) maps the job exactly
once after a restart: nothing of the killed attempt remains."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import psycopg

from arm_core.cli import STOP_BOUND_SECONDS
from arm_ka_devstack.processes import free_port, venv_command
from recognition_contract import examples, result_key

ROWS = 60_000


def _big_result(file_id: uuid.UUID, job_id: uuid.UUID) -> dict:
    example = next(e for e in examples() if e.name == "result-2.0-done-osv-general.json")
    payload = example.load()
    payload.update(job_id=str(job_id), file_id=str(file_id))
    document = payload["documents"][0]
    template = copy.deepcopy(document["rows"][0])
    rows = []
    for index in range(1, ROWS + 1):
        row = copy.deepcopy(template)
        row.update(id=index, parent=None, level=0, code=f"{10 + index % 80:02d}")
        row["locator"] = {"sheet": "ОСВ", "row": index + 8}
        rows.append(row)
    document["rows"] = rows
    document["totals"] = None
    return payload


def _seed(dsn: str, file_id: uuid.UUID, job_id: uuid.UUID, key: str) -> None:
    with psycopg.connect(dsn) as conn:
        source = conn.execute(
            "INSERT INTO s3_object (bucket, key, bucket_role, created_by)"
            " VALUES ('arm-ka', 'uploads/x', 'uploads', 'test') RETURNING id"
        ).fetchone()[0]
        result = conn.execute(
            "INSERT INTO s3_object (bucket, key, bucket_role, created_by)"
            " VALUES ('arm-ka', %s, 'results', 'tabular-parser') RETURNING id",
            (key,),
        ).fetchone()[0]
        conn.execute(
            "INSERT INTO stored_file (id, original_name, file_type, s3_object_id, status,"
            " current_recognition_job_id) VALUES (%s, 'big.xlsx', 'XLSX', %s, 'PROCESSING', %s)",
            (file_id, source, job_id),
        )
        conn.execute(
            "INSERT INTO recognition_job (id, file_id, pipeline, attempt, max_attempts, status,"
            " finished_at, result_s3_object_id) VALUES (%s, %s, 'tabular', 1, 3, 'done', now(), %s)",
            (job_id, file_id, result),
        )


def _core(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [venv_command("arm-core")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _mapping_holds_the_job(dsn: str, job_id: uuid.UUID) -> bool:
    with psycopg.connect(dsn) as conn:
        try:
            conn.execute("SET lock_timeout = '10ms'")
            conn.execute("SELECT 1 FROM recognition_job WHERE id = %s FOR UPDATE", (job_id,))
        except psycopg.errors.LockNotAvailable:
            return True
        finally:
            conn.rollback()
    return False


def _one(dsn: str, query: str, *params: object) -> object:
    with psycopg.connect(dsn) as conn:
        return conn.execute(query, params).fetchone()[0]


def test_crash_between_reading_and_committing_maps_exactly_once(
    database_url: str, nats_server, tmp_path: Path
) -> None:
    file_id, job_id = uuid.uuid4(), uuid.uuid4()
    key = result_key(file_id, job_id)
    target = tmp_path / "storage" / "arm-ka" / key
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(_big_result(file_id, job_id), ensure_ascii=False))
    _seed(database_url, file_id, job_id, key)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OPENBAO__")},
        "DATABASE_URL": database_url,
        "NATS_URL": nats_server.url,
        "STORAGE_URL": f"file://{tmp_path / 'storage'}",
        "HTTP_PORT": str(free_port()),
        "MAPPING_PERIOD_SECONDS": "0.1",
        "LOG_JSON": "true",
        "DEBUG": "true",
    }

    first = _core(env)
    try:
        deadline = time.monotonic() + 60
        while not _mapping_holds_the_job(database_url, job_id):
            assert first.poll() is None, "arm-core exited"
            assert time.monotonic() < deadline, "mapping never started"
            time.sleep(0.01)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)

    assert _one(database_url, "SELECT count(*) FROM document") == 0
    assert _one(database_url, "SELECT count(*) FROM trial_balance_row") == 0
    assert _one(database_url, "SELECT mapped_at FROM recognition_job WHERE id = %s", job_id) is None
    assert (
        _one(database_url, "SELECT status FROM stored_file WHERE id = %s", file_id) == "PROCESSING"
    )

    second = _core({**env, "HTTP_PORT": str(free_port())})
    try:
        deadline = time.monotonic() + 90
        while (
            _one(database_url, "SELECT status FROM stored_file WHERE id = %s", file_id)
            != "RECOGNIZED"
        ):
            assert second.poll() is None, "arm-core exited"
            assert time.monotonic() < deadline, "never mapped after restart"
            time.sleep(0.1)
    finally:
        os.killpg(second.pid, signal.SIGTERM)
        second.wait(STOP_BOUND_SECONDS + 5)

    assert _one(database_url, "SELECT count(*) FROM document") == 1
    assert _one(database_url, "SELECT count(*) FROM trial_balance_row") == ROWS
