"""The job ledger (bounded dedupe memory) and reading ids out of a request that failed the
schema: pure logic."""

from __future__ import annotations

import json
from uuid import uuid4

from recognition_contract import NATS_MSG_ID
from recognition_worker.dedupe import JobLedger, Outgoing
from recognition_worker.testing import request_payload
from recognition_worker.worker import readable_ids


def test_a_new_job_is_claimed_and_a_known_one_is_returned() -> None:
    ledger = JobLedger(capacity=3)
    job = uuid4()
    assert ledger.claim(job) is None
    entry = ledger.claim(job)
    assert entry is not None and entry.running
    ledger.finish(job, Outgoing(b"{}", f"result:{job}:1"))
    entry = ledger.claim(job)
    assert entry is not None and not entry.running
    assert entry.final == Outgoing(b"{}", f"result:{job}:1")


def test_the_oldest_finished_jobs_are_forgotten_first() -> None:
    ledger = JobLedger(capacity=2)
    jobs = [uuid4() for _ in range(4)]
    ledger.claim(jobs[0])  # still running: never forgotten
    for job in jobs[1:]:
        ledger.claim(job)
        ledger.finish(job, Outgoing(b"{}", str(job)))
    assert len(ledger) == 2
    running = ledger.claim(jobs[0])
    assert running is not None and running.running
    latest = ledger.claim(jobs[3])
    assert latest is not None and latest.final is not None
    assert ledger.claim(jobs[1]) is None  # forgotten, so it counts as new


def test_running_jobs_may_exceed_the_capacity() -> None:
    ledger = JobLedger(capacity=1)
    jobs = [uuid4() for _ in range(3)]
    for job in jobs:
        assert ledger.claim(job) is None
    assert len(ledger) == 3
    assert all(ledger.claim(job) is not None for job in jobs)


def test_ids_of_an_off_schema_request() -> None:
    payload = request_payload(attempt=4)
    del payload["s3"]
    ids = readable_ids(json.dumps(payload).encode(), {})
    assert ids is not None
    job_id, file_id, attempt, _ = ids
    assert (str(job_id), str(file_id), attempt) == (payload["job_id"], payload["file_id"], 4)


def test_attempt_falls_back_to_the_request_msg_id_then_to_one() -> None:
    payload = request_payload()
    payload["attempt"] = "two"
    body = json.dumps(payload).encode()
    ids = readable_ids(body, {NATS_MSG_ID: f"{payload['job_id']}:2"})
    assert ids is not None and ids[2] == 2
    ids = readable_ids(body, {NATS_MSG_ID: f"{uuid4()}:2"})  # another job's id
    assert ids is not None and ids[2] == 1


def test_no_ids_no_answer() -> None:
    assert readable_ids(b"not json", {}) is None
    assert readable_ids(b'{"job_id": "x", "file_id": "y"}', {}) is None
    assert readable_ids(json.dumps({"job_id": str(uuid4())}).encode(), {}) is None
