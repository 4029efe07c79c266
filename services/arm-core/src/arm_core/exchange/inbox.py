"""The inbox: acks and results from the recognition services, applied idempotently.

Every envelope is validated by the schema of its MAJOR at the boundary and becomes a typed
command, which one guarded transition applies (``arm_core.jobs.transitions``). An ack moves a
``published`` job to ``processing``. A result is applied once: a result for a job already final
(a duplicate, or a late answer of a timed-out or replaced attempt) misses the guard and is
logged. Results are never read here: ``done`` / ``needs_check`` leave the file to mapping.

Core NATS does not redeliver, so an envelope received while PostgreSQL is away is held in
memory and applied when the database returns. It is held for at most the reply timeout: by
then its job's deadline has passed (a deadline is at most that long after the publish, which
came before the answer), and the watchdog has made the job ``timeout`` anyway. Memory is
bounded by the workers' queues; when they are full the subscription stops being read and
NATS keeps what it can (see ``arm_ka_inbox_held``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from nats.aio.msg import Msg

from arm_core.db.pool import Pool, database_unavailable
from arm_core.exchange.commands import AckJob, ApplyResult
from arm_core.exchange.wire import UnusableMessage, command_from_message
from arm_core.jobs.transitions import FINAL, JobState, Moved, Outcome, Transitions
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from recognition_contract import result_msg_id, warnings_to_wire

log = get_logger(__name__)

Command = AckJob | ApplyResult
# Between tries while the database is away: short enough to apply the held envelopes within
# a moment of its return, long enough not to spin.
_RETRY_FIRST = 0.1
_RETRY_MAX = 1.0
# A try waits this long for a connection: while the database is away the pool has none to
# give, and a short wait lets the next try ask again (which is what makes the pool reconnect).
_CONNECT_TIMEOUT = 2.0


class Inbox:
    """Applies envelopes on a few worker tasks. Messages of one job always go to the same
    worker, so an ack and its result keep their order while different jobs commit in
    parallel; the bounded queues push back on the subscription when the database is slow."""

    def __init__(
        self,
        pool: Pool,
        metrics: Metrics,
        transitions: Transitions,
        *,
        hold_seconds: float,
        workers: int = 8,
        queue_size: int = 256,
    ) -> None:
        self._pool = pool
        self._metrics = metrics
        self._transitions = transitions
        self._hold_seconds = hold_seconds
        self.mapping_wakers: list[Callable[[], None]] = []
        self._queues: list[asyncio.Queue[tuple[Command, float] | None]] = [
            asyncio.Queue(maxsize=queue_size) for _ in range(workers)
        ]
        self._tasks: list[asyncio.Task[None]] = []
        self._held = 0

    @property
    def held(self) -> int:
        """Envelopes received and not applied yet."""
        return self._held

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._work(queue), name=f"inbox:{index}")
            for index, queue in enumerate(self._queues)
        ]

    async def stop(self, grace: float = 5.0) -> None:
        """Apply what was already received, then stop; what is still held after ``grace``
        is left to the jobs' deadlines."""
        for queue in self._queues:
            # A full queue (its worker held up by an absent database) gets no end marker:
            # waiting for room could outlast any grace; that worker is cancelled below.
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(None)
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=grace)
            for task in pending:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._held:
            log.warning("inbox_stopped_with_held", held=self._held)

    async def on_message(self, msg: Msg) -> None:
        """NATS callback: never raises, so the subscription never dies."""
        headers = msg.headers or {}
        try:
            command = command_from_message(msg.data, headers)
        except UnusableMessage as exc:
            outcome = "unknown_major" if exc.unknown_major else "bad"
            (self._metrics.results if exc.status != "processing" else self._metrics.acks).labels(
                outcome
            ).inc()
            log.warning("inbox_message_dropped", reason=exc.reason, outcome=outcome, **exc.ids)
            return
        hold_until = time.monotonic() + self._hold_seconds
        self._hold(1)
        if not self._tasks:
            try:
                await self.apply(command, hold_until)
            finally:
                self._hold(-1)
            return
        await self._queues[command.job_id.int % len(self._queues)].put((command, hold_until))

    def _hold(self, change: int) -> None:
        self._held += change
        self._metrics.inbox_held.set(self._held)

    async def _work(self, queue: asyncio.Queue[tuple[Command, float] | None]) -> None:
        while (item := await queue.get()) is not None:
            try:
                await self.apply(*item)
            finally:
                self._hold(-1)

    async def apply(self, command: Command, hold_until: float | None = None) -> None:
        """Apply one command, holding it while the database is away; never raises."""
        if hold_until is None:
            hold_until = time.monotonic() + self._hold_seconds
        ids = {"job_id": str(command.job_id), "file_id": str(command.file_id)}
        pause = _RETRY_FIRST
        tries = 0
        while True:
            tries += 1
            wait = max(0.05, min(_CONNECT_TIMEOUT, hold_until - time.monotonic()))
            try:
                if isinstance(command, AckJob):
                    await self.apply_ack(command, connect_timeout=wait)
                else:
                    await self.apply_result(command, connect_timeout=wait)
            except Exception as exc:
                if not database_unavailable(exc):
                    log.exception("inbox_message_failed", **ids)
                    return
                if time.monotonic() + pause > hold_until:
                    log.error("inbox_message_expired", tries=tries, **ids)
                    return
                self._metrics.inbox_retries.inc()
                if tries == 1:
                    log.warning("inbox_database_unavailable", error=type(exc).__name__, **ids)
                await asyncio.sleep(pause)
                pause = min(pause * 2, _RETRY_MAX)
            else:
                if tries > 1:
                    log.info("inbox_message_applied_after_outage", tries=tries, **ids)
                return

    async def apply_ack(self, ack: AckJob, *, connect_timeout: float = _CONNECT_TIMEOUT) -> str:
        async with self._pool.connection(timeout=connect_timeout) as conn:
            moved = await self._transitions.ack(conn, ack)
        outcome = _ack_outcome(moved, ack)
        ids = {"job_id": str(ack.job_id), "file_id": str(ack.file_id)}
        if isinstance(moved, Moved):
            log.info(
                "job_acked",
                attempt=moved.attempt,
                service=ack.service_name,
                file_processing=moved.file_moved,
                **ids,
            )
        elif outcome != "duplicate":
            (log.warning if outcome in ("unknown", "bad") else log.info)(
                f"ack_{outcome}",
                job_status=moved.status if moved else None,
                attempt=moved.attempt if moved else None,
                **ids,
            )
        self._metrics.acks.labels(outcome).inc()
        return outcome

    async def apply_result(
        self, result: ApplyResult, *, connect_timeout: float = _CONNECT_TIMEOUT
    ) -> str:
        ids = {"job_id": str(result.job_id), "file_id": str(result.file_id)}
        metrics = dict(result.metrics)
        metrics["warnings"] = warnings_to_wire(result.warnings, 2)
        if result.raw_key is not None:
            metrics["raw_s3_key"] = result.raw_key
        async with self._pool.connection(timeout=connect_timeout) as conn:
            moved = await self._transitions.result(
                conn, result, msg_id=result.msg_id, metrics=metrics
            )
        outcome = _result_outcome(moved, result)
        self._metrics.results.labels(outcome).inc()
        if not isinstance(moved, Moved):
            log_fn = log.debug if outcome == "duplicate" else log.warning
            log_fn(
                f"result_{outcome}",
                status=result.status,
                job_status=moved.status if moved else None,
                attempt=moved.attempt if moved else None,
                **ids,
            )
            return outcome
        log.info(
            "result_applied",
            status=result.status,
            attempt=moved.attempt,
            service=result.service_name,
            error_code=result.error_code,
            file_moved=moved.file_moved,
            **ids,
        )
        if result.status != "error":
            for wake in self.mapping_wakers:
                wake()
        return outcome


def _ack_outcome(moved: Outcome, ack: AckJob) -> str:
    if isinstance(moved, Moved):
        return "applied"
    if moved is None:
        return "unknown"
    if moved.file_id != ack.file_id:
        return "bad"
    if moved.status == "processing":
        return "duplicate"
    return "late" if moved.status in FINAL else "ignored"


def _result_outcome(moved: Outcome, result: ApplyResult) -> str:
    if isinstance(moved, Moved):
        return "applied"
    if moved is None:
        return "unknown"
    if moved.file_id != result.file_id:
        return "bad"
    if moved.result_msg_id is not None and moved.result_msg_id == _msg_id(result, moved):
        return "duplicate"
    return "late"


def _msg_id(result: ApplyResult, state: JobState) -> str:
    return result.msg_id or result_msg_id(result.job_id, state.attempt)
