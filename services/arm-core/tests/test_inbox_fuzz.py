"""The result subject under generated messages.

Whatever arrives, ``command_from_message`` either makes a typed command or refuses the message
with ``UnusableMessage``; and the inbox of a real core (PostgreSQL behind it) never raises and
counts one outcome for every message, so nothing a service sends can get lost without a trace.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, event, given, settings
from hypothesis import strategies as st

from arm_core.exchange.commands import AckJob, ApplyResult
from arm_core.exchange.wire import UnusableMessage, command_from_message
from arm_core.runtime import Runtime, running
from arm_core.testing import insert_file_with_job, job_row
from recognition_contract import (
    MAX_MESSAGE_BYTES,
    NATS_MSG_ID,
    BBox,
    ErrorCode,
    ErrorInfo,
    Locator,
    ResultEnvelope,
    S3Ref,
    ServiceInfo,
    Severity,
    Status,
    Warning,
    dump_envelope,
    envelope_payload,
)

# Bounded and reproducible: the same examples on every run, no example database on disk.
FUZZ = settings(max_examples=80, deadline=None, derandomize=True, database=None)
THROUGH_THE_INBOX = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    # Shrinking replays examples against the database for minutes; the failing message is
    # in the assertion anyway.
    phases=[Phase.explicit, Phase.generate],
    # One core serves every example; each example makes its own job.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Text as services send it: Cyrillic and controls included, but not what PostgreSQL cannot
# hold (NUL, unpaired surrogates), which the core refuses at the boundary (tested apart).
TEXT = st.characters(exclude_categories=["Cs"], exclude_characters=["\x00"])

names = st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)
buckets = st.from_regex(r"[a-z0-9][a-z0-9.-]{1,20}[a-z0-9]", fullmatch=True)
minor_versions = st.integers(0, 99)


def json_values(alphabet: st.SearchStrategy[str] = TEXT) -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(alphabet, max_size=30),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(alphabet, max_size=10), children, max_size=4)
        ),
        max_leaves=12,
    )


@st.composite
def locators(draw: st.DrawFn, alphabet: st.SearchStrategy[str]) -> Locator:
    if draw(st.booleans()):
        row = draw(st.none() | st.integers(1, 10**6))
        return Locator(
            sheet=draw(st.text(alphabet, min_size=1, max_size=40)),
            row=row,
            row_end=draw(st.none() | st.integers(row, 10**6)) if row else None,
            column=draw(st.none() | st.from_regex(r"[A-Z]{1,3}", fullmatch=True)),
        )
    page = draw(st.integers(1, 1000))
    unit = st.floats(0, 1)
    box = draw(st.none() | st.builds(BBox, unit, unit, unit, unit))
    return Locator(page=page, page_end=draw(st.none() | st.integers(page, 1000)), bbox=box)


@st.composite
def envelopes(
    draw: st.DrawFn,
    job_id: uuid.UUID | None = None,
    file_id: uuid.UUID | None = None,
    alphabet: st.SearchStrategy[str] = TEXT,
) -> tuple[bytes, ResultEnvelope]:
    """A valid envelope of either MAJOR and any MINOR, as a service would publish it."""
    texts = st.text(alphabet, min_size=1, max_size=40)
    keys = st.text(alphabet, min_size=1, max_size=120)
    warnings = st.builds(
        Warning,
        code=st.from_regex(r"[A-Z][A-Z0-9_]{0,20}", fullmatch=True),
        severity=st.sampled_from(Severity),
        message=texts,
        locator=st.none() | locators(alphabet),
    )
    counters = st.fixed_dictionaries(
        {},
        optional={
            "duration_ms": st.integers(0, 10**9),
            "documents": st.integers(0, 1000),
            "rows": st.integers(0, 10**6),
            "sheets": st.integers(0, 100),
            "pages": st.integers(0, 1000),
            # Counters a later MINOR adds are kept as they come.
            "ocr_engine": json_values(alphabet),
        },
    )
    major = draw(st.sampled_from((1, 2)))
    version = f"{major}.{draw(minor_versions)}"
    status = draw(st.sampled_from(Status))
    finished = status in (Status.DONE, Status.NEEDS_CHECK)
    envelope = ResultEnvelope(
        schema_version=version,
        job_id=job_id or draw(st.uuids()),
        file_id=file_id or draw(st.uuids()),
        status=status,
        service=ServiceInfo(
            name=draw(names),
            version=draw(texts),
            statements_version=draw(st.none() | texts) if major == 2 else None,
        ),
        result_s3=S3Ref(bucket=draw(buckets), key=draw(keys)) if finished else None,
        result_schema_version=f"{major}.{draw(minor_versions)}" if finished else None,
        error=(
            ErrorInfo(code=draw(st.sampled_from(ErrorCode)), message=draw(texts))
            if status == Status.ERROR
            else None
        ),
        raw_s3_key=draw(st.none() | keys) if status != Status.PROCESSING else None,
        metrics=draw(counters) if status != Status.PROCESSING else {},
        warnings=tuple(draw(st.lists(warnings, max_size=3))) if finished else (),
    )
    return dump_envelope(envelope, version), envelope


headers = st.dictionaries(
    st.text(TEXT, min_size=1, max_size=20), st.text(TEXT, max_size=80), max_size=4
)


@given(sent=envelopes(), extra=headers, msg_id=st.none() | st.text(TEXT, max_size=80))
@FUZZ
def test_a_valid_envelope_becomes_its_command(
    sent: tuple[bytes, ResultEnvelope], extra: dict[str, str], msg_id: str | None
) -> None:
    data, envelope = sent
    sent_headers = {**extra, NATS_MSG_ID: msg_id} if msg_id is not None else extra
    command = command_from_message(data, sent_headers)
    assert (command.job_id, command.file_id) == (envelope.job_id, envelope.file_id)
    assert command.msg_id == sent_headers.get(NATS_MSG_ID)
    if envelope.status == Status.PROCESSING:
        assert isinstance(command, AckJob)
    else:
        assert isinstance(command, ApplyResult)
        assert command.status == envelope.status.value
        assert command.schema_version == envelope.schema_version
        assert (command.error_code is None) == (envelope.error is None)


def _refused(data: bytes, sent_headers: dict[str, str] | None = None) -> UnusableMessage:
    with pytest.raises(UnusableMessage) as caught:
        command_from_message(data, sent_headers or {})
    assert caught.value.reason
    return caught.value


def _payload(envelope: ResultEnvelope) -> dict[str, Any]:
    return envelope_payload(envelope, envelope.schema_version)


def _encode(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False).encode()


not_a_uuid = st.one_of(
    st.uuids().map(lambda u: str(u).upper()),
    st.uuids().map(lambda u: u.hex),
    st.uuids().map(lambda u: "{" + str(u) + "}"),
    st.uuids().map(lambda u: str(u)[:-1]),
    st.text(max_size=40),
    json_values().filter(lambda v: not isinstance(v, str)),
)


@given(sent=envelopes(), which=st.sampled_from(("job_id", "file_id")), value=not_a_uuid)
@FUZZ
def test_a_bad_uuid_is_refused(sent: tuple[bytes, ResultEnvelope], which: str, value: Any) -> None:
    payload = _payload(sent[1])
    payload[which] = value
    _refused(_encode(payload))


versions_off_contract = st.one_of(
    st.integers(3, 99).map(lambda major: f"{major}.0"),
    st.integers(0, 9).map(str),
    st.sampled_from(["", "1", "2", "1.", ".1", "v1.0", "1.0.0", "01.0", "2.x", " 1.0", "0.9"]),
    st.text(max_size=10).filter(lambda v: v[:2] not in ("1.", "2.") or not v[2:].isdigit()),
    json_values().filter(lambda v: not isinstance(v, str)),
)


@given(sent=envelopes(), version=versions_off_contract)
@FUZZ
def test_a_version_off_the_contract_is_refused(
    sent: tuple[bytes, ResultEnvelope], version: Any
) -> None:
    payload = _payload(sent[1])
    payload["schema_version"] = version
    refused = _refused(_encode(payload))
    if isinstance(version, str) and version.endswith(".0") and version[:-2].isdigit():
        # A MAJOR this core does not know is counted apart: it means an upgrade is due.
        assert refused.unknown_major == (int(version[:-2]) not in (1, 2))


required = ("schema_version", "job_id", "file_id", "status", "service")


@given(
    sent=envelopes(),
    which=st.sampled_from(required),
    value=st.none() | json_values().filter(lambda v: not isinstance(v, str | dict)),
    drop=st.booleans(),
)
@FUZZ
def test_a_required_field_missing_or_of_the_wrong_type_is_refused(
    sent: tuple[bytes, ResultEnvelope], which: str, value: Any, drop: bool
) -> None:
    payload = _payload(sent[1])
    if drop:
        del payload[which]
    else:
        payload[which] = value
    _refused(_encode(payload))


@given(sent=envelopes(), cut=st.integers(min_value=0))
@FUZZ
def test_truncated_bytes_are_refused(sent: tuple[bytes, ResultEnvelope], cut: int) -> None:
    data = sent[0]
    _refused(data[: cut % len(data)])


@given(sent=envelopes(), at=st.integers(min_value=0), junk=st.binary(min_size=1, max_size=8))
@FUZZ
def test_bytes_that_are_not_utf8_are_refused(
    sent: tuple[bytes, ResultEnvelope], at: int, junk: bytes
) -> None:
    data = sent[0]
    at %= len(data)
    broken = data[:at] + b"\xff" + junk + data[at:]
    _refused(broken)


@given(sent=envelopes(), which=st.sampled_from(("key", "version", "extra")))
@settings(FUZZ, max_examples=6)
def test_a_huge_message_is_refused_before_it_is_parsed(
    sent: tuple[bytes, ResultEnvelope], which: str
) -> None:
    payload = _payload(sent[1])
    huge = "я" * (MAX_MESSAGE_BYTES // 2 + 1)
    if which == "key":
        payload["raw_s3_key"] = huge
    elif which == "version":
        payload["service"]["version"] = huge
    else:
        payload["comment"] = huge
    refused = _refused(_encode(payload))
    assert "exceeds" in refused.reason


@given(sent=envelopes(), key=st.sampled_from(required))
@FUZZ
def test_a_duplicated_key_is_refused(sent: tuple[bytes, ResultEnvelope], key: str) -> None:
    payload = _payload(sent[1])
    text = _encode(payload).decode()
    duplicated = text[:-1] + "," + json.dumps(key) + ":" + json.dumps(payload[key]) + "}"
    _refused(duplicated.encode())


@given(
    data=st.one_of(
        st.binary(max_size=300),
        json_values().map(_encode),
        st.dictionaries(st.sampled_from(required), json_values(), max_size=5).map(_encode),
        st.integers(1, 200).map(lambda depth: ("[" * depth + "]" * depth).encode()),
        st.just(b'{"a":' * 5000 + b"1" + b"}" * 5000),
    ),
    sent_headers=headers,
)
@FUZZ
def test_anything_at_all_is_a_command_or_unusable(
    data: bytes, sent_headers: dict[str, str]
) -> None:
    outcome: Any
    try:
        outcome = command_from_message(data, sent_headers)
    except UnusableMessage as exc:
        outcome = exc
    if isinstance(outcome, UnusableMessage):
        assert outcome.reason
        # What a refused message is logged with stays short, whatever was sent.
        assert all(len(value) <= 64 for value in outcome.ids.values())
    else:
        assert isinstance(outcome, AckJob | ApplyResult)


@given(
    sent=envelopes(), extra=st.dictionaries(st.text(TEXT, max_size=12), json_values(), max_size=3)
)
@FUZZ
def test_fields_a_later_minor_adds_are_ignored(
    sent: tuple[bytes, ResultEnvelope], extra: dict[str, Any]
) -> None:
    payload = _payload(sent[1])
    known = {*payload, "result_s3", "result_schema_version", "error", "raw_s3_key", "metrics"}
    # group_schema is refused on purpose (it lives in the result file); the rest is new.
    assume(not known.intersection(extra) and "group_schema" not in extra)
    command = command_from_message(_encode({**payload, **extra}), {})
    assert command.job_id == sent[1].job_id


# Through the inbox of a real core.


@dataclass
class Delivered:
    """What the inbox reads of a NATS message."""

    data: bytes
    headers: dict[str, str] | None = field(default=None)
    subject: str = "files.tabular_parsed"


def _outcomes(runtime: Runtime) -> int:
    """Acks and results counted, whatever their outcome."""
    total = 0.0
    for family in runtime.metrics.registry.collect():
        if family.name in ("arm_ka_inbox_acks", "arm_ka_inbox_results"):
            total += sum(s.value for s in family.samples if s.name.endswith("_total"))
    return int(total)


@pytest.fixture
async def core_runtime(make_core_settings) -> AsyncIterator[Runtime]:
    # Without NATS the inbox is not started, so each message is applied before on_message
    # returns and its outcome can be read at once.
    async with running(make_core_settings(nats_enabled=False)) as runtime:
        yield runtime


@st.composite
def deliveries(draw: st.DrawFn, job_id: uuid.UUID, file_id: uuid.UUID) -> list[Delivered]:
    """A few messages for one job: valid ones of its own, and anything else."""
    own = envelopes(job_id, file_id).map(lambda sent: sent[0])
    other = st.one_of(
        envelopes().map(lambda sent: sent[0]),
        st.binary(max_size=200),
        json_values().map(_encode),
        own.map(lambda data: data[: len(data) // 2]),
    )
    chosen = draw(st.lists(st.one_of(own, own, other), min_size=1, max_size=4))
    msg_ids = st.text(TEXT, min_size=1, max_size=80).map(lambda m: {NATS_MSG_ID: m})
    return [Delivered(data, draw(st.none() | headers | msg_ids)) for data in chosen]


@given(data=st.data(), status=st.sampled_from(("published", "processing")))
@THROUGH_THE_INBOX
async def test_the_inbox_counts_every_message_and_never_raises(
    core_runtime: Runtime, data: st.DataObject, status: str
) -> None:
    dsn = core_runtime.settings.database_dsn
    file_id, job_id = await insert_file_with_job(dsn, status=status)
    messages = data.draw(deliveries(job_id, file_id))
    first_result = None
    for message in messages:
        before = _outcomes(core_runtime)
        await core_runtime.inbox.on_message(message)  # type: ignore[arg-type]
        assert _outcomes(core_runtime) == before + 1, message.data[:200]
        try:
            command = command_from_message(message.data, message.headers or {})
        except UnusableMessage:
            continue
        if isinstance(command, ApplyResult) and command.job_id == job_id and first_result is None:
            first_result = command.status
    job = await job_row(dsn, job_id)
    event(f"job {status} -> {job['status']} (first result {first_result})")
    if first_result is not None:
        # The first result of the job's own is applied; whatever came after it is not.
        assert job["status"] == first_result
    else:
        assert job["status"] in ("published", "processing")


# Text the contract allows but PostgreSQL cannot hold: refused at the boundary, and counted.

UNHOLDABLE = ("\x00", "\ud800", "\udfff")


@st.composite
def unholdable(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, str]]:
    """A valid envelope's payload and headers with NUL or a lone surrogate put somewhere."""
    payload = _payload(draw(envelopes())[1])
    bad = draw(st.text(TEXT, max_size=5)) + draw(st.sampled_from(UNHOLDABLE))
    where = draw(st.sampled_from(("service", "metrics", "unknown-key", "unknown-value", "msg-id")))
    sent_headers: dict[str, str] = {}
    if where == "service":
        payload["service"]["version"] = bad
    elif where == "metrics":
        payload["metrics"] = {**payload.get("metrics", {}), "ocr_engine": [bad]}
    elif where == "unknown-key":
        payload[bad] = 1
    elif where == "unknown-value":
        payload["comment"] = {"text": bad}
    else:
        sent_headers[NATS_MSG_ID] = bad
    return payload, sent_headers


@given(sent=unholdable())
@FUZZ
def test_text_postgresql_cannot_hold_is_unusable(
    sent: tuple[dict[str, Any], dict[str, str]],
) -> None:
    payload, sent_headers = sent
    # json.dumps escapes a lone surrogate as \ud800, as a service in another language may.
    refused = _refused(json.dumps(payload).encode(), sent_headers)
    text = json.dumps(payload, ensure_ascii=False)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        # Not UTF-8 once decoded: refused before any id is read from it.
        assert refused.ids == {}
    else:
        assert refused.ids["job_id"] == payload["job_id"]
    assert not refused.unknown_major


def _ack_payload(**service: str) -> dict[str, Any]:
    return {
        "schema_version": "2.0",
        "job_id": str(uuid.uuid4()),
        "file_id": str(uuid.uuid4()),
        "status": "processing",
        "service": {"name": "tabular-parser", "version": "1.0", **service},
    }


@pytest.mark.parametrize(
    "payload",
    [
        {**_ack_payload(), "note\udc00": "x"},
        _ack_payload(name="\ud800"),
        _ack_payload(version="\ud800"),
    ],
    ids=["in-a-key", "in-a-patterned-field", "in-a-free-field"],
)
def test_an_escaped_lone_surrogate_is_unusable(payload: dict[str, Any]) -> None:
    _refused(json.dumps(payload).encode())


def _result_of(job_id: uuid.UUID, file_id: uuid.UUID, **fields: Any) -> dict[str, Any]:
    return {
        "schema_version": "2.0",
        "job_id": str(job_id),
        "file_id": str(file_id),
        "status": "error",
        "service": {"name": "tabular-parser", "version": "1.0"},
        "error": {"code": "UNREADABLE", "message": "не читается"},
        **fields,
    }


def _bad_results(runtime: Runtime) -> float:
    value = runtime.metrics.registry.get_sample_value(
        "arm_ka_inbox_results_total", {"outcome": "bad"}
    )
    return value or 0.0


@pytest.mark.parametrize(
    ("fields", "msg_id"),
    [
        ({"service": {"name": "tabular-parser", "version": "1\x00"}}, None),
        ({"error": {"code": "UNREADABLE", "message": "битый\x00файл"}}, None),
        ({"metrics": {"ocr_engine": "tess\x00eract"}}, None),
        ({"error": {"code": "UNREADABLE", "message": "битый\ud800файл"}}, None),
        ({}, "result:\x00"),
    ],
    ids=["service-version", "error-message", "metrics", "surrogate", "msg-id"],
)
async def test_text_postgresql_cannot_hold_is_counted_bad_and_touches_nothing(
    core_runtime: Runtime, fields: dict[str, Any], msg_id: str | None
) -> None:
    dsn = core_runtime.settings.database_dsn
    file_id, job_id = await insert_file_with_job(dsn, status="published")
    data = json.dumps(_result_of(job_id, file_id, **fields)).encode()
    before, bad_before = _outcomes(core_runtime), _bad_results(core_runtime)
    await core_runtime.inbox.on_message(
        Delivered(data, {NATS_MSG_ID: msg_id} if msg_id else None)  # type: ignore[arg-type]
    )
    assert _outcomes(core_runtime) == before + 1
    assert _bad_results(core_runtime) == bad_before + 1
    # Dropped like any malformed envelope: the job waits for its deadline, then the watchdog.
    assert (await job_row(dsn, job_id))["status"] == "published"
