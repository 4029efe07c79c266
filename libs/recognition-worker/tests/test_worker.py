"""The worker against a real nats-server and real storage: ack first, results before their
envelopes, schema mismatches, repeats, deadlines, limits, outages and shutdown."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
import structlog

from arm_ka_devstack.nats_server import NatsServer
from recognition_contract import (
    ErrorCode,
    Locator,
    ack_msg_id,
    parse_result_file,
    raw_prefix,
    result_key,
    result_msg_id,
)
from recognition_worker import stop_bound
from recognition_worker.fixtures import submit
from recognition_worker.sandbox import REAP_SECONDS
from recognition_worker.testing import (
    ResultCollector,
    eventually,
    outcome_after_outage,
    request_payload,
    wait_logged,
)

pytestmark = pytest.mark.timeout(60)


def codes(received: list[Any]) -> list[tuple[str, str | None]]:
    return [(r.status, r.envelope.error.code.value if r.envelope.error else None) for r in received]


def held(tmp_path: Path, name: str = "release") -> tuple[bytes, Path]:
    """A source whose recognition runs until the test creates the returned path."""
    gate = tmp_path / name
    return f"until:{gate}".encode(), gate


@pytest.mark.parametrize("storage_settings", ["local", "s3"], indirect=True)
async def test_missing_source_is_acked_first_then_file_read_error(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url)
    request = await submit(worker, collector, None)
    ack, outcome = await collector.wait_for(request["job_id"])
    assert ack.status == "processing"
    assert ack.msg_id == ack_msg_id(request["job_id"], 1)
    assert ack.envelope.service.name == "tabular-parser"
    assert ack.envelope.service.version == "0.0.1-test"
    assert outcome.status == "error"
    assert outcome.envelope.error is not None
    assert outcome.envelope.error.code is ErrorCode.FILE_READ_ERROR
    assert outcome.msg_id == result_msg_id(request["job_id"], 1)


@pytest.mark.parametrize(("files", "named"), [(0, None), (1, "raw-0.json"), (2, "")])
async def test_raw_output_is_stored_before_the_envelope_and_named_in_raw_s3_key(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector, files: int, named: str
) -> None:
    worker = await make_worker(nats_server.url)
    stored_at_publish: list[bool] = []

    async def probe(received: Any) -> None:
        if received.envelope.raw_s3_key is not None:
            prefix = raw_prefix(received.envelope.file_id, received.envelope.job_id)
            keys = [prefix + f"raw-{k}.json" for k in range(files)]
            stored_at_publish.extend([await worker.storage.exists(k) for k in keys])

    collector.probe = probe
    request = await submit(worker, collector, f"raw:{files}".encode())
    _, outcome = await collector.wait_for(request["job_id"])
    assert outcome.status == "done"
    prefix = raw_prefix(request["file_id"], request["job_id"])
    if named is None:
        assert outcome.envelope.raw_s3_key is None
        assert "raw_s3_key" not in outcome.payload
        return
    # One file is named by its key, several by their common prefix.
    assert outcome.payload["raw_s3_key"] == prefix + named
    assert stored_at_publish == [True] * files
    for k in range(files):
        assert await worker.storage.get(prefix + f"raw-{k}.json") == f'{{"file": {k}}}'.encode()


@pytest.mark.parametrize("storage_settings", ["local", "s3"], indirect=True)
async def test_result_file_is_written_before_its_envelope_and_matches_the_schema(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url)
    seen_at_publish: dict[str, bool] = {}

    async def probe(received: Any) -> None:
        if received.envelope.result_s3 is not None:
            key = received.envelope.result_s3.key
            seen_at_publish[key] = await worker.storage.exists(key)

    collector.probe = probe
    request = await submit(worker, collector, b"ok", attempt=2, original_name="ОСВ.xlsx")
    ack, outcome = await collector.wait_for(request["job_id"])
    assert (ack.status, outcome.status) == ("processing", "done")
    assert ack.msg_id == ack_msg_id(request["job_id"], 2)
    assert outcome.msg_id == result_msg_id(request["job_id"], 2)
    key = result_key(request["file_id"], request["job_id"])
    assert outcome.envelope.result_s3 is not None
    assert outcome.envelope.result_s3.key == key
    assert outcome.envelope.result_s3.bucket == worker.storage.bucket
    assert outcome.envelope.schema_version == "2.0"
    assert outcome.envelope.result_schema_version == "2.0"
    assert outcome.envelope.metrics["documents"] == 1
    assert outcome.envelope.metrics["rows"] == 1
    assert outcome.envelope.metrics["sheets"] == 1
    assert "duration_ms" in outcome.envelope.metrics
    assert "group_schema" not in outcome.payload
    assert seen_at_publish == {key: True}
    result = parse_result_file(await worker.storage.get(key))
    assert str(result.version) == "2.0"
    assert str(result.job_id) == request["job_id"]
    assert str(result.file_id) == request["file_id"]
    assert result.group_schema == "BY-50-2011"
    assert result.documents[0].locator.sheet == "ОСВ.xlsx"


async def test_contract_1_0_mode_writes_1_0_with_text_warnings(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url, contract_version="1.0")
    request = await submit(worker, collector, b"needs_check")
    ack, outcome = await collector.wait_for(request["job_id"])
    assert ack.payload["schema_version"] == "1.0"
    assert outcome.status == "needs_check"
    assert outcome.payload["schema_version"] == "1.0"
    assert outcome.payload["result_schema_version"] == "1.0"
    file_note = "sheet=ОСВ row=5 FILE_NOTE: сальдо не сходится"
    assert outcome.payload["metrics"]["warnings"] == [file_note]
    assert outcome.envelope.result_s3 is not None
    data = await worker.storage.get(outcome.envelope.result_s3.key)
    payload = json.loads(data)
    parse_result_file(data, majors=(1,))
    assert payload["warnings"] == [file_note]
    assert payload["documents"][0]["warnings"] == [
        "sheet=ОСВ row=5 BALANCE_MISMATCH: сальдо не сходится"
    ]
    assert "statements_version" not in payload["service"]


async def test_contract_2_0_mode_keeps_structured_warnings(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url)
    request = await submit(worker, collector, b"needs_check", schema_version="2.0")
    _, outcome = await collector.wait_for(request["job_id"])
    assert outcome.status == "needs_check"
    assert outcome.payload["metrics"]["warnings"][0]["code"] == "FILE_NOTE"
    assert outcome.envelope.result_s3 is not None
    data = await worker.storage.get(outcome.envelope.result_s3.key)
    result = parse_result_file(data, majors=(2,))
    assert result.documents[0].warnings[0].code == "BALANCE_MISMATCH"
    assert result.documents[0].warnings[0].locator == Locator(sheet="ОСВ", row=5)


@pytest.mark.parametrize(
    ("contract_version", "request_version"), [("1.0", "2.0"), ("2.0", "3.0"), ("1.0", "3.1")]
)
async def test_request_of_unknown_major_is_acked_then_schema_mismatch(
    nats_server: NatsServer,
    make_worker: Any,
    collector: ResultCollector,
    contract_version: str,
    request_version: str,
) -> None:
    worker = await make_worker(nats_server.url, contract_version=contract_version)
    request = await submit(worker, collector, b"ok", schema_version=request_version)
    ack, outcome = await collector.wait_for(request["job_id"])
    assert codes([ack, outcome]) == [("processing", None), ("error", "SCHEMA_MISMATCH")]
    assert outcome.payload["schema_version"] == contract_version
    assert outcome.envelope.error is not None
    assert request_version in outcome.envelope.error.message
    assert worker.stats.started == 0


async def test_a_2_0_service_reads_1_0_requests(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url, contract_version="2.0")
    request = await submit(worker, collector, b"ok", schema_version="1.0")
    _, outcome = await collector.wait_for(request["job_id"])
    assert outcome.status == "done"
    assert outcome.payload["schema_version"] == "2.0"


@pytest.mark.parametrize("defect", ["no-s3-key", "unknown-file-type", "attempt-zero"])
async def test_off_schema_request_is_answered_schema_mismatch(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector, defect: str
) -> None:
    worker = await make_worker(nats_server.url)
    payload = request_payload(bucket=worker.storage.bucket, attempt=3)
    if defect == "no-s3-key":
        del payload["s3"]["key"]
    elif defect == "unknown-file-type":
        payload["file_type"] = "DOCX"
    else:
        payload["attempt"] = 0
    # The request's Nats-Msg-Id names the attempt when the body does not.
    await collector.publish(worker.subject, payload, msg_id=f"{payload['job_id']}:3")
    ack, outcome = await collector.wait_for(payload["job_id"])
    assert codes([ack, outcome]) == [("processing", None), ("error", "SCHEMA_MISMATCH")]
    assert outcome.msg_id == result_msg_id(payload["job_id"], 3)
    assert UUID(outcome.payload["file_id"]) == UUID(payload["file_id"])
    assert worker.stats.rejected == 1


async def test_unreadable_requests_are_logged_and_the_worker_keeps_running(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url)
    await collector.publish(worker.subject, b"\xff not json")
    await collector.publish(worker.subject, b'{"schema_version": "1.0", "job_id": "nope"}')
    await collector.publish(worker.subject, b"[1, 2, 3]")
    request = await submit(worker, collector, b"ok")
    _, outcome = await collector.wait_for(request["job_id"])
    assert outcome.status == "done"
    # Messages are handled side by side: the good request may finish before the last bad
    # one is turned away.
    await eventually(lambda: worker.stats.rejected == 3, "three requests rejected")
    assert worker.stats.rejected == 3
    assert [r.envelope.job_id for r in collector.received] == [UUID(request["job_id"])] * 2


async def test_request_of_another_pipeline_is_unsupported_format(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url)
    request = await submit(worker, collector, b"ok", pipeline="image", file_type="PDF")
    _, outcome = await collector.wait_for(request["job_id"])
    assert codes([outcome]) == [("error", "UNSUPPORTED_FORMAT")]
    assert worker.stats.started == 0


async def test_repeated_request_is_acked_again_not_processed_twice(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector, tmp_path: Path
) -> None:
    worker = await make_worker(nats_server.url)
    source, gate = held(tmp_path)
    request = await submit(worker, collector, source)
    await collector.wait_for(request["job_id"], count=1)
    # The core republishes the same request (same Nats-Msg-Id) while the job runs ...
    await collector.publish(worker.subject, request)
    await collector.wait_for(request["job_id"], count=2)
    gate.touch()
    received = await collector.wait_for(request["job_id"], count=3)
    assert codes(received) == [("processing", None), ("processing", None), ("done", None)]
    # ... and once more after it has finished: ack again, the same outcome again.
    await collector.publish(worker.subject, request)
    received = await collector.wait_for(request["job_id"], count=5)
    assert [r.status for r in received[3:]] == ["processing", "done"]
    assert received[4].msg_id == received[2].msg_id == result_msg_id(request["job_id"], 1)
    assert received[4].payload == received[2].payload
    assert worker.stats.started == 1
    assert worker.stats.repeated == 2


async def test_request_past_its_deadline_is_not_started(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url)
    request = await submit(worker, collector, b"ok", deadline_in=-1)
    ack, outcome = await collector.wait_for(request["job_id"])
    assert codes([ack, outcome]) == [("processing", None), ("error", "TIMEOUT")]
    assert worker.stats.started == 0
    assert worker.stats.expired == 1
    assert not await worker.storage.exists(result_key(request["file_id"], request["job_id"]))


async def test_result_is_published_after_a_nats_outage(
    nats_server_factory: Any, make_worker: Any, subjects: dict[str, str], tmp_path: Path
) -> None:
    server = nats_server_factory()
    worker = await make_worker(server.url, reconnect_wait=0.5)
    collector = ResultCollector()
    await collector.start(server.url, subjects["nats_result_subject"])
    outcome_id = ""
    source, gate = held(tmp_path)
    try:
        with structlog.testing.capture_logs() as logs:
            request = await submit(worker, collector, source, deadline_in=20)
            outcome_id = result_msg_id(request["job_id"], 1)
            await collector.wait_for(request["job_id"], count=1)
            server.stop()
            gate.touch()
            # The result is ready while NATS is down: publishing fails and is retried.
            await wait_logged(logs, "publish_failed", outcome_id)
            server.start()
            await wait_logged(logs, "published", outcome_id)
        outcome = await outcome_after_outage(collector, worker.subject, request)
        assert (outcome.status, outcome.msg_id) == ("done", outcome_id)
        assert worker.stats.started == 1
    finally:
        await collector.close()


async def test_hanging_recognition_is_killed_at_the_job_timeout(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url, job_timeout_seconds=2.0)
    request = await submit(worker, collector, b"hang")
    _, outcome = await collector.wait_for(request["job_id"])
    assert codes([outcome]) == [("error", "TIMEOUT")]
    assert outcome.envelope.error is not None
    assert "did not finish within 2 s" in outcome.envelope.error.message
    assert forkserver_children() == []
    # The slot is free again.
    request = await submit(worker, collector, b"ok")
    _, outcome = await collector.wait_for(request["job_id"])
    assert outcome.status == "done"


@pytest.mark.parametrize(
    ("source", "code", "text"),
    [
        (b"crash", "UNREADABLE", "crashed (SIGABRT)"),
        (b"alloc", "UNREADABLE", "more than the 512 MiB"),
        (b"raise", "UNKNOWN_ERROR", "KeyError"),
        (b"off-schema", "UNKNOWN_ERROR", "do not match the contract"),
        (b"empty", "RECOGNITION_FAILED", "no document"),
        ("error:INVALID_DOCUMENT:Пустая книга".encode(), "INVALID_DOCUMENT", "Пустая книга"),
    ],
)
async def test_recognition_failures_become_error_codes(
    nats_server: NatsServer,
    make_worker: Any,
    collector: ResultCollector,
    source: bytes,
    code: str,
    text: str,
) -> None:
    worker = await make_worker(nats_server.url, job_memory_bytes=512 * 1024**2)
    request = await submit(worker, collector, source)
    _, outcome = await collector.wait_for(request["job_id"], timeout=20)
    assert codes([outcome]) == [("error", code)]
    assert outcome.envelope.error is not None
    assert text in outcome.envelope.error.message
    assert not await worker.storage.exists(result_key(request["file_id"], request["job_id"]))


@pytest.mark.parametrize("storage_settings", ["local", "s3"], indirect=True)
async def test_source_over_the_size_cap_is_unreadable(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url, max_source_bytes=1000)
    request = await submit(worker, collector, b"ok" + b" " * 2000)
    _, outcome = await collector.wait_for(request["job_id"])
    assert codes([outcome]) == [("error", "UNREADABLE")]
    assert outcome.envelope.error is not None
    assert "1000 bytes" in outcome.envelope.error.message


async def test_source_in_a_foreign_bucket_is_a_file_read_error(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url)
    payload = request_payload(bucket="someone-elses")
    await collector.publish(worker.subject, payload)
    _, outcome = await collector.wait_for(payload["job_id"])
    assert codes([outcome]) == [("error", "FILE_READ_ERROR")]


async def test_concurrency_is_bounded_and_acks_do_not_wait_for_slots(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector, tmp_path: Path
) -> None:
    worker = await make_worker(nats_server.url, worker_concurrency=2)
    server = forkserver()
    counts: list[int] = []
    sampled = threading.Event()

    def sample() -> None:
        while not sampled.is_set():
            counts.append(len(server.children()))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        source, gate = held(tmp_path)
        requests = [await submit(worker, collector, source) for _ in range(4)]
        # No job can end before the gate opens, so every ack came while both slots were held.
        for request in requests:
            await collector.wait_for(request["job_id"], count=1)
        await eventually(lambda: len(server.children()) == 2, "two recognitions running")
        assert worker.stats.started == 2
        gate.touch()
        finished = [await collector.wait_for(r["job_id"], timeout=20) for r in requests]
    finally:
        sampled.set()
        sampler.join()
    assert all(outcome.status == "done" for _, outcome in finished)
    assert worker.stats.started == 4
    assert max(counts) == 2


async def test_graceful_stop_lets_a_running_job_finish_and_takes_no_new_requests(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector, tmp_path: Path
) -> None:
    worker = await make_worker(nats_server.url)
    source, gate = held(tmp_path)
    running = await submit(worker, collector, source)
    await collector.wait_for(running["job_id"], count=1)
    stopping = asyncio.create_task(worker.stop(grace=60))
    # Drained: the server has no subscription of this worker any more.
    await eventually(lambda: worker.stopping, "the subscription drained")
    late = await submit(worker, collector, b"ok")
    gate.touch()
    await stopping
    assert codes(collector.for_job(running["job_id"])) == [("processing", None), ("done", None)]
    assert worker.stats.requests == 1
    assert worker.stats.abandoned == 0
    assert collector.for_job(late["job_id"]) == []


async def test_jobs_still_running_after_the_grace_period_are_abandoned_unanswered(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector, tmp_path: Path
) -> None:
    worker = await make_worker(nats_server.url, worker_concurrency=1)
    source, _ = held(tmp_path)
    running = await submit(worker, collector, source)
    waiting = await submit(worker, collector, source, attempt=2)
    await collector.wait_for(waiting["job_id"], count=1)
    await eventually(lambda: bool(forkserver().children()), "the recognition running")
    with structlog.testing.capture_logs() as logs:
        await worker.stop(grace=0.3)
    # Acked, so the core does not publish them again: their reply deadline recovers them.
    assert codes(collector.for_job(running["job_id"])) == [("processing", None)]
    assert codes(collector.for_job(waiting["job_id"])) == [("processing", None)]
    abandoned = [e for e in logs if e["event"] == "job_abandoned"]
    assert sorted((e["job_id"], e["file_id"], e["attempt"]) for e in abandoned) == sorted(
        (r["job_id"], r["file_id"], r["attempt"]) for r in (running, waiting)
    )
    assert worker.stats.abandoned == 2
    assert forkserver_children() == []


async def test_a_stop_while_nats_is_away_still_ends_within_its_bound(
    nats_server_factory: Any, make_worker: Any, tmp_path: Path
) -> None:
    server = nats_server_factory()
    worker = await make_worker(server.url)
    collector = ResultCollector()
    await collector.start(server.url, worker.settings.subjects.result)
    try:
        source, _ = held(tmp_path)
        request = await submit(worker, collector, source)
        await collector.wait_for(request["job_id"], count=1)
    finally:
        await collector.close()
    server.stop()
    await eventually(lambda: not worker.nats.is_connected, "the worker disconnected")
    grace = 0.5
    with structlog.testing.capture_logs() as logs:
        await asyncio.wait_for(worker.stop(grace=grace), stop_bound(grace))
    assert [e["job_id"] for e in logs if e["event"] == "job_abandoned"] == [request["job_id"]]
    assert forkserver_children() == []


def forkserver() -> Any:
    """The sandbox's fork server, a child of this process; its children are the
    recognitions."""
    import psutil

    (server,) = [
        process
        for process in psutil.Process().children()
        if "recognition_worker.sandbox" in " ".join(process.cmdline())
    ]
    return server


def forkserver_children() -> list[int]:
    """Live children of the sandbox's fork server, i.e. recognitions still running (it reaps
    the dead)."""
    server = forkserver()
    # A killed child's exit is reported once it is reaped, so this only covers the report
    # racing the test.
    deadline = time.monotonic() + REAP_SECONDS
    while True:
        children = [c.pid for c in server.children()]
        if not children or time.monotonic() > deadline:
            return children
        time.sleep(0.05)


async def test_every_log_line_of_a_job_names_it(
    nats_server: NatsServer, make_worker: Any, collector: ResultCollector
) -> None:
    worker = await make_worker(nats_server.url)
    with structlog.testing.capture_logs(
        processors=[structlog.contextvars.merge_contextvars]
    ) as logs:
        request = await submit(worker, collector, b"needs_check")
        await collector.wait_for(request["job_id"])
    job_lines = [e for e in logs if e["event"] != "nats_connected"]
    assert {e["event"] for e in job_lines} >= {
        "request_received",
        "source_read",
        "result_written",
        "job_recognised",
        "published",
    }
    for event in job_lines:
        assert event["job_id"] == request["job_id"], event
        assert event["file_id"] == request["file_id"], event
        assert event["attempt"] == 1, event
