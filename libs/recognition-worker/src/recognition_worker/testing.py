"""Stand-in recognizers for tests of the worker and of services built on it.

They live in an importable module because a recognizer runs in a child process and is found
there by its qualified name. ``scripted`` reads the source as a one-line instruction, so a test
chooses the behaviour by the bytes it uploads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

import nats
from nats.aio.client import Client
from nats.aio.msg import Msg

from recognition_contract import (
    NATS_MSG_ID,
    ContractError,
    ErrorCode,
    FileType,
    Locator,
    Money,
    Pipeline,
    ResultEnvelope,
    Severity,
    TrialBalance,
    TrialBalanceRow,
    Warning,
    encode_json,
    parse_envelope,
)
from recognition_worker.recognition import Recognition, RecognitionError, Recognizer

if TYPE_CHECKING:
    from arm_ka_devstack.processes import WatchedProcess

# A worker acks within milliseconds; a request unanswered this long was lost on the way.
REPUBLISH_AFTER = 4.0


def osv_document(sheet: str = "ОСВ", *, warnings: Sequence[Warning] = ()) -> TrialBalance:
    """A minimal trial balance: one account row, no totals."""
    return TrialBalance(
        variant="general",
        title="Оборотно-сальдовая ведомость",
        organisation=None,
        period=None,
        currency="BYN",
        unit="units",
        account=None,
        rows=(
            TrialBalanceRow(
                id=1,
                parent=None,
                kind="account",
                level=0,
                code="01",
                name="Основные средства",
                opening_debit=Money("100.00"),
                opening_credit=None,
                turnover_debit=None,
                turnover_credit=None,
                closing_debit=Money("100.00"),
                closing_credit=None,
                confidence=99,
                locator=Locator(sheet=sheet, row=5),
            ),
        ),
        totals=None,
        confidence=99,
        locator=Locator(sheet=sheet, row=1, row_end=5),
        warnings=tuple(warnings),
    )


def scripted(file_type: FileType, source: bytes, original_name: str) -> Recognition:
    """``ok`` (or anything unknown): one document; ``needs_check``: one with a warning;
    ``sleep:<s>``: sleep, then ok; ``until:<path>``: wait until a file exists at ``path`` (the
    test creates it), then ok; ``hang``: spin forever; ``crash``: abort the process;
    ``alloc``: allocate without bound; ``error:<CODE>:<text>``: that error; ``off-schema``: a
    document the contract refuses; ``empty``: no documents; ``raise``: an unexpected bug;
    ``raw:<n>``: ok with ``n`` raw output files ``raw-<k>.json``."""
    command, _, arg = source.decode("utf-8", "replace").strip().partition(":")
    if command == "sleep":
        time.sleep(float(arg))
    elif command == "until":
        while not os.path.exists(arg):
            time.sleep(0.01)
    elif command == "hang":
        while True:
            pass
    elif command == "crash":
        os.abort()
    elif command == "alloc":
        hoard = []
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))
    elif command == "error":
        code, _, text = arg.partition(":")
        raise RecognitionError(ErrorCode(code), text or code)
    elif command == "off-schema":
        # A per-account trial balance that names no account.
        return Recognition(documents=[replace(osv_document(), variant="account")])
    elif command == "empty":
        return Recognition(documents=[])
    elif command == "raise":
        raise KeyError("a bug")
    elif command == "raw":
        files = {f"raw-{k}.json": json.dumps({"file": k}).encode() for k in range(int(arg))}
        return Recognition(documents=[osv_document()], raw=files)
    elif command == "needs_check":
        warning = Warning(
            code="BALANCE_MISMATCH",
            severity=Severity.WARNING,
            message="сальдо не сходится",
            locator=Locator(sheet="ОСВ", row=5),
        )
        return Recognition(
            documents=[osv_document(warnings=[warning])],
            status="needs_check",
            group_schema="BY-50-2011",
            warnings=[replace(warning, code="FILE_NOTE", severity=Severity.INFO)],
            metrics={"sheets": 1},
        )
    return Recognition(
        documents=[osv_document(sheet=original_name[:31] or "ОСВ")],
        group_schema="BY-50-2011",
        metrics={"sheets": 1},
    )


def scripted_recognizer(name: str = "tabular-parser") -> Recognizer:
    return Recognizer(
        name=name,
        version="0.0.1-test",
        pipeline=Pipeline.TABULAR,
        file_types=frozenset({FileType.XLS, FileType.XLSX, FileType.XLSB}),
        recognize=scripted,
        preload=("recognition_worker.testing",),
    )


def request_payload(
    *,
    job_id: UUID | None = None,
    file_id: UUID | None = None,
    key: str | None = None,
    bucket: str = "arm-ka",
    file_type: str = "XLSX",
    pipeline: str = "tabular",
    original_name: str = "osv.xlsx",
    attempt: int = 1,
    deadline_in: float = 30.0,
    schema_version: str = "1.0",
) -> dict[str, Any]:
    """A request as the core publishes it; edit the dict to break it."""
    job_id = job_id or uuid4()
    file_id = file_id or uuid4()
    deadline = datetime.now(UTC) + timedelta(seconds=deadline_in)
    return {
        "schema_version": schema_version,
        "job_id": str(job_id),
        "file_id": str(file_id),
        "pipeline": pipeline,
        "file_type": file_type,
        "original_name": original_name,
        "s3": {"bucket": bucket, "key": key or f"uploads/{file_id}/{original_name}"},
        "reply_deadline": deadline.isoformat().replace("+00:00", "Z"),
        "attempt": attempt,
    }


@dataclass(frozen=True)
class Received:
    """One envelope seen on the result subject, validated by its MAJOR's schema."""

    msg_id: str | None
    payload: dict[str, Any]
    envelope: ResultEnvelope

    @property
    def status(self) -> str:
        return self.envelope.status.value


class ResultCollector:
    """Listens on the result subject like the core does and keeps everything in order."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.invalid: list[tuple[bytes, str]] = []
        self.published: dict[UUID, tuple[str, bytes, str | None]] = {}
        self.republished: list[UUID] = []
        """Jobs whose request was published again because nothing at all came back."""
        self._nc: Client | None = None
        self._changed = asyncio.Condition()
        self.probe: Callable[[Received], Awaitable[None]] | None = None
        """Called as each envelope arrives, e.g. to look at storage at that moment."""

    async def start(self, url: str, subject: str, *, reconnect_wait: float = 0.05) -> None:
        """Subscribe; after an outage it resubscribes within ``reconnect_wait``. Core NATS
        keeps nothing for absent subscribers, so a test of an outage makes the collector
        come back before the publisher does."""
        self._nc = await nats.connect(
            url, max_reconnect_attempts=-1, reconnect_time_wait=reconnect_wait
        )
        await self._nc.subscribe(subject, cb=self._on_message)
        await self._nc.flush()

    async def publish(
        self, subject: str, payload: dict[str, Any] | bytes, msg_id: str | None = None
    ) -> None:
        assert self._nc is not None, "start() first"
        body = payload if isinstance(payload, bytes) else encode_json(payload)
        if msg_id is None and isinstance(payload, dict):
            with contextlib.suppress(KeyError, TypeError, ValueError):
                msg_id = f"{UUID(str(payload['job_id']))}:{int(payload['attempt'])}"
                self.published[UUID(str(payload["job_id"]))] = (subject, body, msg_id)
        await self._send(subject, body, msg_id)

    async def _send(self, subject: str, body: bytes, msg_id: str | None) -> None:
        assert self._nc is not None, "start() first"
        await self._nc.publish(subject, body, headers={NATS_MSG_ID: msg_id} if msg_id else None)
        await self._nc.flush()

    async def close(self) -> None:
        if self._nc is not None:
            await self._nc.close()

    async def _on_message(self, msg: Msg) -> None:
        try:
            envelope = parse_envelope(msg.data)
        except ContractError as exc:
            self.invalid.append((msg.data, exc.message))
        else:
            headers = msg.headers or {}
            received = Received(headers.get(NATS_MSG_ID), json.loads(msg.data), envelope)
            if self.probe is not None:
                await self.probe(received)
            self.received.append(received)
        async with self._changed:
            self._changed.notify_all()

    def for_job(self, job_id: UUID | str) -> list[Received]:
        wanted = UUID(str(job_id))
        return [r for r in self.received if r.envelope.job_id == wanted]

    async def wait_for(
        self,
        job_id: UUID | str,
        count: int = 2,
        timeout: float = 10.0,
        republish_after: float = REPUBLISH_AFTER,
    ) -> list[Received]:
        """The first ``count`` envelopes of a job (ack and outcome by default). A request this
        collector published that nothing at all answered within ``republish_after`` is
        published once more, as the core's republisher does: core NATS delivers at most once,
        and a test of the worker is not a test of the transport."""

        async def enough() -> list[Received]:
            async with self._changed:
                await self._changed.wait_for(lambda: len(self.for_job(job_id)) >= count)
            return self.for_job(job_id)

        async def republish_unanswered() -> None:
            await asyncio.sleep(republish_after)
            sent = self.published.get(UUID(str(job_id)))
            if sent is not None and not self.for_job(job_id):
                self.republished.append(UUID(str(job_id)))
                print(f"collector: nothing for job {job_id} in {republish_after} s, republished")
                await self._send(*sent)

        guard = asyncio.create_task(republish_unanswered())
        try:
            return await asyncio.wait_for(enough(), timeout)

        except TimeoutError:
            seen = [(r.status, r.msg_id) for r in self.for_job(job_id)]
            invalid = [reason for _, reason in self.invalid]
            raise AssertionError(
                f"job {job_id}: {count} envelopes expected, got {seen}"
                + (f"; envelopes off the contract: {invalid}" if invalid else "")
            ) from None
        finally:
            guard.cancel()


async def eventually(predicate: Callable[[], object], what: str, timeout: float = 15.0) -> None:
    """Wait until ``predicate()`` holds (checked every few milliseconds); fail naming
    ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not so within {timeout} s")
        await asyncio.sleep(0.01)


async def wait_logged(
    logs: list[dict[str, Any]], event: str, msg_id: str, timeout: float = 15.0
) -> dict[str, Any]:
    """The first captured log event ``event`` about ``msg_id`` (see
    ``structlog.testing.capture_logs``), waiting for it up to ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        for entry in logs:
            if entry.get("event") == event and entry.get("msg_id") == msg_id:
                return entry
        if time.monotonic() > deadline:
            raise AssertionError(f"no {event} for {msg_id} within {timeout} s")
        await asyncio.sleep(0.05)


async def outcome_after_outage(
    collector: ResultCollector,
    request_subject: str,
    request: dict[str, Any],
    timeout: float = 15.0,
) -> Received:
    """The outcome envelope of ``request`` once NATS is back.

    Core NATS keeps nothing for a subscriber that is not connected: if the service came back
    first, its outcome went to nobody. The core then republishes the request (no result by the
    deadline is what it sees); the service answers a repeated request with the outcome it
    keeps. Either way the same envelope, with the same Nats-Msg-Id, reaches the core.
    """

    def outcome() -> Received | None:
        return next(
            (r for r in collector.for_job(request["job_id"]) if r.status != "processing"), None
        )

    deadline = time.monotonic() + timeout
    while (found := outcome()) is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"job {request['job_id']}: no outcome after the outage")
        await asyncio.sleep(0.5)
        if outcome() is None:
            await collector.publish(request_subject, request)
    return found


def service_env(
    nats_url: str, subjects: dict[str, str], storage: dict[str, Any], **settings: object
) -> dict[str, str]:
    """The environment of a service command run by a test: this one without its OpenBao
    secrets, plus the test's NATS, subjects (``subjects`` fixture), storage
    (``storage_settings`` fixture), JSON logs and ``settings`` (lower-case names)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBAO__")}
    env["NATS_URL"] = nats_url
    env["LOG_JSON"] = "true"
    for name, subject in subjects.items():
        env[f"OPENBAO__NATS__{name.upper()}"] = subject
    for name, value in storage.items():
        if name == "openbao":
            for key, secret in value.get("s3", {}).items():
                env[f"OPENBAO__S3__{key.upper()}"] = str(secret)
        else:
            env[name.upper()] = str(value)
    env.update({name.upper(): str(value) for name, value in settings.items()})
    return env


def in_flight(service: WatchedProcess) -> set[str]:
    """Jobs a service process has logged as received and not yet as finished."""
    received = {e["job_id"] for e in service.find("request_received")}
    finished = {e["job_id"] for e in service.find("job_recognised") + service.find("job_failed")}
    return received - finished


async def load_until_busy(
    collector: ResultCollector,
    subject: str,
    request: Callable[[], dict[str, Any]],
    target: WatchedProcess,
    *,
    jobs: int,
    services: Sequence[WatchedProcess] = (),
    most: int = 100,
) -> list[dict[str, Any]]:
    """Publish requests made by ``request()`` one at a time until ``target`` holds at least
    ``jobs`` it has not finished (the queue group may hand some to the other ``services``);
    the requests published, each acked and logged as received by one of them."""
    everyone = [target, *services]
    sent: list[dict[str, Any]] = []
    while len(in_flight(target)) < jobs:
        if len(sent) >= most:
            raise AssertionError(f"{target.name} never held {jobs} jobs in {most} requests")
        payload = request()
        await collector.publish(subject, payload)
        await collector.wait_for(payload["job_id"], count=1, timeout=30)
        # The service logs request_received before it acks, so the line is on its way.
        job_id = payload["job_id"]
        await eventually(
            functools.partial(_received_by_any, everyone, job_id),
            f"job {job_id} logged as received",
        )
        sent.append(payload)
    return sent


def _received_by_any(services: Sequence[WatchedProcess], job_id: str) -> bool:
    return any(s.find("request_received", job_id=job_id) for s in services)
