"""The request loop every stateless recognition service runs.

For each request on the service's subject (queue group = service name):

1. parse it by the contract; off-contract requests are acked and answered ``SCHEMA_MISMATCH``
   when their ids can be read, logged otherwise;
2. a job this process already has is acked again and not recognised twice (a finished one
   also gets its outcome again, under the same ``Nats-Msg-Id``, which the core ignores if it
   has it already);
3. ack (``processing``) before anything touches storage;
4. a request past its ``reply_deadline`` is answered ``TIMEOUT`` once and not started;
5. otherwise, in a free slot: read the source, recognise it in a sandboxed child, write
   ``results/{file_id}/{job_id}/result.json``, then publish the outcome, retrying through NATS
   outages until the deadline.

Once subscribed (the subscription flushed to the server) the worker logs ``worker_ready``.

Stopping: the subscription is drained first, so the server hands new requests to the other
instances of the queue group at once while the requests already delivered here are still
taken; the jobs in flight then get ``shutdown_grace_seconds`` to finish and publish their
outcomes. Jobs still running after that are abandoned: logged (``job_abandoned``, with their
ids), their children killed, nothing published. They have been acked, so the core does not
publish them again; it times them out at their ``reply_deadline``, like the jobs of a service
that died, and the file can be retried.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Coroutine, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final
from uuid import UUID

import structlog
from nats.aio.msg import Msg

from arm_ka_platform.logging import get_logger
from arm_ka_platform.nats import NatsLink
from arm_ka_platform.storage import ObjectStorage, StorageUnavailable, open_storage
from recognition_contract import (
    MAX_MESSAGE_BYTES,
    NATS_MSG_ID,
    ContractError,
    ErrorCode,
    RecognitionRequest,
    S3Ref,
    ServiceInfo,
    UnknownMajor,
    decode_json,
    parse_request,
    raw_prefix,
    result_key,
)
from recognition_worker.dedupe import JobLedger, Outgoing
from recognition_worker.publisher import Publisher, seconds_until
from recognition_worker.recognition import RecognitionError, Recognizer
from recognition_worker.results import EncodedResult, Envelopes, recognize_to_result
from recognition_worker.sandbox import REAP_SECONDS, Sandbox
from recognition_worker.settings import WorkerSettings
from recognition_worker.source import read_source

log = get_logger(__name__)

# Where a malformed request has no readable deadline, its error is retried this long.
FALLBACK_PUBLISH_WINDOW: Final = timedelta(seconds=60)
WRITE_RETRY_SECONDS: Final = 0.5
# What a stop may take besides the grace period: draining the subscription (a round trip, and
# the delivered requests acked), reaping the children of abandoned jobs, closing NATS (its own
# drain is bounded by two seconds), and the interpreter's exit.
DRAIN_SECONDS: Final = 5.0
CLOSE_SECONDS: Final = 5.0


def stop_bound(grace: float) -> float:
    """The longest a stop with ``grace`` seconds for the jobs in flight takes."""
    return DRAIN_SECONDS + grace + REAP_SECONDS + CLOSE_SECONDS


# A 2.x service reads 1.x requests too: the request has the same fields in both MAJORs, and the
# core may still publish 1.0. A 1.x service knows nothing newer.
ACCEPTED_REQUEST_MAJORS: Final[Mapping[str, tuple[int, ...]]] = {"1.0": (1,), "2.0": (1, 2)}


@dataclass
class WorkerStats:
    """Counters of this process, for logs and tests."""

    requests: int = 0
    rejected: int = 0
    repeated: int = 0
    expired: int = 0
    started: int = 0
    succeeded: int = 0
    failed: int = 0
    abandoned: int = 0


@dataclass(frozen=True)
class JobIds:
    """Whom a task in flight answers for, to name it when it is abandoned."""

    job_id: UUID
    file_id: UUID
    attempt: int

    def fields(self) -> dict[str, object]:
        return {"job_id": str(self.job_id), "file_id": str(self.file_id), "attempt": self.attempt}


class Worker:
    def __init__(
        self,
        settings: WorkerSettings,
        recognizer: Recognizer,
        *,
        storage: ObjectStorage | None = None,
        nats: NatsLink | None = None,
    ) -> None:
        """``storage`` and ``nats`` default to the ones the settings describe; a link passed
        in must not be started yet: the worker subscribes, starts and closes it."""
        self.settings = settings
        self.recognizer = recognizer
        self.storage = storage if storage is not None else open_storage(settings.storage)
        self.nats = nats if nats is not None else NatsLink(settings.nats, name=recognizer.name)
        self.subject = settings.subjects.request_for(recognizer.pipeline.value)
        self.version = settings.contract_version
        self._majors = ACCEPTED_REQUEST_MAJORS[self.version]
        self.service = ServiceInfo(
            name=recognizer.name,
            version=recognizer.version,
            statements_version=recognizer.statements_version,
        )
        self._envelopes = Envelopes(self.service, self.version)
        self._publisher = Publisher(
            self.nats, settings.subjects.result, retry_seconds=settings.publish_retry_seconds
        )
        self._ledger = JobLedger(settings.dedupe_capacity)
        self._slots = asyncio.Semaphore(settings.worker_concurrency)
        self._sandbox = Sandbox(
            concurrency=settings.worker_concurrency,
            memory_bytes=settings.job_memory_bytes,
            preload=recognizer.preload,
            cyclic_gc=recognizer.cyclic_gc,
        )
        self._tasks: dict[asyncio.Task[object], JobIds] = {}
        self._announcer: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()
        """Set once the subscription is on the server (and ``worker_ready`` logged)."""
        self._stopping = False
        self.stats = WorkerStats()

    def __repr__(self) -> str:
        return f"Worker({self.recognizer.name!r}, subject={self.subject!r})"

    async def start(self) -> None:
        """Start the recognition forkserver, subscribe, connect (in the background)."""
        await asyncio.to_thread(self._sandbox.start)
        self.nats.subscribe(self.subject, self.recognizer.name, self._on_message)
        await self.nats.start()
        log.info(
            "worker_started",
            service=self.recognizer.name,
            version=self.recognizer.version,
            contract_version=self.version,
            subject=self.subject,
            result_subject=self.settings.subjects.result,
            concurrency=self.settings.worker_concurrency,
            storage=repr(self.storage),
        )
        self._announcer = asyncio.create_task(self._announce_ready(), name="worker-ready")

    async def _announce_ready(self) -> None:
        # The link is connected only once its subscriptions are flushed to the server: from
        # here on a request on the subject reaches this process (tests and operators wait for
        # this line rather than for a time).
        await self.nats.connected.wait()
        log.info("worker_ready", subject=self.subject, queue=self.recognizer.name)
        self.ready.set()

    async def stop(self, grace: float | None = None) -> None:
        """Take no more requests, let the jobs in flight finish and publish their outcomes
        for ``grace`` seconds (``shutdown_grace_seconds``), abandon the rest unanswered."""
        grace = self.settings.shutdown_grace_seconds if grace is None else grace
        log.info("worker_stopping", jobs=len(self._tasks), grace=grace)
        # New requests go to the other instances of the queue group from here on; those
        # already delivered to this process are still acked and taken.
        await self.nats.drain_subscriptions(DRAIN_SECONDS)
        self._stopping = True
        if self._announcer is not None:
            self._announcer.cancel()
        running = set(self._tasks)
        if running:
            log.info("worker_draining", jobs=len(running), grace=grace)
            _, pending = await asyncio.wait(running, timeout=grace)
            if pending:
                self.abandon(pending, reason="the grace period is over")
                for task in pending:
                    task.cancel()
                # A cancelled recognition waits for the kill of its child, within REAP_SECONDS.
                await asyncio.wait(pending, timeout=REAP_SECONDS + 1)
        self._sandbox.close()
        await self.nats.close()
        log.info("worker_stopped", **vars(self.stats))

    def abandon(self, tasks: Iterable[asyncio.Task[object]] | None = None, *, reason: str) -> None:
        """Log the jobs of ``tasks`` (default: every one in flight) as given up unanswered."""
        for task in list(self._tasks) if tasks is None else tasks:
            ids = self._tasks.get(task)
            if ids is None or task.done():
                continue
            self.stats.abandoned += 1
            log.warning("job_abandoned", reason=reason, **ids.fields())

    async def __aenter__(self) -> Worker:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def running_jobs(self) -> int:
        return len(self._tasks)

    @property
    def stopping(self) -> bool:
        return self._stopping

    async def _on_message(self, msg: Msg) -> None:
        """NATS callback: never raises, so the subscription never dies."""
        try:
            await self.receive(msg.data, msg.headers or {})
        except Exception:
            log.exception("request_handling_failed")

    async def receive(self, data: bytes, headers: Mapping[str, str]) -> None:
        """Handle one request body (the NATS callback's work, callable directly)."""
        if self._stopping:
            # Unacked, the request is published again by the core and taken by another instance.
            log.info("request_refused_stopping")
            return
        self.stats.requests += 1
        try:
            request = parse_request(data, majors=self._majors)
        except ContractError as exc:
            self.stats.rejected += 1
            await self._reject(data, headers, exc)
            return
        with structlog.contextvars.bound_contextvars(
            job_id=str(request.job_id), file_id=str(request.file_id), attempt=request.attempt
        ):
            await self._accept(request)

    async def _accept(self, request: RecognitionRequest) -> None:
        ack = self._envelopes.ack(request.job_id, request.file_id, request.attempt)
        known = self._ledger.claim(request.job_id)
        if known is not None:
            self.stats.repeated += 1
            log.info("request_repeated", running=known.running)
            await self._publisher.once(ack)
            if known.final is not None:
                await self._publisher.once(known.final)
            return
        log.info(
            "request_received",
            file_type=request.file_type.value,
            schema_version=request.schema_version,
            reply_deadline=request.reply_deadline.isoformat(),
        )
        await self._publisher.once(ack)
        if (
            request.pipeline != self.recognizer.pipeline
            or request.file_type not in self.recognizer.file_types
        ):
            message = self._unsupported(request)
            self._spawn(self._answer(request, ErrorCode.UNSUPPORTED_FORMAT, message), request)
            return
        if seconds_until(request.reply_deadline) <= 0:
            # The core has timed the job out or is about to: say why once, do not start.
            self.stats.expired += 1
            log.warning("request_expired")
            final = self._error(
                request, ErrorCode.TIMEOUT, "reply_deadline passed before the job started"
            )
            self._ledger.finish(request.job_id, final)
            await self._publisher.once(final)
            return
        self._spawn(self._run_job(request), request)

    def _unsupported(self, request: RecognitionRequest) -> str:
        types = ", ".join(sorted(t.value for t in self.recognizer.file_types))
        return (
            f"{self.recognizer.name} does not handle {request.pipeline.value} "
            f"{request.file_type.value} files (it reads {types})"
        )

    def _spawn(
        self, job: Coroutine[Any, Any, object], request: RecognitionRequest | JobIds
    ) -> None:
        # The task copies the bound context vars, so every line it logs names the job.
        task: asyncio.Task[object] = asyncio.create_task(job)
        self._tasks[task] = JobIds(request.job_id, request.file_id, request.attempt)
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[object]) -> None:
        self._tasks.pop(task, None)

    def _error(
        self, request: RecognitionRequest, code: ErrorCode, message: str, **metrics: int
    ) -> Outgoing:
        return self._envelopes.error(
            job_id=request.job_id,
            file_id=request.file_id,
            attempt=request.attempt,
            code=code,
            message=message,
            metrics=metrics,
        )

    async def _answer(self, request: RecognitionRequest, code: ErrorCode, message: str) -> None:
        log.warning("job_failed", code=code.value, error=message)
        final = self._error(request, code, message)
        self._ledger.finish(request.job_id, final)
        await self._publisher.until(final, request.reply_deadline)

    async def _run_job(self, request: RecognitionRequest) -> None:
        # Cancelled (a stop past its grace) it answers nothing: the file is fine, only this
        # process is going, and an error would tell the analyst otherwise.
        final = await self._produce(request)
        self._ledger.finish(request.job_id, final)
        await self._publisher.until(final, request.reply_deadline)

    async def _produce(self, request: RecognitionRequest) -> Outgoing:
        """The outcome envelope of a job; the result file is in storage before it exists."""
        started = time.monotonic()
        try:
            async with self._slots:
                started = time.monotonic()
                if seconds_until(request.reply_deadline) <= 0:
                    raise RecognitionError(
                        ErrorCode.TIMEOUT, "reply_deadline passed while the job waited for a slot"
                    )
                self.stats.started += 1
                source = await read_source(
                    self.storage,
                    request.s3,
                    max_bytes=self.settings.max_source_bytes,
                    deadline=request.reply_deadline,
                )
                log.info("source_read", key=request.s3.key, size=len(source))
                task = functools.partial(
                    recognize_to_result,
                    self.recognizer.recognize,
                    request.file_type,
                    source,
                    request.original_name,
                    job_id=request.job_id,
                    file_id=request.file_id,
                    service=self.service,
                    version=self.version,
                )
                del source
                timeout = min(
                    self.settings.job_timeout_seconds, seconds_until(request.reply_deadline)
                )
                result = await self._sandbox.run(task, timeout=max(timeout, 0.0))
                del task
                # Raw output first: once the result file exists, everything it refers to does.
                raw_key = await self._write_raw(request, result)
                location = await self._write_result(request, result)
        except RecognitionError as exc:
            self.stats.failed += 1
            duration = _ms_since(started)
            log.warning("job_failed", code=exc.code.value, error=exc.message, duration_ms=duration)
            return self._error(request, exc.code, exc.message, duration_ms=duration)
        except Exception as exc:
            self.stats.failed += 1
            log.exception("job_crashed")
            return self._error(
                request, ErrorCode.UNKNOWN_ERROR, f"internal error: {type(exc).__name__}"
            )
        self.stats.succeeded += 1
        duration = _ms_since(started)
        log.info(
            "job_recognised",
            status=result.status,
            duration_ms=duration,
            result_key=location.key,
            **result.metrics,
        )
        return self._envelopes.outcome(
            job_id=request.job_id,
            file_id=request.file_id,
            attempt=request.attempt,
            result=result,
            location=location,
            metrics={"duration_ms": duration},
            raw_key=raw_key,
        )

    async def _write_raw(self, request: RecognitionRequest, result: EncodedResult) -> str | None:
        """Store the raw output files; the key of the only one, or the prefix of several."""
        if not result.raw:
            return None
        prefix = raw_prefix(request.file_id, request.job_id)
        for name, body in result.raw:
            await self._put(request, prefix + name, body, what="raw")
        return prefix + result.raw[0][0] if len(result.raw) == 1 else prefix

    async def _put(self, request: RecognitionRequest, key: str, body: bytes, *, what: str) -> S3Ref:
        """Write one object, retrying while the store is away and the deadline allows;
        ``what`` (result, raw) names the log events."""
        while True:
            try:
                stored = await self.storage.put(key, body)
            except StorageUnavailable as exc:
                log.warning(f"{what}_write_failed", key=key, error=str(exc))
                if seconds_until(request.reply_deadline) <= WRITE_RETRY_SECONDS:
                    raise RecognitionError(
                        ErrorCode.UNKNOWN_ERROR, f"the {what} file could not be written to storage"
                    ) from None
                await asyncio.sleep(WRITE_RETRY_SECONDS)
                continue
            log.info(f"{what}_written", key=key, size=stored.size)
            return S3Ref(bucket=stored.bucket, key=stored.key)

    async def _write_result(self, request: RecognitionRequest, result: EncodedResult) -> S3Ref:
        return await self._put(
            request, result_key(request.file_id, request.job_id), result.body, what="result"
        )

    async def _reject(self, data: bytes, headers: Mapping[str, str], exc: ContractError) -> None:
        ids = readable_ids(data, headers)
        if ids is None:
            log.warning("request_unusable", reason=exc.reason.value, error=exc.message)
            return
        job_id, file_id, attempt, deadline = ids
        with structlog.contextvars.bound_contextvars(
            job_id=str(job_id), file_id=str(file_id), attempt=attempt
        ):
            log.warning(
                "request_schema_mismatch",
                reason=exc.reason.value,
                error=exc.message,
                unknown_major=isinstance(exc, UnknownMajor),
            )
            ack = self._envelopes.ack(job_id, file_id, attempt)
            known = self._ledger.claim(job_id)
            if known is not None:
                # The same job arrived well-formed before (or this one is repeated): keep
                # the first answer rather than contradict it.
                await self._publisher.once(ack)
                if known.final is not None:
                    await self._publisher.once(known.final)
                return
            final = self._envelopes.error(
                job_id=job_id,
                file_id=file_id,
                attempt=attempt,
                code=ErrorCode.SCHEMA_MISMATCH,
                message=exc.message,
            )
            self._ledger.finish(job_id, final)
            await self._publisher.once(ack)
            self._spawn(self._publisher.until(final, deadline), JobIds(job_id, file_id, attempt))


def readable_ids(
    data: bytes, headers: Mapping[str, str]
) -> tuple[UUID, UUID, int, datetime] | None:
    """job_id, file_id, attempt and deadline of a request that failed the schema, as far as
    they can be trusted; ``None`` when there is no job to answer for.

    attempt falls back to the request's ``Nats-Msg-Id`` (``<job_id>:<attempt>``), then to 1;
    the deadline to a short window from now.
    """
    try:
        payload = decode_json(data, max_bytes=MAX_MESSAGE_BYTES)
        job_id = UUID(str(payload["job_id"]))
        file_id = UUID(str(payload["file_id"]))
    except (ContractError, KeyError, ValueError, TypeError):
        return None
    attempt = payload.get("attempt")
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        attempt = _attempt_from_msg_id(headers.get(NATS_MSG_ID), job_id)
    deadline = _deadline(payload.get("reply_deadline"))
    return job_id, file_id, attempt, deadline


def _attempt_from_msg_id(msg_id: str | None, job_id: UUID) -> int:
    if msg_id:
        head, _, tail = msg_id.rpartition(":")
        try:
            if UUID(head) == job_id and tail.isdigit() and int(tail) >= 1:
                return int(tail)
        except ValueError:
            pass
    return 1


def _deadline(raw: object) -> datetime:
    fallback = datetime.now(UTC) + FALLBACK_PUBLISH_WINDOW
    if not isinstance(raw, str):
        return fallback
    try:
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return fallback
    if parsed.tzinfo is None:
        return fallback
    return parsed


def _ms_since(started: float) -> int:
    return max(0, int((time.monotonic() - started) * 1000))
