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
from typing import Any
from uuid import UUID

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
# Envelopes applied in one transaction at most: a batch's statements grow with it.
BATCH = 500
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
        """Take what the queue holds, up to a batch, and apply it together."""
        while (item := await queue.get()) is not None:
            batch = [item]
            ended = False
            while len(batch) < BATCH:
                try:
                    more = queue.get_nowait()
                except asyncio.QueueEmpty:
                    break
                if more is None:
                    ended = True
                    break
                batch.append(more)
            try:
                await self.apply_batch(batch)
            finally:
                self._hold(-len(batch))
            if ended:
                return

    async def apply(self, command: Command, hold_until: float | None = None) -> None:
        """Apply one command, holding it while the database is away; never raises."""
        if hold_until is None:
            hold_until = time.monotonic() + self._hold_seconds
        await self.apply_batch([(command, hold_until)])

    async def apply_batch(self, batch: list[tuple[Command, float]]) -> None:
        """Apply commands together, each held while the database is away until its own
        ``hold_until``; never raises. A batch that fails for another reason is applied one
        command at a time, so that only the command at fault is lost (and logged)."""
        pending = batch
        pause = _RETRY_FIRST
        tries = 0
        while pending:
            tries += 1
            latest = max(hold_until for _, hold_until in pending)
            wait = max(0.05, min(_CONNECT_TIMEOUT, latest - time.monotonic()))
            try:
                await self._apply_all([command for command, _ in pending], connect_timeout=wait)
            except Exception as exc:
                if not database_unavailable(exc):
                    if len(pending) > 1:
                        for item in pending:
                            await self.apply_batch([item])
                    else:
                        log.exception("inbox_message_failed", **_ids(pending[0][0]))
                    return
                now = time.monotonic()
                for command, hold_until in pending:
                    if now + pause > hold_until:
                        log.error("inbox_message_expired", tries=tries, **_ids(command))
                pending = [
                    (c, hold_until) for c, hold_until in pending if now + pause <= hold_until
                ]
                if not pending:
                    return
                self._metrics.inbox_retries.inc()
                if tries == 1:
                    log.warning(
                        "inbox_database_unavailable",
                        error=type(exc).__name__,
                        messages=len(pending),
                        **_ids(pending[0][0]),
                    )
                await asyncio.sleep(pause)
                pause = min(pause * 2, _RETRY_MAX)
            else:
                if tries > 1:
                    log.info(
                        "inbox_messages_applied_after_outage", tries=tries, messages=len(pending)
                    )
                return

    async def _apply_all(
        self, commands: list[Command], *, connect_timeout: float = _CONNECT_TIMEOUT
    ) -> None:
        """In one transaction, round by round: a round holds at most one ack and one result
        of each job, its acks applied before its results (a service acks before it answers);
        a job's second message of a kind goes to the next round, after its first."""
        outcomes: list[tuple[Command, Outcome]] = []
        async with self._pool.connection(timeout=connect_timeout) as conn, conn.transaction():
            for acks, results in _rounds(commands):
                if acks:
                    moved = await self._transitions.acks(conn, acks)
                    outcomes += [(ack, moved[ack.job_id]) for ack in acks]
                if results:
                    applied = await self._transitions.results(
                        conn, [(r, r.msg_id, _recorded_metrics(r)) for r in results]
                    )
                    outcomes += [(result, applied[result.job_id]) for result in results]
        finished = False
        for command, outcome in outcomes:
            if isinstance(command, AckJob):
                self._acked(command, outcome)
            else:
                finished |= self._answered(command, outcome) and command.status != "error"
        if finished:
            for wake in self.mapping_wakers:
                wake()

    def _acked(self, ack: AckJob, moved: Outcome) -> str:
        outcome = _ack_outcome(moved, ack)
        ids = _ids(ack)
        if isinstance(moved, Moved):
            # The result's line follows at info; an ack's is for debugging.
            log.debug(
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

    def _answered(self, result: ApplyResult, moved: Outcome) -> bool:
        """Log and count a result's outcome; tell whether it applied."""
        ids = _ids(result)
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
            return False
        log.info(
            "result_applied",
            status=result.status,
            attempt=moved.attempt,
            service=result.service_name,
            error_code=result.error_code,
            file_moved=moved.file_moved,
            **ids,
        )
        return True


def _ids(command: Command) -> dict[str, str]:
    return {"job_id": str(command.job_id), "file_id": str(command.file_id)}


def _recorded_metrics(result: ApplyResult) -> dict[str, Any]:
    """What a result records in its job's ``metrics``: the service's figures, its warnings,
    the key of its raw output."""
    metrics = dict(result.metrics)
    metrics["warnings"] = warnings_to_wire(result.warnings, 2)
    if result.raw_key is not None:
        metrics["raw_s3_key"] = result.raw_key
    return metrics


def _rounds(commands: list[Command]) -> list[tuple[list[AckJob], list[ApplyResult]]]:
    rounds: list[tuple[list[AckJob], list[ApplyResult]]] = []
    seen: list[tuple[set[UUID], set[UUID]]] = []
    for command in commands:
        kind = 0 if isinstance(command, AckJob) else 1
        index = 0
        while index < len(rounds) and command.job_id in seen[index][kind]:
            index += 1
        if index == len(rounds):
            rounds.append(([], []))
            seen.append((set(), set()))
        seen[index][kind].add(command.job_id)
        if isinstance(command, AckJob):
            rounds[index][0].append(command)
        else:
            rounds[index][1].append(command)
    return rounds


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
