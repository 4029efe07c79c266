"""The request subject under generated messages, against a real worker, NATS and storage.

Every request the worker takes is answered as the worker's contract says: a valid one is
acked and gets its outcome, one that fails the schema but names its job is acked and answered
SCHEMA_MISMATCH, anything else is logged as unusable. Nothing raises out of the handler,
nothing hangs, and the worker still recognises a file afterwards.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
import structlog
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from arm_ka_devstack.nats_server import NatsServer
from recognition_contract import (
    MAX_MESSAGE_BYTES,
    NATS_MSG_ID,
    ContractError,
    FileType,
    ack_msg_id,
    parse_request,
    pipeline_for,
    result_msg_id,
)
from recognition_worker.fixtures import submit
from recognition_worker.testing import ResultCollector, request_payload
from recognition_worker.worker import Worker, readable_ids

pytestmark = pytest.mark.timeout(120)

GENERATED = settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    database=None,
    # The worker and the collector serve every example; each example names jobs of its own.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    # Shrinking would replay examples over NATS for long; the failing message is reported.
    phases=[Phase.explicit, Phase.generate],
)
ANSWER_SECONDS = 10.0

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


def _utc(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """A request as the core publishes it (either MAJOR), for a job of its own: tabular or
    image, in this service's bucket or another, due long ago or well ahead."""
    file_id = uuid4()
    file_type = draw(st.sampled_from(FileType))
    ahead = draw(st.booleans())
    offset = timedelta(seconds=draw(st.integers(120, 10**7)))
    deadline = datetime.now(UTC) + (offset if ahead else -offset)
    return {
        "schema_version": f"{draw(st.sampled_from((1, 2)))}.{draw(st.integers(0, 99))}",
        "job_id": str(uuid4()),
        "file_id": str(file_id),
        "pipeline": pipeline_for(file_type).value,
        "file_type": file_type.value,
        "original_name": draw(st.text(min_size=1, max_size=80)),
        "s3": {
            "bucket": draw(st.sampled_from(("arm-ka", "other-bucket"))),
            "key": f"uploads/{file_id}/" + draw(st.text(min_size=1, max_size=40)),
        },
        "reply_deadline": _utc(deadline),
        "attempt": draw(st.integers(1, 10**6)),
    }


fields = ("schema_version", "job_id", "file_id", "pipeline", "file_type", "original_name")
fields += ("s3", "reply_deadline", "attempt")


BROKEN = (
    "drop",
    "retype",
    "version",
    "uuid",
    "deadline",
    "attempt",
    "name",
    "truncate",
    "bytes",
    "json",
    "huge",
)


@st.composite
def messages(draw: st.DrawFn, how: str) -> bytes:
    """A valid request, or one broken in the way ``how`` names (or no request at all)."""
    payload = draw(requests())
    if how == "drop":
        del payload[draw(st.sampled_from(fields))]
    elif how == "retype":
        which = draw(st.sampled_from(fields))
        payload[which] = draw(json_values.filter(lambda v: type(v) is not type(payload[which])))
    elif how == "version":
        payload["schema_version"] = draw(
            st.sampled_from(("3.0", "0.9", "1", "2", "", "v2.0", "1.0.0", "10.1", "2.x"))
            | st.text(max_size=8)
        )
    elif how == "uuid":
        which = draw(st.sampled_from(("job_id", "file_id")))
        value = UUID(payload[which])
        payload[which] = draw(
            st.sampled_from((str(value).upper(), value.hex, f"{{{value}}}", str(value)[:-1]))
        )
    elif how == "deadline":
        moment = datetime.now(UTC) + timedelta(hours=1)
        payload["reply_deadline"] = draw(
            st.sampled_from(
                (
                    moment.replace(tzinfo=None).isoformat(),
                    moment.isoformat().replace("+00:00", "+03:00"),
                    "tomorrow",
                    "",
                    "9999-99-99T00:00:00Z",
                )
            )
        )
    elif how == "attempt":
        payload["attempt"] = draw(st.sampled_from((0, -1, 1.5, True, "1", None)))
    elif how == "name":
        payload["original_name"] = draw(st.sampled_from(("", "я" * 1025)))
    elif how == "truncate":
        data = json.dumps(payload).encode()
        return data[: draw(st.integers(0, len(data) - 1))]
    elif how == "bytes":
        return draw(st.binary(max_size=200))
    elif how == "json":
        return json.dumps(draw(json_values)).encode()
    elif how == "huge":
        payload["original_name"] = "x" * (MAX_MESSAGE_BYTES + 1)
    return json.dumps(payload, ensure_ascii=False).encode()


headers = st.none() | st.dictionaries(
    st.sampled_from((NATS_MSG_ID, "X-Trace", "Nats-Expected-Stream")),
    st.text(max_size=60),
    max_size=2,
)


def _expected_code(worker: Worker, payload: dict[str, Any]) -> str | None:
    """The outcome of a valid request whose source was never stored, as the worker defines."""
    if payload["pipeline"] != worker.recognizer.pipeline.value or payload["file_type"] not in {
        t.value for t in worker.recognizer.file_types
    }:
        return "UNSUPPORTED_FORMAT"
    deadline = datetime.fromisoformat(payload["reply_deadline"].replace("Z", "+00:00"))
    if deadline <= datetime.now(UTC):
        return "TIMEOUT"
    return "FILE_READ_ERROR"


@pytest.fixture
async def worker(nats_server: NatsServer, make_worker: Any) -> Worker:
    # A 2.0 service: it reads requests of both MAJORs.
    started: Worker = await make_worker(nats_server.url, contract_version="2.0")
    return started


async def _answers(collector: ResultCollector, job_id: UUID, before: int) -> list[Any]:
    answered = await collector.wait_for(job_id, before + 2, timeout=ANSWER_SECONDS)
    return answered[before:]


@pytest.mark.parametrize("how", ["valid", *BROKEN])
@given(data=st.data())
@GENERATED
async def test_every_request_is_answered_as_the_contract_says(
    worker: Worker, collector: ResultCollector, how: str, data: st.DataObject
) -> None:
    body = data.draw(messages(how))
    sent_headers = data.draw(headers) or {}
    requests_before = worker.stats.requests
    rejected_before = worker.stats.rejected
    try:
        payload = parse_request(body, majors=(1, 2))
    except ContractError:
        payload = None
    ids = readable_ids(body, sent_headers) if payload is None else None
    before = len(collector.for_job(ids[0])) if ids else 0
    with structlog.testing.capture_logs() as logs:
        await worker.receive(body, sent_headers)
    assert worker.stats.requests == requests_before + 1
    if payload is not None:
        event("valid")
        job_id = payload.job_id
        ack, outcome = await _answers(collector, job_id, 0)
        assert (ack.status, ack.msg_id) == ("processing", ack_msg_id(job_id, payload.attempt))
        assert outcome.status == "error"
        assert outcome.envelope.error is not None
        request = json.loads(body)
        assert outcome.envelope.error.code.value == _expected_code(worker, request)
        assert outcome.msg_id == result_msg_id(job_id, payload.attempt)
    elif ids is not None:
        event("refused, answered")
        job_id, file_id, attempt, _ = ids
        ack, outcome = await _answers(collector, job_id, before)
        assert ack.status == "processing"
        assert outcome.envelope.error is not None
        assert outcome.envelope.error.code.value == "SCHEMA_MISMATCH"
        assert outcome.envelope.file_id == file_id
        assert outcome.msg_id == result_msg_id(job_id, attempt)
        assert worker.stats.rejected == rejected_before + 1
    else:
        event("refused, logged")
        assert worker.stats.rejected == rejected_before + 1
        assert [e for e in logs if e["event"] == "request_unusable"]


async def test_the_worker_still_recognises_after_junk(
    worker: Worker, collector: ResultCollector
) -> None:
    junk = [b"", b"\x00", b"{}", b"[]", b"null", b'{"job_id": []}', b"{" * 10_000]
    for body in junk:
        await worker.receive(body, {})
    request = await submit(worker, collector, b"ok")
    _, outcome = await collector.wait_for(request["job_id"])
    assert outcome.status == "done"
    assert worker.stats.rejected == len(junk)


@pytest.mark.parametrize("which", ["schema_version", "pipeline", "job_id"])
async def test_an_escaped_lone_surrogate_is_refused_like_any_bad_request(
    worker: Worker, collector: ResultCollector, which: str
) -> None:
    payload = request_payload(bucket=worker.storage.bucket)
    payload[which] += "\ud800"
    # Escaped, as a publisher written in another language may send it: valid JSON all the same.
    with structlog.testing.capture_logs() as logs:
        await worker.receive(json.dumps(payload).encode(), {})
    # Text no UTF-8 can hold is refused before anything is read from it, the job id too:
    # there is no one to answer.
    assert worker.stats.rejected == 1
    assert [e for e in logs if e["event"] == "request_unusable"]
