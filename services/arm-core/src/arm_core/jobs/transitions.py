"""Every change of state of ``recognition_job`` and ``stored_file``, and nothing else.

Each event is one SQL statement guarded by the state it expects. It moves the job and, when
that job is its file's current one, the file with it, so the two can never disagree for
longer than a statement. Races between loops, instances and late messages are settled by the
guards: the loser matches no row. A guard that misses is logged with the row's actual state
and counted (``arm_ka_transition_missed``), so that a miss nobody expected is visible.

The file follows its current job:

    job queued / published      file UPLOADED
    job processing              file PROCESSING
    job done / needs_check      file PROCESSING until mapped, then RECOGNIZED / NEEDS_CHECK
    job error / timeout / dlq   file ERROR
    mapping failed              file ERROR (the job keeps its status, mapped_at set)

A file is retryable while attempts are left and its current job failed (``error``, ``timeout``,
``dlq``) or finished but could not be mapped (the file ``ERROR``): every ``ERROR`` can be
retried until the attempts run out, so no file is left where neither the system nor the
analyst can move it.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from psycopg.types.json import Jsonb

from arm_core.db.pool import Connection
from arm_core.db.tables import FINAL_JOB_STATUSES
from arm_core.exchange.commands import AckJob, ApplyResult
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

FINAL = FINAL_JOB_STATUSES
FAILED = ("error", "timeout", "dlq")
# The file statuses of a file whose current job is not finished with yet.
OPEN_FILE = "f.status IN ('UPLOADED', 'PROCESSING')"

NO_ACK_MESSAGE = "ни один сервис распознавания не подтвердил получение запроса"
TIMEOUT_MESSAGE = "результат не получен до срока ответа (reply_deadline)"
MAPPING_MESSAGE = "результат распознавания не удалось разобрать"


def _file_follows(assignments: str) -> str:
    """The CTE ``file``: the file whose current job the CTE ``job`` moved, moved with it while
    it is still open. The one place that says how a file follows its current job."""
    return f"""file AS (
    UPDATE stored_file f
       SET {assignments},
           updated_at = now()
      FROM job
     WHERE f.id = job.file_id
       AND f.current_recognition_job_id = job.id
       AND {OPEN_FILE}
    RETURNING f.id
)"""


def _failed(code: str, message: str) -> str:
    return f"""status = 'ERROR',
           error_code = '{code}',
           error_message = '{message}'"""


_RESULT_FILE = """status = CASE WHEN job.status = 'error' THEN 'ERROR' ELSE 'PROCESSING' END,
           error_code = CASE WHEN job.status = 'error' THEN job.error_code END,
           error_message = CASE WHEN job.status = 'error' THEN job.error_message END"""
_MAPPED_FILE = """status = CASE job.status WHEN 'done' THEN 'RECOGNIZED' ELSE 'NEEDS_CHECK' END,
           mapping_error = NULL"""

# Errors that describe the file itself: a new attempt would read the same bytes and say the
# same, so none is offered (the analyst uploads a corrected file instead). Timeouts, a service
# that did not answer, storage and engine failures and results that could not be mapped are
# worth a new attempt.
FILE_ERRORS = (
    "UNSUPPORTED_FORMAT",
    "INVALID_FORMAT",
    "INVALID_DOCUMENT",
    "UNREADABLE",
    "PASSWORD_PROTECTED",
)

# The retry rule as SQL over the file f and its current job j; ``retryable`` below is the same
# rule for a row already read.
RETRYABLE_SQL = f"""(j.attempt < j.max_attempts
        AND coalesce(j.error_code, '') <> ALL (ARRAY{list(FILE_ERRORS)}::text[])
        AND (j.status IN ('error', 'timeout', 'dlq')
             OR (j.status IN ('done', 'needs_check') AND f.status = 'ERROR')))"""


def attempt_failed(file_status: str, job_status: str | None) -> bool:
    """The current attempt failed: the service or the exchange gave up, or its result could
    not be mapped."""
    finished = job_status in ("done", "needs_check")
    return job_status in FAILED or (finished and file_status == "ERROR")


def retry_helps(error_code: str | None) -> bool:
    """Whether a new attempt could end otherwise than one that failed with ``error_code``."""
    return error_code not in FILE_ERRORS


def retryable(
    file_status: str,
    job_status: str | None,
    attempt: int,
    max_attempts: int,
    error_code: str | None = None,
) -> bool:
    return (
        attempt_failed(file_status, job_status)
        and attempt < max_attempts
        and retry_helps(error_code)
    )


Event = Literal[
    "publish",
    "publish_failed",
    "republish",
    "republish_failed",
    "give_up",
    "ack",
    "result",
    "timeout",
    "mapped",
    "mapping_failed",
]

# Publishes are recorded, and committed, before the request is sent: a core that dies while
# sending leaves a job that counts the publish it may have made, never one that forgot it.
PUBLISH = """
WITH job AS (
    UPDATE recognition_job j
       SET status = 'published',
           published_at = now(),
           reply_deadline = p.reply_deadline,
           request_msg_id = p.msg_id,
           request_subject = p.subject
      FROM unnest(%(ids)s::uuid[], %(deadlines)s::timestamptz[], %(msg_ids)s::text[],
                  %(subjects)s::text[]) AS p(id, reply_deadline, msg_id, subject)
     WHERE j.id = p.id
       AND j.status = 'queued'
    RETURNING j.id
)
SELECT id FROM job
"""

# Nothing reached NATS (the client was not connected): the job is queued again, as it was.
PUBLISH_FAILED = """
WITH job AS (
    UPDATE recognition_job
       SET status = 'queued',
           published_at = NULL,
           reply_deadline = NULL,
           request_msg_id = NULL,
           request_subject = NULL
     WHERE id = ANY(%(ids)s::uuid[])
       AND status = 'published'
       AND republish_count = 0
    RETURNING id
)
SELECT id FROM job
"""

REPUBLISH = """
WITH job AS (
    UPDATE recognition_job
       SET published_at = now(),
           republish_count = republish_count + 1,
           metrics = metrics || jsonb_build_object('republish_count', republish_count + 1)
     WHERE id = ANY(%(ids)s::uuid[])
       AND status = 'published'
       AND republish_count < %(max_republish)s
    RETURNING id
)
SELECT id FROM job
"""

# Nothing reached NATS: the republish is taken back, and is due again at once.
REPUBLISH_FAILED = """
WITH job AS (
    UPDATE recognition_job j
       SET published_at = p.published_at,
           republish_count = j.republish_count - 1,
           metrics = j.metrics || jsonb_build_object('republish_count', j.republish_count - 1)
      FROM unnest(%(ids)s::uuid[], %(published_at)s::timestamptz[], %(counts)s::int[])
           AS p(id, published_at, republish_count)
     WHERE j.id = p.id
       AND j.status = 'published'
       AND j.republish_count = p.republish_count
    RETURNING j.id
)
SELECT id FROM job
"""

GIVE_UP = f"""
WITH job AS (
    UPDATE recognition_job
       SET status = 'dlq',
           error_code = 'NO_ACK',
           error_message = '{NO_ACK_MESSAGE}',
           finished_at = now()
     WHERE id = ANY(%(ids)s::uuid[])
       AND status = 'published'
       AND republish_count >= %(max_republish)s
    RETURNING id, file_id, attempt, republish_count
), {_file_follows(_failed("NO_ACK", NO_ACK_MESSAGE))}
SELECT id, file_id, attempt, republish_count FROM job
"""

# Acks and results come in batches (one row of the ``unnest`` per message, one message per
# job in a batch): each row is guarded on its own.
ACK = f"""
WITH job AS (
    UPDATE recognition_job j
       SET status = 'processing',
           started_at = now(),
           service_name = p.service_name,
           service_version = p.service_version
      FROM unnest(%(ids)s::uuid[], %(file_ids)s::uuid[], %(service_names)s::text[],
                  %(service_versions)s::text[]) AS p(id, file_id, service_name, service_version)
     WHERE j.id = p.id
       AND j.file_id = p.file_id
       AND j.status = 'published'
    RETURNING j.id, j.file_id, j.attempt
), {_file_follows("status = 'PROCESSING'")}
SELECT job.id, job.attempt, EXISTS (SELECT 1 FROM file WHERE file.id = job.file_id) AS file_moved
  FROM job
"""

# The result objects are registered only when the result applies, in the same statement, so
# a duplicate or late result changes neither the job nor ``s3_object``.
RESULT = f"""
WITH p AS (
    SELECT *
      FROM unnest(%(ids)s::uuid[], %(file_ids)s::uuid[], %(statuses)s::text[],
                  %(service_names)s::text[], %(service_versions)s::text[],
                  %(statements_versions)s::text[], %(metrics)s::jsonb[],
                  %(error_codes)s::text[], %(error_messages)s::text[],
                  %(result_schema_versions)s::text[], %(buckets)s::text[], %(keys)s::text[],
                  %(raw_keys)s::text[], %(msg_ids)s::text[])
           AS p(id, file_id, status, service_name, service_version, statements_version,
                metrics, error_code, error_message, result_schema_version, bucket, key,
                raw_key, msg_id)
), target AS (
    SELECT j.id
      FROM recognition_job j
      JOIN p ON p.id = j.id AND p.file_id = j.file_id
     WHERE j.status IN ('queued', 'published', 'processing')
     ORDER BY j.id
       FOR UPDATE OF j
), result_object AS (
    INSERT INTO s3_object (bucket, key, bucket_role, content_type, created_by)
    SELECT p.bucket, p.key, 'results', 'application/json', p.service_name
      FROM p JOIN target USING (id)
     WHERE p.key IS NOT NULL
    ON CONFLICT (bucket, key) DO UPDATE SET bucket = EXCLUDED.bucket
    RETURNING id, bucket, key
), raw_object AS (
    INSERT INTO s3_object (bucket, key, bucket_role, created_by)
    SELECT p.bucket, p.raw_key, 'raw', p.service_name
      FROM p JOIN target USING (id)
     WHERE p.raw_key IS NOT NULL
       AND p.key IS NOT NULL
       AND p.raw_key <> p.key
    ON CONFLICT (bucket, key) DO NOTHING
), job AS (
    UPDATE recognition_job j
       SET status = p.status,
           service_name = p.service_name,
           service_version = p.service_version,
           statements_version = p.statements_version,
           finished_at = now(),
           -- The service's metrics never stand in for the core's own count.
           metrics = j.metrics || p.metrics
                     || jsonb_build_object('republish_count', j.republish_count),
           error_code = p.error_code,
           error_message = p.error_message,
           result_schema_version = p.result_schema_version,
           result_s3_object_id = o.id,
           -- A result sent without Nats-Msg-Id gets the id it should have carried
           -- (recognition_contract.result_msg_id), so that its duplicate is known too.
           result_msg_id = coalesce(p.msg_id, 'result:' || j.id::text || ':' || j.attempt::text)
      FROM p
      JOIN target USING (id)
      LEFT JOIN result_object o ON o.bucket = p.bucket AND o.key = p.key
     WHERE j.id = p.id
    RETURNING j.id, j.file_id, j.attempt, j.status, j.error_code, j.error_message
), {_file_follows(_RESULT_FILE)}
SELECT job.id, job.attempt, EXISTS (SELECT 1 FROM file WHERE file.id = job.file_id) AS file_moved
  FROM job
"""

TIMEOUT = f"""
WITH job AS (
    UPDATE recognition_job
       SET status = 'timeout',
           error_code = 'TIMEOUT',
           error_message = '{TIMEOUT_MESSAGE}',
           finished_at = now()
     WHERE status IN ('published', 'processing')
       AND reply_deadline < now()
    RETURNING id, file_id, attempt
), {_file_follows(_failed("TIMEOUT", TIMEOUT_MESSAGE))}
SELECT job.id, job.file_id, job.attempt, (file.id IS NOT NULL) AS file_moved
  FROM job LEFT JOIN file ON file.id = job.file_id
"""

# Finished current jobs not mapped yet, whatever their file's status: a file still UPLOADED
# because its ack was lost or came after the result is mapped all the same. The oldest are
# taken from the partial index first and only then joined to their files, row by row: the
# claim costs the same however many jobs and files the tables hold. (A finished job that is
# no longer its file's current one cannot be unmapped: a retry replaces only a failed job or
# one whose mapping failed, and a replaced job takes no result.)
CLAIM_UNMAPPED = """
WITH candidate AS MATERIALIZED (
    SELECT id
      FROM recognition_job
     WHERE status IN ('done', 'needs_check')
       AND mapped_at IS NULL
     ORDER BY finished_at
     LIMIT %(limit)s
       FOR UPDATE SKIP LOCKED
)
SELECT j.id AS job_id, j.file_id, j.attempt, j.status, o.bucket, o.key
  FROM candidate c
  JOIN recognition_job j ON j.id = c.id
  JOIN stored_file f ON f.id = j.file_id AND f.current_recognition_job_id = j.id
  LEFT JOIN s3_object o ON o.id = j.result_s3_object_id
 ORDER BY j.finished_at
   FOR UPDATE OF f SKIP LOCKED
"""

MAPPED = f"""
WITH job AS (
    UPDATE recognition_job j
       SET group_schema = p.group_schema,
           mapped_at = now()
      FROM unnest(%(ids)s::uuid[], %(group_schemas)s::text[]) AS p(id, group_schema)
     WHERE j.id = p.id
       AND j.status IN ('done', 'needs_check')
       AND j.mapped_at IS NULL
    RETURNING j.id, j.file_id, j.status
), {_file_follows(_MAPPED_FILE)}
SELECT job.id, EXISTS (SELECT 1 FROM file WHERE file.id = job.file_id) AS file_moved
  FROM job
"""

MAPPING_FAILED = f"""
WITH job AS (
    UPDATE recognition_job
       SET mapped_at = now()
     WHERE id = %(job_id)s
       AND status IN ('done', 'needs_check')
       AND mapped_at IS NULL
    RETURNING id, file_id
), {_file_follows(_failed("MAPPING_ERROR", MAPPING_MESSAGE) + ", mapping_error = %(reason)s")}
SELECT job.id, EXISTS (SELECT 1 FROM file) AS file_moved
  FROM job
"""

# The check, the new job, the switch of the file and the audit row, under a lock on the file:
# two retries of one attempt can never both succeed; UNIQUE (file_id, attempt) is the last guard.
RETRY = f"""
WITH current AS (
    SELECT f.id AS file_id, j.id AS job_id, j.attempt, j.max_attempts, j.pipeline, j.status
      FROM stored_file f
      JOIN recognition_job j ON j.id = f.current_recognition_job_id
     WHERE f.id = %(file_id)s
       AND {RETRYABLE_SQL}
       FOR UPDATE OF f
), new_job AS (
    INSERT INTO recognition_job (file_id, pipeline, attempt, max_attempts, status)
    SELECT file_id, pipeline, attempt + 1, max_attempts, 'queued'
      FROM current
    RETURNING id, file_id, attempt
), file AS (
    UPDATE stored_file f
       SET status = 'UPLOADED',
           current_recognition_job_id = n.id,
           error_code = NULL,
           error_message = NULL,
           mapping_error = NULL,
           updated_at = now()
      FROM new_job n, current c
     WHERE f.id = n.file_id
       AND f.current_recognition_job_id = c.job_id
    RETURNING f.id
), audit AS (
    INSERT INTO audit_log (actor, action, file_id, job_id, details)
    SELECT %(actor)s, 'file.retry', n.file_id, n.id,
           jsonb_build_object('previous_job_id', c.job_id, 'previous_status', c.status,
                              'attempt', n.attempt)
      FROM new_job n, current c
    RETURNING id
)
SELECT n.id AS job_id, n.attempt, c.job_id AS previous_job_id,
       (SELECT count(*) FROM file) AS file_moved
  FROM new_job n, current c
"""

ACTUAL_STATE = """
SELECT j.id, j.file_id, j.status, j.attempt, j.republish_count, j.result_msg_id,
       j.mapped_at IS NOT NULL AS mapped,
       f.status AS file_status,
       f.current_recognition_job_id = j.id AS current
  FROM recognition_job j
  LEFT JOIN stored_file f ON f.id = j.file_id
 WHERE j.id = ANY(%(ids)s::uuid[])
"""


@dataclass(frozen=True)
class Request:
    """A request as it went to NATS: what a publish records on its job."""

    job_id: uuid.UUID
    msg_id: str
    subject: str
    reply_deadline: datetime


@dataclass(frozen=True)
class Moved:
    """A transition that applied: the job, its attempt when known, whether its file moved."""

    job_id: uuid.UUID
    attempt: int | None
    file_moved: bool


@dataclass(frozen=True)
class JobState:
    """Where a job actually was when a transition's guard missed it."""

    job_id: uuid.UUID
    file_id: uuid.UUID
    status: str
    attempt: int
    republish_count: int
    result_msg_id: str | None
    mapped: bool
    file_status: str | None
    current: bool

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> JobState:
        return cls(
            job_id=row["id"],
            file_id=row["file_id"],
            status=row["status"],
            attempt=row["attempt"],
            republish_count=row["republish_count"],
            result_msg_id=row["result_msg_id"],
            mapped=row["mapped"],
            file_status=row["file_status"],
            current=bool(row["current"]),
        )


Outcome = Moved | JobState | None
"""What a transition of one job did: it moved, or it missed a job in this state, or there
is no such job."""


class Transitions:
    """The statements above, with the bookkeeping of applied and missed guards."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    async def publish(self, conn: Connection, requests: Sequence[Request]) -> list[uuid.UUID]:
        """Requests about to be sent: their jobs become ``published``."""
        rows, _ = await self._run(
            conn,
            "publish",
            PUBLISH,
            {
                "ids": [r.job_id for r in requests],
                "deadlines": [r.reply_deadline for r in requests],
                "msg_ids": [r.msg_id for r in requests],
                "subjects": [r.subject for r in requests],
            },
            [r.job_id for r in requests],
        )
        return [row["id"] for row in rows]

    async def publish_failed(
        self, conn: Connection, job_ids: Sequence[uuid.UUID]
    ) -> list[uuid.UUID]:
        rows, _ = await self._run(
            conn, "publish_failed", PUBLISH_FAILED, {"ids": list(job_ids)}, job_ids
        )
        return [row["id"] for row in rows]

    async def republish(
        self, conn: Connection, job_ids: Sequence[uuid.UUID], *, max_republish: int
    ) -> list[uuid.UUID]:
        """Requests about to be sent again: counted, and not due again for an ack timeout."""
        rows, _ = await self._run(
            conn,
            "republish",
            REPUBLISH,
            {"ids": list(job_ids), "max_republish": max_republish},
            job_ids,
        )
        return [row["id"] for row in rows]

    async def republish_failed(
        self, conn: Connection, before: Sequence[tuple[uuid.UUID, datetime, int]]
    ) -> list[uuid.UUID]:
        """Take back republishes that sent nothing: ``before`` holds each job's
        ``published_at`` and ``republish_count`` as they were before the republish."""
        rows, _ = await self._run(
            conn,
            "republish_failed",
            REPUBLISH_FAILED,
            {
                "ids": [job_id for job_id, _, _ in before],
                "published_at": [at for _, at, _ in before],
                "counts": [count + 1 for _, _, count in before],
            },
            [job_id for job_id, _, _ in before],
        )
        return [row["id"] for row in rows]

    async def give_up(
        self, conn: Connection, job_ids: Sequence[uuid.UUID], *, max_republish: int
    ) -> list[uuid.UUID]:
        rows, _ = await self._run(
            conn,
            "give_up",
            GIVE_UP,
            {"ids": list(job_ids), "max_republish": max_republish},
            job_ids,
        )
        self._metrics.dlq.inc(len(rows))
        for row in rows:
            log.warning(
                "job_dead_lettered",
                job_id=str(row["id"]),
                file_id=str(row["file_id"]),
                attempt=row["attempt"],
                republish_count=row["republish_count"],
            )
        return [row["id"] for row in rows]

    async def ack(self, conn: Connection, ack: AckJob) -> Outcome:
        """The job moves to ``processing``; on a miss, the job's actual state tells the
        caller what kind of ack it was."""
        return (await self.acks(conn, [ack]))[ack.job_id]

    async def acks(self, conn: Connection, acks: Sequence[AckJob]) -> dict[uuid.UUID, Outcome]:
        """``ack`` for many jobs at once (one ack per job)."""
        params = {
            "ids": [a.job_id for a in acks],
            "file_ids": [a.file_id for a in acks],
            "service_names": [a.service_name for a in acks],
            "service_versions": [a.service_version for a in acks],
        }
        return await self._each(conn, "ack", ACK, params, [a.job_id for a in acks])

    async def result(
        self,
        conn: Connection,
        result: ApplyResult,
        *,
        msg_id: str | None,
        metrics: dict[str, Any],
    ) -> Outcome:
        return (await self.results(conn, [(result, msg_id, metrics)]))[result.job_id]

    async def results(
        self, conn: Connection, results: Sequence[tuple[ApplyResult, str | None, dict[str, Any]]]
    ) -> dict[uuid.UUID, Outcome]:
        """Results of many jobs at once (one per job), each with its message id and the
        metrics to record."""
        refs = [r.result for r, _, _ in results]
        params = {
            "ids": [r.job_id for r, _, _ in results],
            "file_ids": [r.file_id for r, _, _ in results],
            "statuses": [r.status for r, _, _ in results],
            "service_names": [r.service_name for r, _, _ in results],
            "service_versions": [r.service_version for r, _, _ in results],
            "statements_versions": [r.statements_version for r, _, _ in results],
            "metrics": [Jsonb(metrics) for _, _, metrics in results],
            "error_codes": [r.error_code for r, _, _ in results],
            "error_messages": [r.error_message for r, _, _ in results],
            "result_schema_versions": [r.result_schema_version for r, _, _ in results],
            "buckets": [ref.bucket if ref is not None else None for ref in refs],
            "keys": [ref.key if ref is not None else None for ref in refs],
            "raw_keys": [r.raw_key for r, _, _ in results],
            "msg_ids": [msg_id for _, msg_id, _ in results],
        }
        return await self._each(conn, "result", RESULT, params, [r.job_id for r, _, _ in results])

    async def timeout(self, conn: Connection) -> list[dict[str, Any]]:
        rows = await (await conn.execute(TIMEOUT)).fetchall()
        self._metrics.transitions.labels("timeout").inc(len(rows))
        return rows

    async def claim_unmapped(self, conn: Connection, limit: int) -> list[dict[str, Any]]:
        return await (await conn.execute(CLAIM_UNMAPPED, {"limit": limit})).fetchall()

    async def mapped(
        self, conn: Connection, jobs: Sequence[tuple[uuid.UUID, str | None]]
    ) -> list[uuid.UUID]:
        """Jobs whose documents were written, each with its result's group schema: mapped,
        their files ``RECOGNIZED`` or ``NEEDS_CHECK``."""
        params = {
            "ids": [job_id for job_id, _ in jobs],
            "group_schemas": [schema for _, schema in jobs],
        }
        rows, _ = await self._run(conn, "mapped", MAPPED, params, [job_id for job_id, _ in jobs])
        return [row["id"] for row in rows]

    async def mapping_failed(self, conn: Connection, job_id: uuid.UUID, reason: str) -> Outcome:
        params = {"job_id": job_id, "reason": reason}
        return await self._one(conn, "mapping_failed", MAPPING_FAILED, params, job_id)

    async def _one(
        self,
        conn: Connection,
        event: Event,
        statement: str,
        params: dict[str, Any],
        job_id: uuid.UUID,
    ) -> Outcome:
        return (await self._each(conn, event, statement, params, [job_id]))[job_id]

    async def _each(
        self,
        conn: Connection,
        event: Event,
        statement: str,
        params: dict[str, Any],
        job_ids: Sequence[uuid.UUID],
    ) -> dict[uuid.UUID, Outcome]:
        """What the statement did to each job: moved, missed in the state it was in, or no
        such job (None)."""
        rows, missed = await self._run(conn, event, statement, params, job_ids)
        outcomes: dict[uuid.UUID, Outcome] = dict.fromkeys(job_ids)
        for state in missed:
            outcomes[state.job_id] = state
        for row in rows:
            outcomes[row["id"]] = Moved(
                job_id=row["id"], attempt=row.get("attempt"), file_moved=row["file_moved"]
            )
        return outcomes

    async def _run(
        self,
        conn: Connection,
        event: Event,
        statement: str,
        params: dict[str, Any],
        expected: Sequence[uuid.UUID],
    ) -> tuple[list[dict[str, Any]], list[JobState]]:
        rows = await (await conn.execute(statement, params)).fetchall()
        self._metrics.transitions.labels(event).inc(len(rows))
        missed = set(expected) - {row["id"] for row in rows}
        if not missed:
            return rows, []
        return rows, await self._missed(conn, event, missed)

    async def _missed(
        self, conn: Connection, event: Event, job_ids: set[uuid.UUID]
    ) -> list[JobState]:
        self._metrics.transitions_missed.labels(event).inc(len(job_ids))
        rows = await (await conn.execute(ACTUAL_STATE, {"ids": list(job_ids)})).fetchall()
        states = [JobState.from_row(row) for row in rows]
        for state in states:
            log.info(
                "transition_missed",
                transition=event,
                job_id=str(state.job_id),
                file_id=str(state.file_id),
                attempt=state.attempt,
                job_status=state.status,
                file_status=state.file_status,
                current=state.current,
                mapped=state.mapped,
                republish_count=state.republish_count,
            )
        for job_id in job_ids - {state.job_id for state in states}:
            log.info("transition_missed", transition=event, job_id=str(job_id), job_status=None)
        return states


async def retry(conn: Connection, file_id: uuid.UUID, actor: str) -> dict[str, Any] | None:
    """A new attempt for a retryable file; ``None`` when the file is not retryable, which is
    an answer to the analyst (the caller says why), not a missed guard."""
    return await (await conn.execute(RETRY, {"file_id": file_id, "actor": actor})).fetchone()
