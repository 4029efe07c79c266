"""tabular-parser end to end: requests on a real nats-server, sources and results in real
storage, recognition in the sandboxed child with the real extraction library."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import psutil
import pytest
import structlog

from arm_ka_devstack.nats_server import NatsServer
from recognition_contract import (
    ErrorCode,
    ack_msg_id,
    parse_result_file,
    result_key,
    result_msg_id,
)
from recognition_worker.testing import (
    ResultCollector,
    outcome_after_outage,
    request_payload,
    wait_logged,
)
from tabular_parser import testing as books

pytestmark = pytest.mark.timeout(90)

SMALL_OSV = books.xlsx([books.general_osv(accounts=6, subaccounts=2)])


def outcome_code(received: Any) -> str | None:
    return received.envelope.error.code.value if received.envelope.error else None


@pytest.mark.parametrize("storage_settings", ["local", "s3"], indirect=True)
async def test_trial_balance_is_acked_recognised_and_its_result_written_before_the_envelope(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url)
    present_at_publish: list[bool] = []

    async def probe(received: Any) -> None:
        if received.envelope.result_s3 is not None:
            present_at_publish.append(await worker.storage.exists(received.envelope.result_s3.key))

    collector.probe = probe
    request = await send(worker, collector, SMALL_OSV, original_name="ОСВ 1 кв.xlsx")
    ack, outcome = await collector.wait_for(request["job_id"], timeout=20)
    assert (ack.status, ack.msg_id) == ("processing", ack_msg_id(request["job_id"], 1))
    assert ack.envelope.service.name == "tabular-parser"
    assert (outcome.status, outcome.msg_id) == ("done", result_msg_id(request["job_id"], 1))
    assert present_at_publish == [True]
    key = result_key(request["file_id"], request["job_id"])
    assert outcome.envelope.result_s3 is not None
    assert outcome.envelope.result_s3.key == key
    assert outcome.envelope.metrics["sheets"] == 1
    assert outcome.envelope.metrics["rows"] == len(books.trial_balance_lines(6, 2))
    result = parse_result_file(await worker.storage.get(key), majors=(2,))
    assert result.group_schema == "BY-50-2011"
    assert result.documents[0].rows[0].code == "01"
    # The sheet as read, kept beside the result for the analyst's view of the source.
    prefix = outcome.envelope.raw_s3_key
    assert prefix == f"raw/{request['file_id']}/{request['job_id']}/"
    index = json.loads(await worker.storage.get(prefix + "sheets.json"))
    [sheet] = index["sheets"]
    chunk = json.loads(await worker.storage.get(prefix + sheet["chunks"][0]["name"]))
    row = next(cells for number, cells in chunk["rows"] if "01" in cells)
    assert "Основные средства" in " ".join(row)


async def test_contract_1_0_mode_answers_in_1_0_with_text_warnings(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url, contract_version="1.0", workbook_max_rows=100)
    book = books.xlsx([books.general_osv(), books.long_sheet(300)])
    request = await send(worker, collector, book)
    ack, outcome = await collector.wait_for(request["job_id"], timeout=20)
    assert ack.payload["schema_version"] == "1.0"
    assert outcome.status == "needs_check"
    assert outcome.payload["schema_version"] == "1.0"
    assert outcome.payload["result_schema_version"] == "1.0"
    texts = outcome.payload["metrics"]["warnings"]
    assert any("SHEET_TRUNCATED" in t and "Длинный" in t for t in texts)
    assert outcome.envelope.result_s3 is not None
    raw = await worker.storage.get(outcome.envelope.result_s3.key)
    parse_result_file(raw, majors=(1,))
    assert all(isinstance(w, str) for w in json.loads(raw)["warnings"])


@pytest.mark.parametrize("storage_settings", ["local", "s3"], indirect=True)
async def test_missing_source_is_acked_before_storage_then_file_read_error(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url)
    request = await send(worker, collector, None)
    ack, outcome = await collector.wait_for(request["job_id"])
    assert (ack.status, outcome.status, outcome_code(outcome)) == (
        "processing",
        "error",
        "FILE_READ_ERROR",
    )


@pytest.mark.parametrize("defect", ["no-s3-key", "unknown-file-type", "major-3"])
async def test_request_off_the_schema_is_acked_and_answered_schema_mismatch(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, defect: str
) -> None:
    worker = await parser(nats_server.url)
    payload = request_payload(bucket=worker.storage.bucket)
    if defect == "no-s3-key":
        del payload["s3"]["key"]
    elif defect == "unknown-file-type":
        payload["file_type"] = "ODS"
    else:
        payload["schema_version"] = "3.0"
    await collector.publish(worker.subject, payload)
    ack, outcome = await collector.wait_for(payload["job_id"])
    assert (ack.status, outcome_code(outcome)) == ("processing", "SCHEMA_MISMATCH")
    assert worker.stats.started == 0


async def test_repeated_request_is_acked_again_not_processed_twice(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url)
    request = await send(worker, collector, SMALL_OSV)
    await collector.publish(worker.subject, request)
    received = await collector.wait_for(request["job_id"], count=3, timeout=20)
    if [r.status for r in received] == ["processing", "done", "processing"]:
        # The repeat came after the job had finished: its outcome is sent again too.
        received = await collector.wait_for(request["job_id"], count=4, timeout=20)
    assert [r.status for r in received] in (
        ["processing", "processing", "done"],  # the repeat came while the job ran
        ["processing", "done", "processing", "done"],
    )
    assert {r.msg_id for r in received if r.status == "done"} == {
        result_msg_id(request["job_id"], 1)
    }
    assert worker.stats.started == 1


async def test_request_past_its_deadline_is_not_started(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url)
    request = await send(worker, collector, SMALL_OSV, deadline_in=-5)
    ack, outcome = await collector.wait_for(request["job_id"])
    assert (ack.status, outcome_code(outcome)) == ("processing", "TIMEOUT")
    assert worker.stats.started == 0


async def test_result_is_published_after_a_nats_outage(
    nats_server_factory: Any, parser: Any, subjects: dict[str, str], send: Any
) -> None:
    server = nats_server_factory()
    worker = await parser(server.url, reconnect_wait=0.5, worker_concurrency=1)
    collector = ResultCollector()
    await collector.start(server.url, subjects["nats_result_subject"])
    # Half a second or so of recognition each, one at a time: the last of them is still
    # waiting or running seconds after all are acked, when NATS has long gone away.
    book = books.xlsx([books.general_osv(accounts=20, subaccounts=1000)], constant_memory=True)
    try:
        with structlog.testing.capture_logs() as logs:
            backlog = [await send(worker, collector, book, deadline_in=60) for _ in range(4)]
            for queued in backlog:
                await collector.wait_for(queued["job_id"], count=1)
            server.stop()
            request = backlog[-1]
            outcome_id = result_msg_id(request["job_id"], 1)
            await wait_logged(logs, "publish_failed", outcome_id, timeout=30)
            server.start()
            await wait_logged(logs, "published", outcome_id)
        outcome = await outcome_after_outage(collector, worker.subject, request)
        assert (outcome.status, outcome.msg_id) == ("done", outcome_id)
        assert worker.stats.started == len(backlog)
    finally:
        await collector.close()


HOSTILE = [
    ("encrypted", lambda: books.encrypted_xlsx(SMALL_OSV, "пароль"), "PASSWORD_PROTECTED"),
    ("zip-bomb", lambda: books.zip_bomb_xlsx(SMALL_OSV, 64 * 1024**2), "UNREADABLE"),
    ("pdf-as-xlsx", lambda: b"%PDF-1.4 not a workbook", "INVALID_FORMAT"),
    ("truncated", lambda: SMALL_OSV[: len(SMALL_OSV) // 3], "UNREADABLE"),
    ("sparse", books.sparse_xlsx, "UNREADABLE"),
    ("empty", lambda: books.xlsx([books.Sheet("Лист1", rows=[])]), "INVALID_DOCUMENT"),
    ("no-table", lambda: books.xlsx([books.text_sheet()]), "RECOGNITION_FAILED"),
]


async def test_hostile_files_get_error_codes_and_the_service_keeps_working(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url)
    requests = [(name, code, await send(worker, collector, make())) for name, make, code in HOSTILE]
    for name, code, request in requests:
        _, outcome = await collector.wait_for(request["job_id"], timeout=30)
        assert (name, outcome.status, outcome_code(outcome)) == (name, "error", code)
        assert outcome.envelope.error is not None and outcome.envelope.error.message
    request = await send(worker, collector, SMALL_OSV)
    _, outcome = await collector.wait_for(request["job_id"], timeout=20)
    assert outcome.status == "done"


async def test_a_workbook_over_the_job_timeout_is_killed(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url, job_timeout_seconds=0.05)
    book = books.xlsx([books.general_osv(accounts=20, subaccounts=400)], constant_memory=True)
    request = await send(worker, collector, book)
    _, outcome = await collector.wait_for(request["job_id"], timeout=20)
    assert outcome_code(outcome) == ErrorCode.TIMEOUT.value


async def test_recognitions_run_at_most_worker_concurrency_at_once(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url, worker_concurrency=2)
    book = books.xlsx([books.general_osv(accounts=20, subaccounts=100)], constant_memory=True)
    # The sandbox's fork server, a child of this process; its children are the recognitions.
    (server,) = [
        process
        for process in psutil.Process().children()
        if "recognition_worker.sandbox" in " ".join(process.cmdline())
    ]
    counts: list[int] = []
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            counts.append(len(server.children()))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        requests = [await send(worker, collector, book) for _ in range(6)]
        outcomes = [await collector.wait_for(r["job_id"], timeout=40) for r in requests]
    finally:
        done.set()
        sampler.join()
    assert [o.status for _, o in outcomes] == ["done"] * 6
    assert 1 <= max(counts) <= 2
