"""Every event against every (job status x file status) pair, for the file's current job and
for an old attempt: the table below states where each event applies and what it does.

Each case runs in a transaction of its own that is rolled back, on a real database.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from psycopg.rows import dict_row

from arm_core.db.tables import FILE_STATUSES, JOB_STATUSES
from arm_core.exchange.commands import AckJob, ApplyResult, ObjectRef
from arm_core.jobs import transitions
from arm_core.jobs.transitions import Moved, Request, Transitions
from arm_core.metrics import Metrics

MAX_REPUBLISH = 3

# event -> (job statuses it applies to, the job's status after it, the status a current
# file that is still open (UPLOADED / PROCESSING) gets; None: the file does not move).
# An event that does not apply changes nothing, whatever the pair.
EXPECTED: dict[str, tuple[frozenset[str], str | None, str | None]] = {
    "publish": (frozenset({"queued"}), "published", None),
    "publish_failed": (frozenset({"published"}), "queued", None),
    "republish": (frozenset({"published"}), "published", None),
    "republish_failed": (frozenset({"published"}), "published", None),
    "give_up": (frozenset({"published"}), "dlq", "ERROR"),
    "ack": (frozenset({"published"}), "processing", "PROCESSING"),
    "result_done": (frozenset({"queued", "published", "processing"}), "done", "PROCESSING"),
    "result_needs_check": (
        frozenset({"queued", "published", "processing"}),
        "needs_check",
        "PROCESSING",
    ),
    "result_error": (frozenset({"queued", "published", "processing"}), "error", "ERROR"),
    "timeout": (frozenset({"published", "processing"}), "timeout", "ERROR"),
    "mapped": (frozenset({"done", "needs_check"}), None, "by job"),
    "mapping_failed": (frozenset({"done", "needs_check"}), None, "ERROR"),
}
OPEN_FILE = {"UPLOADED", "PROCESSING"}
MAPPED_FILE = {"done": "RECOGNIZED", "needs_check": "NEEDS_CHECK"}


@dataclass(frozen=True)
class Case:
    event: str
    job_status: str
    file_status: str
    current: bool

    @property
    def id(self) -> str:
        return f"{self.event}-{self.job_status}-{self.file_status}-{'current' if self.current else 'old'}"


CASES = [
    Case(event, job, file, current)
    for event, job, file, current in itertools.product(
        EXPECTED, JOB_STATUSES, FILE_STATUSES, (True, False)
    )
]


@pytest.fixture
async def conn(database_url: str):
    async with await psycopg.AsyncConnection.connect(database_url, row_factory=dict_row) as c:
        yield c


async def _insert(conn, case: Case, *, republish_count: int) -> tuple[uuid.UUID, uuid.UUID]:
    """A file and the job under test; for an old attempt the file's current job is a newer
    queued one."""
    file_id, job_id = uuid.uuid4(), uuid.uuid4()
    past = datetime.now(UTC) - timedelta(minutes=5)
    obj = await (
        await conn.execute(
            "INSERT INTO s3_object (bucket, key, bucket_role, created_by)"
            " VALUES ('arm-ka', %s, 'uploads', 'test') RETURNING id",
            (f"uploads/{file_id}/source.xlsx",),
        )
    ).fetchone()
    await conn.execute(
        "INSERT INTO stored_file (id, original_name, file_type, s3_object_id, status)"
        " VALUES (%s, 'osv.xlsx', 'XLSX', %s, %s)",
        (file_id, obj["id"], case.file_status),
    )
    sent = case.job_status != "queued"
    await conn.execute(
        "INSERT INTO recognition_job (id, file_id, pipeline, attempt, max_attempts, status,"
        " published_at, reply_deadline, request_msg_id, request_subject, republish_count,"
        " finished_at)"
        " VALUES (%s, %s, 'tabular', 1, 3, %s, %s, %s, %s, 's', %s, %s)",
        (
            job_id,
            file_id,
            case.job_status,
            past if sent else None,
            past if sent else None,
            f"{job_id}:1" if sent else None,
            republish_count,
            past if case.job_status in transitions.FINAL else None,
        ),
    )
    current = job_id
    if not case.current:
        current = uuid.uuid4()
        await conn.execute(
            "INSERT INTO recognition_job (id, file_id, pipeline, attempt, max_attempts, status)"
            " VALUES (%s, %s, 'tabular', 2, 3, 'queued')",
            (current, file_id),
        )
    await conn.execute(
        "UPDATE stored_file SET current_recognition_job_id = %s WHERE id = %s", (current, file_id)
    )
    return file_id, job_id


def _result(job_id: uuid.UUID, file_id: uuid.UUID, status: str) -> ApplyResult:
    error = status == "error"
    return ApplyResult(
        job_id=job_id,
        file_id=file_id,
        status=status,  # type: ignore[arg-type]
        schema_version="2.0",
        service_name="tabular-parser",
        service_version="1.0",
        statements_version=None,
        msg_id=f"result:{job_id}:1",
        result=None if error else ObjectRef("arm-ka", f"results/{file_id}/{job_id}/result.json"),
        result_schema_version=None if error else "2.0",
        raw_key=None,
        error_code="UNREADABLE" if error else None,
        error_message="не читается" if error else None,
    )


def _event(
    t: Transitions, conn, event: str, file_id: uuid.UUID, job_id: uuid.UUID
) -> Callable[[], Awaitable[object]]:
    request = Request(job_id, f"{job_id}:1", "files.tabular_uploaded", datetime.now(UTC))
    match event:
        case "publish":
            return lambda: t.publish(conn, [request])
        case "publish_failed":
            return lambda: t.publish_failed(conn, [job_id])
        case "republish":
            return lambda: t.republish(conn, [job_id], max_republish=MAX_REPUBLISH)
        case "republish_failed":
            # Taken back from the count the republish left (0 before it, 1 now).
            return lambda: t.republish_failed(conn, [(job_id, datetime.now(UTC), 0)])
        case "give_up":
            return lambda: t.give_up(conn, [job_id], max_republish=MAX_REPUBLISH)
        case "ack":
            ack = AckJob(job_id, file_id, "tabular-parser", "1.0", f"ack:{job_id}:1")
            return lambda: t.ack(conn, ack)
        case "result_done" | "result_needs_check" | "result_error":
            result = _result(job_id, file_id, event.removeprefix("result_"))
            return lambda: t.result(conn, result, msg_id=result.msg_id, metrics={})
        case "timeout":
            return lambda: t.timeout(conn)
        case "mapped":
            return lambda: t.mapped(conn, [(job_id, None)])
        case "mapping_failed":
            return lambda: t.mapping_failed(conn, job_id, "не разобрать")
    raise AssertionError(event)


def _applied(outcome: object) -> bool:
    if isinstance(outcome, list):
        return bool(outcome)
    return isinstance(outcome, Moved)


async def test_every_event_on_every_pair(conn) -> None:
    metrics = Metrics()
    t = Transitions(metrics)
    wrong: list[str] = []
    for case in CASES:
        applies_to, job_after, file_after = EXPECTED[case.event]
        # give_up is due once the republishes are used up; republish while some are left; a
        # republish taken back finds the count it left.
        count = {"give_up": MAX_REPUBLISH, "republish_failed": 1}.get(case.event, 0)
        async with conn.transaction(force_rollback=True):
            file_id, job_id = await _insert(conn, case, republish_count=count)
            outcome = await _event(t, conn, case.event, file_id, job_id)()
            job = await (
                await conn.execute(
                    "SELECT status, mapped_at, republish_count, request_msg_id"
                    " FROM recognition_job WHERE id = %s",
                    (job_id,),
                )
            ).fetchone()
            file = await (
                await conn.execute("SELECT status FROM stored_file WHERE id = %s", (file_id,))
            ).fetchone()
        applies = case.job_status in applies_to
        expected_job = (job_after or case.job_status) if applies else case.job_status
        expected_file = case.file_status
        if applies and case.current and case.file_status in OPEN_FILE and file_after:
            expected_file = MAPPED_FILE[case.job_status] if file_after == "by job" else file_after
        got = (_applied(outcome), job["status"], file["status"])
        if got != (applies, expected_job, expected_file):
            wrong.append(f"{case.id}: got {got}, expected {(applies, expected_job, expected_file)}")
        if applies and case.event in ("mapped", "mapping_failed") and job["mapped_at"] is None:
            wrong.append(f"{case.id}: mapped_at not set")
    assert wrong == []
    # Each id-targeted event that did not apply was counted as a missed guard.
    for event in (
        "publish",
        "publish_failed",
        "republish",
        "republish_failed",
        "give_up",
        "ack",
        "mapped",
        "mapping_failed",
    ):
        misses = sum(
            1 for c in CASES if c.event == event and c.job_status not in EXPECTED[event][0]
        )
        assert metrics.transitions_missed.labels(event)._value.get() == misses, event


async def test_a_request_goes_out_at_most_one_plus_the_limit_times(conn) -> None:
    t = Transitions(Metrics())
    async with conn.transaction(force_rollback=True):
        file_id, job_id = await _insert(
            conn, Case("publish", "queued", "UPLOADED", True), republish_count=0
        )
        request = Request(job_id, f"{job_id}:1", "s", datetime.now(UTC))
        # A publish that sent nothing is taken back whole; the job is queued again.
        assert await t.publish(conn, [request]) == [job_id]
        assert await t.publish_failed(conn, [job_id]) == [job_id]
        assert await t.publish(conn, [request]) == [job_id]
        sent = 1
        while await t.republish(conn, [job_id], max_republish=MAX_REPUBLISH):
            sent += 1
        assert sent == 1 + MAX_REPUBLISH
        # Once published, the first publish is never taken back (it may be on the wire).
        assert await t.publish_failed(conn, [job_id]) == []
        assert await t.give_up(conn, [job_id], max_republish=MAX_REPUBLISH) == [job_id]
        file = await (
            await conn.execute(
                "SELECT status, error_code FROM stored_file WHERE id = %s", (file_id,)
            )
        ).fetchone()
        assert (file["status"], file["error_code"]) == ("ERROR", "NO_ACK")


async def test_a_republish_taken_back_is_due_again_at_once(conn) -> None:
    t = Transitions(Metrics())
    async with conn.transaction(force_rollback=True):
        _, job_id = await _insert(
            conn, Case("republish", "published", "UPLOADED", True), republish_count=1
        )
        before = await (
            await conn.execute(
                "SELECT published_at, republish_count FROM recognition_job WHERE id = %s",
                (job_id,),
            )
        ).fetchone()
        assert await t.republish(conn, [job_id], max_republish=MAX_REPUBLISH) == [job_id]
        taken_back = [(job_id, before["published_at"], before["republish_count"])]
        assert await t.republish_failed(conn, taken_back) == [job_id]
        after = await (
            await conn.execute(
                "SELECT published_at, republish_count FROM recognition_job WHERE id = %s",
                (job_id,),
            )
        ).fetchone()
        assert after == before
        # Taken back once; a second time finds the count already restored.
        assert await t.republish_failed(conn, taken_back) == []


async def test_duplicate_and_late_results_of_old_attempts_change_nothing(conn) -> None:
    t = Transitions(Metrics())
    async with conn.transaction(force_rollback=True):
        file_id, job_id = await _insert(
            conn, Case("result_done", "processing", "PROCESSING", True), republish_count=0
        )
        result = _result(job_id, file_id, "done")
        first = await t.result(conn, result, msg_id=result.msg_id, metrics={})
        assert isinstance(first, Moved) and first.file_moved
        objects = (await (await conn.execute("SELECT count(*) AS n FROM s3_object")).fetchone())[
            "n"
        ]
        again = await t.result(conn, result, msg_id=result.msg_id, metrics={})
        assert not isinstance(again, Moved)
        assert again is not None and again.result_msg_id == result.msg_id
        late_error = _result(job_id, file_id, "error")
        assert not isinstance(
            await t.result(conn, late_error, msg_id="result:other", metrics={}), Moved
        )
        # Neither registered another result object nor moved the job.
        assert (await (await conn.execute("SELECT count(*) AS n FROM s3_object")).fetchone())[
            "n"
        ] == objects
        assert (
            await (
                await conn.execute("SELECT status FROM recognition_job WHERE id = %s", (job_id,))
            ).fetchone()
        )["status"] == "done"
        # An ack or a result naming another file is not applied to this job.
        stranger = AckJob(job_id, uuid.uuid4(), "tabular-parser", "1.0", None)
        assert not isinstance(await t.ack(conn, stranger), Moved)
        unknown = await t.ack(conn, AckJob(uuid.uuid4(), file_id, "tabular-parser", "1.0", None))
        assert unknown is None


@pytest.mark.parametrize(
    ("job_status", "file_status", "attempt", "retryable"),
    [
        ("error", "ERROR", 1, True),
        ("timeout", "ERROR", 2, True),
        ("dlq", "ERROR", 1, True),
        ("dlq", "ERROR", 3, False),  # the attempts are used up
        ("done", "ERROR", 1, True),  # the result could not be mapped
        ("needs_check", "ERROR", 2, True),
        ("done", "RECOGNIZED", 1, False),
        ("needs_check", "NEEDS_CHECK", 1, False),
        ("done", "PROCESSING", 1, False),  # waiting for mapping
        ("processing", "PROCESSING", 1, False),
        ("published", "UPLOADED", 1, False),
        ("queued", "UPLOADED", 1, False),
    ],
)
async def test_retry_of_every_kind_of_file(
    conn, job_status: str, file_status: str, attempt: int, retryable: bool
) -> None:
    async with conn.transaction(force_rollback=True):
        file_id, job_id = await _insert(
            conn, Case("retry", job_status, file_status, True), republish_count=0
        )
        await conn.execute(
            "UPDATE recognition_job SET attempt = %s WHERE id = %s", (attempt, job_id)
        )
        assert transitions.retryable(file_status, job_status, attempt, 3) is retryable
        row = await transitions.retry(conn, file_id, "analyst")
        file = await (
            await conn.execute(
                "SELECT f.status, j.status AS job_status, j.attempt"
                " FROM stored_file f JOIN recognition_job j ON j.id = f.current_recognition_job_id"
                " WHERE f.id = %s",
                (file_id,),
            )
        ).fetchone()
    if retryable:
        assert row is not None and row["attempt"] == attempt + 1
        assert (file["status"], file["job_status"], file["attempt"]) == (
            "UPLOADED",
            "queued",
            attempt + 1,
        )
    else:
        assert row is None
        assert (file["status"], file["job_status"]) == (file_status, job_status)
