"""Chaos: hundreds (``CHAOS=long``: thousands) of files in flight through two arm-core and two
tabular-parser processes, and a stub image service, while nats-server restarts several
times and stalls (SIGSTOP) with every client connected, PostgreSQL crashes and restarts once
amid a burst of uploads, a parser (holding jobs) and a core are killed with SIGKILL and
replaced, files that ended ERROR are retried through the API, and envelopes seen on the
result subject are replayed duplicated, reordered and late (those of retried attempts too).

Once the system is quiet, the invariants of the exchange are checked over every job and file
and every violation is reported with its ids:

a. a job is final, or in flight with a reply_deadline still ahead;
b. a file is final, or its current job is in flight, or it can be retried; a final file
   agrees with its current job;
c. no file waits (UPLOADED, PROCESSING) behind a current job final for a mapping period;
d. no document is written twice: positions unique per job, one job's documents per file,
   the current one's;
e. no request goes on the wire after its job became final;
f. no job is republished more than OUTBOX_MAX_REPUBLISH times, no request id is on the wire
   more than 1 + OUTBOX_MAX_REPUBLISH times;
g. an upload that answered an error registered nothing: the stored files are the ones
   answered 201 (plus, perhaps, ones whose upload got no answer because its core died).

Results the tap saw delivered in time for jobs that then ended timeout or dlq are counted as
lost and reported, but do not fail the run: without JetStream nothing is redelivered, and the
design answers a lost result with the watchdog and a retry.

The processes are built in conftest.py; this module drives the load and the faults. The tap
runs in a thread of its own, so the times it records do not wait for this busy event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import nats
import psutil
import psycopg
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from psycopg.rows import dict_row

from arm_ka_platform.settings import PlatformSettings
from arm_ka_platform.storage import open_storage
from recognition_contract import (
    NATS_MSG_ID,
    ContractError,
    ErrorCode,
    FileType,
    S3Ref,
    ServiceInfo,
    parse_request,
    request_msg_id,
    result_key,
)
from recognition_corpus import generate, write_xlsx
from recognition_worker.dedupe import Outgoing
from recognition_worker.results import Envelopes, recognize_to_result
from recognition_worker.testing import scripted

REPLAY_HEADER = "Chaos-Replay"
IN_FLIGHT = ("queued", "published", "processing")
FINAL_JOB = ("done", "needs_check", "error", "timeout", "dlq")
RETRYABLE_JOB = ("timeout", "dlq", "error")
FINAL_FILE = ("RECOGNIZED", "NEEDS_CHECK", "ERROR")
# A core holds a job's row lock while it confirms a (re)publish with a flush round trip
# (NatsLink.publish_many, 2 s at most). A transaction that finishes the job meanwhile waits
# for the lock, and PostgreSQL stamps finished_at with that transaction's start: the request
# may reach the wire up to this long after finished_at while still published before the job
# became final. Later than that, it went out after.
PUBLISH_CONFIRM_SECONDS = 2.0
# A loaded 2-core machine (other test runs share it) may need this many times the settle
# time the settings promise before the system is quiet.
QUIET_SLACK = 2.0
POLL_SECONDS = 0.05
TAP_READY_SECONDS = 30.0


def _now() -> datetime:
    return datetime.now(UTC)


async def quiet_errors(exc: Exception) -> None:
    """Refused reconnects during an outage are the point of the exercise; nats-py would log
    each one with a traceback."""


# ---------------------------------------------------------------------------------------------
# What the wire carried


@dataclass(frozen=True)
class SeenRequest:
    at: datetime
    subject: str
    msg_id: str | None


@dataclass(frozen=True)
class SeenEnvelope:
    at: datetime
    msg_id: str | None
    data: bytes
    job_id: str
    status: str


class Tap:
    """Plain subscriptions (outside every queue group) on both request subjects and the
    result subject, in a thread with its own event loop, reconnecting faster than any
    process of the system so that it is back before they publish again."""

    def __init__(self, url: str, subjects: Any, reconnect_wait: float) -> None:
        self._url = url
        self._subjects = subjects
        self._reconnect_wait = reconnect_wait
        self.requests: list[SeenRequest] = []
        self.envelopes: list[SeenEnvelope] = []
        self.replays = 0
        self.unreadable = 0
        self.disconnects = 0
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="chaos-tap", daemon=True)

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(TAP_READY_SECONDS) or self.error is not None:
            raise RuntimeError(f"the tap did not start: {self.error!r}")

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(TAP_READY_SECONDS)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:
            self.error = exc
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()

        async def disconnected() -> None:
            self.disconnects += 1

        nc = await nats.connect(
            self._url,
            max_reconnect_attempts=-1,
            reconnect_time_wait=self._reconnect_wait,
            disconnected_cb=disconnected,
            error_cb=quiet_errors,
        )
        for subject in (self._subjects.tabular_request, self._subjects.image_request):
            await nc.subscribe(subject, cb=self._on_request)
        await nc.subscribe(self._subjects.result, cb=self._on_envelope)
        await nc.flush()
        self._ready.set()
        await self._stop.wait()
        await nc.close()

    async def _on_request(self, msg: Msg) -> None:
        headers = msg.headers or {}
        self.requests.append(SeenRequest(_now(), msg.subject, headers.get(NATS_MSG_ID)))

    async def _on_envelope(self, msg: Msg) -> None:
        at = _now()
        headers = msg.headers or {}
        if REPLAY_HEADER in headers:
            self.replays += 1
            return
        try:
            payload = json.loads(msg.data)
            seen = SeenEnvelope(
                at, headers.get(NATS_MSG_ID), msg.data, str(payload["job_id"]), payload["status"]
            )
        except (ValueError, KeyError, TypeError):
            self.unreadable += 1
            return
        self.envelopes.append(seen)


class Replayer:
    """Publishes copies of envelopes the tap saw, marked so that the tap does not count them
    as the services' own (the core does not look at the mark)."""

    def __init__(self, nc: NatsClient, subject: str) -> None:
        self._nc = nc
        self._subject = subject
        self.counts: Counter[str] = Counter()
        self.times: dict[str, list[float]] = defaultdict(list)

    async def replay(self, kind: str, envelopes: list[SeenEnvelope], at: float) -> None:
        for envelope in envelopes:
            headers = {REPLAY_HEADER: kind}
            if envelope.msg_id is not None:
                headers[NATS_MSG_ID] = envelope.msg_id
            await self._nc.publish(self._subject, envelope.data, headers=headers)
            self.counts[kind] += 1
        if envelopes:
            self.times[kind].append(at)


class StubImageService:
    """The image subject in scan-gateway's queue group, answered at once with an ack and a
    small valid result file in storage; on purpose some of its acks and results are dropped,
    doubled or sent in the wrong order, chosen per job by the job id."""

    BEHAVIOURS: tuple[tuple[str, int], ...] = (
        ("normal", 52),
        ("needs_check", 10),
        ("double", 8),  # every message twice
        ("no_ack", 6),  # the result alone
        ("result_first", 6),  # the result, then the ack
        ("error", 5),  # an error result
        ("no_result", 4),  # the ack alone: the watchdog's
        ("deaf_once", 4),  # the first delivery ignored, a republish answered
        ("deaf", 5),  # never answers: republished until dlq
    )

    def __init__(self, nc: NatsClient, settings: PlatformSettings, seed: int) -> None:
        self._nc = nc
        self._subjects = settings.subjects
        self._storage = open_storage(settings.storage)
        self._seed = seed
        self._envelopes = Envelopes(ServiceInfo(name="scan-gateway", version="0.0.1-chaos"), "2.0")
        self.deliveries: Counter[str] = Counter()
        self.behaviours: Counter[str] = Counter()
        self.sent: Counter[str] = Counter()
        self.failures: list[str] = []

    async def listen(self) -> None:
        await self._nc.subscribe(
            self._subjects.image_request, queue="scan-gateway", cb=self._on_request
        )
        await self._nc.flush()

    def behaviour(self, job_id: uuid.UUID) -> str:
        names, weights = zip(*self.BEHAVIOURS, strict=True)
        return random.Random(f"{self._seed}:{job_id}").choices(names, weights)[0]

    async def _on_request(self, msg: Msg) -> None:
        try:
            await self._answer(msg.data)
        except Exception as exc:  # a failing stub must show in the report, not kill the sub
            self.failures.append(f"{type(exc).__name__}: {exc}")

    async def _answer(self, data: bytes) -> None:
        try:
            request = parse_request(data)
        except ContractError as exc:
            self.failures.append(f"request refused: {exc}")
            return
        msg_id = request_msg_id(request.job_id, request.attempt)
        self.deliveries[msg_id] += 1
        delivery = self.deliveries[msg_id]
        behaviour = self.behaviour(request.job_id)
        if delivery == 1:
            self.behaviours[behaviour] += 1
        if behaviour == "deaf" or (behaviour == "deaf_once" and delivery == 1):
            return
        ids = {"job_id": request.job_id, "file_id": request.file_id, "attempt": request.attempt}
        ack = self._envelopes.ack(**ids)
        if behaviour == "error":
            final = self._envelopes.error(
                **ids, code=ErrorCode.RECOGNITION_FAILED, message="на изображении нет таблицы"
            )
        else:
            final = await self._result(
                request, "needs_check" if behaviour == "needs_check" else "ok"
            )
        plan = {
            "double": [ack, ack, final, final],
            "no_ack": [final],
            "result_first": [final, ack],
            "no_result": [ack],
        }.get(behaviour, [ack, final])
        for message in plan:
            await self._nc.publish(
                self._subjects.result, message.body, headers={NATS_MSG_ID: message.msg_id}
            )
            self.sent["ack" if message is ack else "result"] += 1

    async def _result(self, request: Any, command: str) -> Outgoing:
        result = recognize_to_result(
            scripted,
            FileType(request.file_type),
            command.encode(),
            request.original_name,
            job_id=request.job_id,
            file_id=request.file_id,
            service=self._envelopes.service,
            version=self._envelopes.version,
        )
        stored = await self._storage.put(result_key(request.file_id, request.job_id), result.body)
        return self._envelopes.outcome(
            job_id=request.job_id,
            file_id=request.file_id,
            attempt=request.attempt,
            result=result,
            location=S3Ref(bucket=stored.bucket, key=stored.key),
            metrics={},
        )


# ---------------------------------------------------------------------------------------------
# Faults and their record


@dataclass
class Fault:
    kind: str
    at: float
    until: float | None = None
    detail: str = ""


@dataclass
class Upload:
    name: str
    core: str
    status: int | None = None
    file_id: str | None = None
    code: str | None = None
    error: str | None = None


@dataclass
class Retry:
    file_id: str
    previous_job_id: str
    core: str
    status: int | None = None
    job_id: str | None = None
    code: str | None = None


@dataclass
class Record:
    """Everything the run did, for the summary and the checks."""

    started: float = field(default_factory=time.monotonic)
    started_at: datetime = field(default_factory=_now)
    faults: list[Fault] = field(default_factory=list)
    uploads: list[Upload] = field(default_factory=list)
    retries: list[Retry] = field(default_factory=list)

    def clock(self) -> float:
        return round(time.monotonic() - self.started, 2)

    def fault(self, kind: str, detail: str = "") -> Fault:
        entry = Fault(kind, self.clock(), detail=detail)
        self.faults.append(entry)
        return entry

    def cause(self, at: datetime) -> str:
        """The last fault begun before a moment of the run, to attribute what happened."""
        offset = (at - self.started_at).total_seconds()
        before = [f for f in self.faults if f.at <= offset and not f.kind.startswith("quiet")]
        return f"{before[-1].kind} at {before[-1].at}s" if before else "no fault yet"

    def window(self, kind: str) -> list[tuple[datetime, datetime]]:
        """When faults of a kind began and ended, on the wall clock."""
        return [
            (
                self.started_at + timedelta(seconds=f.at),
                self.started_at + timedelta(seconds=f.until),
            )
            for f in self.faults
            if f.kind == kind and f.until is not None
        ]

    def end(self, fault: Fault, detail: str | None = None) -> None:
        fault.until = self.clock()
        if detail is not None:
            fault.detail = detail


class ParserLog:
    """Follows a parser's JSON log: the jobs it has received and not finished."""

    FINISHED = ("job_recognised", "job_failed", "job_crashed", "request_expired")

    def __init__(self, path: Path) -> None:
        self._path = path
        self._offset = 0
        self._tail = ""
        self.received: set[str] = set()
        self.finished: set[str] = set()

    def in_flight(self) -> set[str]:
        if self._path.exists():
            with self._path.open(encoding="utf-8", errors="replace") as log:
                log.seek(self._offset)
                chunk = log.read()
                self._offset = log.tell()
            *lines, self._tail = (self._tail + chunk).split("\n")
            for line in lines:
                with contextlib.suppress(ValueError):
                    event = json.loads(line)
                    if event.get("event") == "request_received":
                        self.received.add(event.get("job_id"))
                    elif event.get("event") in self.FINISHED:
                        self.finished.add(event.get("job_id"))
        return self.received - self.finished


# ---------------------------------------------------------------------------------------------
# Files to upload


def tabular_files(directory: Path, seed: int) -> list[bytes]:
    """Small trial balances and statements that recognise as done or needs_check, and a few
    workbooks without a table, which end in an error (retried, they fail again)."""
    families = [
        "osv-by", "osv-ru", "osv-general-bp", "osv-general-erp", "osv-account",
        "statement-prior", "statement-belarusbank", "osv-broken-totals",
        "workbook-multisheet",
    ]  # fmt: skip
    layouts = generate(seed=seed, per_family=2, families=families)
    layouts += generate(seed=seed, per_family=1, families=["no-table"])
    files = []
    for layout in layouts:
        path = directory / f"{layout.name}.xlsx"
        write_xlsx(layout, path)
        files.append(path.read_bytes())
    return files


IMAGE_HEADS = {
    "png": b"\x89PNG\r\n\x1a\n",
    "jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
    "pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
}


def image_file(kind: str, index: int) -> bytes:
    return IMAGE_HEADS[kind] + f"chaos image {index}\n".encode() + b"\x00" * 64


# ---------------------------------------------------------------------------------------------
# The run


class Chaos:
    def __init__(self, cluster: Any, tmp_path: Path) -> None:
        self.cluster = cluster
        self.plan = cluster.plan
        self.timings = cluster.plan.timings
        self.tmp_path = tmp_path
        self.record = Record()
        self.rng = random.Random(self.plan.seed)
        self.settings = PlatformSettings(nats_url=cluster.nats.url, storage_url=cluster.storage_url)
        self.tap = Tap(cluster.nats.url, self.settings.subjects, reconnect_wait=POLL_SECONDS)
        self.http = httpx.AsyncClient(timeout=self.timings.reply_timeout)
        self.nc: NatsClient | None = None
        self.stub: StubImageService | None = None
        self.replayer: Replayer | None = None
        self.decided: set[tuple[str, str]] = set()
        self.recoveries: list[asyncio.Task[None]] = []
        self.replayed_upto = 0

    async def __aenter__(self) -> Chaos:
        self.tap.start()
        self.nc = await nats.connect(
            self.cluster.nats.url,
            max_reconnect_attempts=-1,
            reconnect_time_wait=POLL_SECONDS,
            error_cb=quiet_errors,
        )
        self.stub = StubImageService(self.nc, self.settings, self.plan.seed)
        await self.stub.listen()
        self.replayer = Replayer(self.nc, self.settings.subjects.result)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in self.recoveries:
            task.cancel()
        await asyncio.gather(*self.recoveries, return_exceptions=True)
        await self.http.aclose()
        if self.nc is not None:
            with contextlib.suppress(Exception):
                await self.nc.close()
        await asyncio.to_thread(self.tap.stop)

    # -- database ------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def db(self) -> AsyncIterator[Any]:
        async with await psycopg.AsyncConnection.connect(
            self.cluster.database_url, row_factory=dict_row, autocommit=True, connect_timeout=5
        ) as conn:
            yield conn

    async def rows(self, query: str, *params: Any) -> list[dict[str, Any]]:
        async with self.db() as conn:
            return await (await conn.execute(query, params)).fetchall()

    # -- load ----------------------------------------------------------------------------------

    def live_core(self, preferred: int) -> Any:
        cores = self.cluster.cores
        ordered = cores[preferred % len(cores) :] + cores[: preferred % len(cores)]
        return next((c for c in ordered if c.running()), ordered[0])

    async def upload_all(self) -> None:
        tabular = tabular_files(self.tmp_path, self.plan.seed)
        kinds = ["xlsx"] * self.plan.tabular_files + [
            ("png", "jpg", "pdf")[k % 3] for k in range(self.plan.image_files)
        ]
        self.rng.shuffle(kinds)
        gate = asyncio.Semaphore(self.plan.upload_concurrency)
        interval = self.plan.upload_seconds / len(kinds)

        async def one(index: int, kind: str) -> None:
            # Paced: the uploads span the fault schedule instead of arriving all at once.
            await asyncio.sleep(index * interval)
            content = tabular[index % len(tabular)] if kind == "xlsx" else image_file(kind, index)
            async with gate:
                await self.upload(index, f"chaos-{index:05d}.{kind}", content)

        await asyncio.gather(*(one(i, kind) for i, kind in enumerate(kinds)))

    async def upload(self, index: int, name: str, content: bytes) -> None:
        for turn in range(len(self.cluster.cores)):
            core = self.live_core(index + turn)
            entry = Upload(name=name, core=core.name)
            try:
                response = await self.http.post(
                    f"{core.url}/api/v1/files", files={"file": (name, content)}
                )
            except httpx.ConnectError as exc:
                # Nothing reached a core that is down: the next one gets the same file.
                entry.error = f"ConnectError: {exc}"
                self.record.uploads.append(entry)
                continue
            except httpx.HTTPError as exc:
                entry.error = f"{type(exc).__name__}: {exc}"
                self.record.uploads.append(entry)
                return
            entry.status = response.status_code
            with contextlib.suppress(ValueError, KeyError, TypeError):
                body = response.json()
                if response.status_code == 201:
                    entry.file_id = body["file_id"]
                else:
                    entry.code = body["error"]["code"]
            self.record.uploads.append(entry)
            return

    # -- retries -------------------------------------------------------------------------------

    async def retry_pass(self, share: float) -> int:
        """Retry a share of the files that ended ERROR and can be retried, each attempt
        considered once, through the API of a live core."""
        try:
            candidates = await self.rows(
                "SELECT f.id::text AS file_id, j.id::text AS job_id FROM stored_file f"
                " JOIN recognition_job j ON j.id = f.current_recognition_job_id"
                " WHERE f.status = 'ERROR' AND j.status = ANY(%s) AND j.attempt < j.max_attempts",
                list(RETRYABLE_JOB),
            )
        except psycopg.Error:
            return 0
        retried = 0
        for row in candidates:
            key = (row["file_id"], row["job_id"])
            if key in self.decided:
                continue
            self.decided.add(key)
            if self.rng.random() >= share:
                continue
            core = self.live_core(len(self.record.retries))
            entry = Retry(row["file_id"], row["job_id"], core.name)
            self.record.retries.append(entry)
            try:
                response = await self.http.post(f"{core.url}/api/v1/files/{row['file_id']}/retry")
            except httpx.HTTPError as exc:
                entry.code = type(exc).__name__
                continue
            entry.status = response.status_code
            with contextlib.suppress(ValueError, KeyError, TypeError):
                body = response.json()
                if response.status_code == 201:
                    entry.job_id = body["job_id"]
                    retried += 1
                else:
                    entry.code = body["error"]["code"]
        return retried

    async def keep_retrying(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.retry_pass(share=0.6)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.timings.ack_timeout)

    # -- replays -------------------------------------------------------------------------------

    async def replay_pass(self) -> None:
        """Copies of what the tap saw since the last pass: some duplicated at once, some
        result-then-ack pairs, and some envelopes older than a reply timeout sent late."""
        assert self.replayer is not None
        seen = self.tap.envelopes
        fresh = seen[self.replayed_upto :]
        self.replayed_upto += len(fresh)
        at = self.record.clock()
        duplicates = [e for e in fresh if self.rng.random() < 0.05]
        await self.replayer.replay("duplicate", duplicates, at)
        by_job: dict[str, list[SeenEnvelope]] = defaultdict(list)
        for envelope in fresh:
            by_job[envelope.job_id].append(envelope)
        for envelopes in by_job.values():
            if len(envelopes) >= 2 and self.rng.random() < 0.05:
                await self.replayer.replay("reordered", list(reversed(envelopes)), at)
        horizon = _now() - timedelta(seconds=self.timings.reply_timeout)
        old = [e for e in seen[: self.replayed_upto] if e.at < horizon]
        late = self.rng.sample(old, min(len(old), max(1, len(fresh) // 50))) if old else []
        await self.replayer.replay("late", late, at)

    async def keep_replaying(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.replay_pass()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.timings.ack_timeout / 2)

    async def replay_superseded(self) -> None:
        """Every envelope of the attempts that were retried, newest first: acks and results
        of jobs already final whose files have moved on."""
        assert self.replayer is not None
        superseded = {r.previous_job_id for r in self.record.retries if r.job_id is not None}
        envelopes = [e for e in self.tap.envelopes if e.job_id in superseded]
        await self.replayer.replay("superseded", list(reversed(envelopes)), self.record.clock())

    # -- faults --------------------------------------------------------------------------------

    async def restart_nats(self, number: int) -> None:
        crash = number % 2 == 1
        fault = self.record.fault("nats_restart", "SIGKILL" if crash else "SIGTERM")
        await asyncio.to_thread(self.cluster.nats.stop, kill=crash)
        await asyncio.sleep(self.plan.nats_outage)  # the outage itself, a fault parameter
        await asyncio.to_thread(self.cluster.nats.start)
        self.record.end(fault)

    def nats_clients(self) -> int:
        """Connections nats-server holds open (each process has one, and so do the tap and
        this test)."""
        pid = self.cluster.nats.pid
        if pid is None:
            return 0
        with contextlib.suppress(psutil.Error):
            return sum(
                1
                for c in psutil.Process(pid).net_connections("tcp")
                if c.status == psutil.CONN_ESTABLISHED and c.laddr.port == self.cluster.nats.port
            )
        return 0

    async def freeze_nats(self) -> None:
        """A stall with every client connected, so that their flushes time out on a live
        connection rather than fail on a closed one."""
        expected = sum(1 for s in self.cluster.services.values() if s.running()) + 2
        for _ in range(int(self.timings.reply_timeout / POLL_SECONDS)):
            if self.nats_clients() >= expected:
                break
            await asyncio.sleep(POLL_SECONDS)
        clients = self.nats_clients()
        fault = self.record.fault(
            "nats_freeze", f"SIGSTOP for {self.plan.nats_freeze}s with {clients} clients connected"
        )
        self.cluster.nats.pause()
        try:
            await asyncio.sleep(self.plan.nats_freeze)
        finally:
            self.cluster.nats.resume()
        self.record.end(fault)

    async def restart_postgres(self) -> None:
        burst = [
            asyncio.create_task(
                self.upload(k, f"chaos-burst-{k:03d}.png", image_file("png", 100_000 + k))
            )
            for k in range(self.plan.pg_burst)
        ]
        self.recoveries.extend(burst)
        # Once a quarter of the burst is answered, the rest is somewhere between storage and
        # its commit: that is when the server goes.
        with contextlib.suppress(TimeoutError):
            for answered, upload in enumerate(
                asyncio.as_completed(burst, timeout=self.timings.reply_timeout), start=1
            ):
                await upload
                if answered >= len(burst) // 4:
                    break
        fault = self.record.fault(
            "postgres_restart", f"pg_ctl stop -m immediate amid a burst of {len(burst)} uploads"
        )
        await asyncio.to_thread(self.cluster.postgres.stop, "immediate")
        await asyncio.sleep(self.plan.pg_outage)
        await asyncio.to_thread(self.cluster.postgres.start)
        self.record.end(fault)

    def replace_later(self, service: Any, outage: float, fault: Fault) -> None:
        """The replacement starts after the outage and becomes ready in the background, so
        that a slow start does not push the faults after it off their schedule."""

        async def replace() -> None:
            await asyncio.sleep(outage)
            service.start()
            await asyncio.to_thread(self.cluster.wait_ready, service)
            self.record.end(fault)

        self.recoveries.append(asyncio.create_task(replace(), name=f"replace {service.name}"))

    async def kill_parser(self, name: str) -> None:
        """SIGKILL while it holds jobs it acked and has not answered (found in its log)."""
        service = self.cluster.services[name]
        log = ParserLog(service.log)
        # A parser acks at once and answers within the reply timeout, so within one it holds
        # jobs in hand whenever requests keep coming.
        busy: set[str] = set()
        for _ in range(int(self.timings.reply_timeout / POLL_SECONDS)):
            if busy := log.in_flight():
                break
            await asyncio.sleep(POLL_SECONDS)
        service.kill()
        fault = self.record.fault(
            "parser_kill",
            f"{name}: SIGKILL with {len(busy)} jobs in hand {sorted(busy)[:3]};"
            f" replacement after {self.plan.parser_outage}s",
        )
        self.replace_later(service, self.plan.parser_outage, fault)

    async def kill_core(self, name: str) -> None:
        """SIGKILL in the middle of uploads and exchange; a replacement on the same port."""
        service = self.cluster.services[name]
        service.kill()
        fault = self.record.fault(
            "core_kill", f"{name}: SIGKILL; replacement after {self.plan.core_outage}s"
        )
        self.replace_later(service, self.plan.core_outage, fault)

    def schedule(self) -> list[tuple[float, Callable[[], Awaitable[None]]]]:
        """Faults at fractions of the upload time, one after the other."""
        steps: list[tuple[float, Callable[[], Awaitable[None]]]] = [
            (0.2, lambda: self.kill_parser("parser-1")),
            (0.4, self.restart_postgres),
            (0.6, lambda: self.kill_core("core-b")),
        ]
        restarts = self.plan.nats_restarts
        for k in range(restarts):
            steps.append((0.05 + 0.85 * (k + 0.5) / restarts, lambda k=k: self.restart_nats(k)))
        for k in range(self.plan.nats_freezes):
            steps.append((0.85 - 0.55 * k / self.plan.nats_freezes, self.freeze_nats))
        return sorted(steps, key=lambda step: step[0])

    async def run_faults(self) -> None:
        for fraction, step in self.schedule():
            delay = self.record.started + fraction * self.plan.upload_seconds - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            await step()
        await asyncio.gather(*self.recoveries)

    # -- quiet ---------------------------------------------------------------------------------

    async def busy(self) -> int | None:
        """Jobs in flight plus files the mapping loop can still claim; None while the
        database cannot be asked."""
        try:
            [row] = await self.rows(
                "SELECT (SELECT count(*) FROM recognition_job WHERE status = ANY(%s))"
                "     + (SELECT count(*) FROM recognition_job j JOIN stored_file f"
                "          ON f.current_recognition_job_id = j.id"
                "         WHERE j.status IN ('done', 'needs_check') AND j.mapped_at IS NULL"
                "           AND f.status = 'PROCESSING') AS busy",
                list(IN_FLIGHT),
            )
        except psycopg.Error:
            return None
        return int(row["busy"])

    async def wait_quiet(self, phase: str) -> float:
        """Until nothing is in flight and nothing is left to map, twice in a row a watchdog
        and a mapping period apart; at most the settle time the settings promise (with the
        slack of a loaded machine). Returns how long it took."""
        started = time.monotonic()
        bound = started + QUIET_SLACK * self.timings.settle
        hold = max(self.timings.mapping_period, self.timings.watchdog_period)
        quiet_since: float | None = None
        while time.monotonic() < bound:
            busy = await self.busy()
            if busy == 0 and self.cluster.all_up():
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since >= hold:
                    break
            else:
                quiet_since = None
            await asyncio.sleep(self.timings.mapping_period / 2)
        waited = round(time.monotonic() - started, 2)
        self.record.fault(
            f"quiet:{phase}", f"{waited}s (bound {QUIET_SLACK * self.timings.settle}s)"
        )
        return waited


# ---------------------------------------------------------------------------------------------
# Invariants


JOBS = """
SELECT j.id::text AS id, j.file_id::text AS file_id, j.attempt, j.max_attempts, j.status,
       j.reply_deadline, j.finished_at, j.mapped_at, j.request_msg_id, {republish} AS republishes
  FROM recognition_job j
"""

FILES = """
SELECT f.id::text AS id, f.original_name, f.status, f.error_code, f.mapping_error,
       f.current_recognition_job_id::text AS job_id, j.status AS job_status, j.attempt,
       j.max_attempts, j.finished_at, j.mapped_at
  FROM stored_file f
  LEFT JOIN recognition_job j ON j.id = f.current_recognition_job_id
"""


async def republish_column(conn: Any) -> str:
    """``republish_count`` is becoming a column of its own; until then it lives in metrics."""
    row = await (
        await conn.execute(
            "SELECT 1 FROM information_schema.columns"
            " WHERE table_name = 'recognition_job' AND column_name = 'republish_count'"
        )
    ).fetchone()
    if row is not None:
        return "coalesce(j.republish_count, 0)"
    return "coalesce((j.metrics ->> 'republish_count')::int, 0)"


def _ids(job: dict[str, Any]) -> str:
    return f"file {job['file_id']} job {job['id']} attempt {job['attempt']}"


async def check(chaos: Chaos) -> tuple[dict[str, list[str]], dict[str, Any]]:
    timings = chaos.timings
    violations: dict[str, list[str]] = {key: [] for key in "abcdefg"}
    async with chaos.db() as conn:
        now = (await (await conn.execute("SELECT now() AS now")).fetchone())["now"]
        column = await republish_column(conn)
        jobs = await (await conn.execute(JOBS.format(republish=column))).fetchall()
        files = await (await conn.execute(FILES)).fetchall()
        document_positions = await (
            await conn.execute(
                "SELECT job_id::text AS job_id, count(*) AS n, count(DISTINCT position) AS positions"
                "  FROM document GROUP BY job_id HAVING count(*) <> count(DISTINCT position)"
            )
        ).fetchall()
        document_jobs = await (
            await conn.execute(
                "SELECT d.file_id::text AS file_id, array_agg(DISTINCT d.job_id::text) AS jobs,"
                "       f.current_recognition_job_id::text AS current"
                "  FROM document d JOIN stored_file f ON f.id = d.file_id"
                " GROUP BY d.file_id, f.current_recognition_job_id"
            )
        ).fetchall()
        unmapped_documents = await (
            await conn.execute(
                "SELECT DISTINCT d.job_id::text AS job_id FROM document d"
                "  JOIN recognition_job j ON j.id = d.job_id WHERE j.mapped_at IS NULL"
            )
        ).fetchall()
    by_id = {job["id"]: job for job in jobs}

    # a. final, or in flight with its deadline ahead
    for job in jobs:
        if job["status"] in IN_FLIGHT and (
            job["reply_deadline"] is None or job["reply_deadline"] <= now
        ):
            violations["a"].append(
                f"{_ids(job)}: {job['status']} with reply_deadline {job['reply_deadline']}"
            )

    # b. final, in flight, or retryable; and a final file agrees with its current job
    agrees = {
        "RECOGNIZED": lambda f: f["job_status"] == "done" and f["mapped_at"] is not None,
        "NEEDS_CHECK": lambda f: f["job_status"] == "needs_check" and f["mapped_at"] is not None,
        "ERROR": lambda f: (
            f["job_status"] in RETRYABLE_JOB
            or (f["job_status"] in ("done", "needs_check") and f["mapping_error"] is not None)
        ),
    }
    mapping_grace = timedelta(seconds=timings.mapping_period)
    for file in files:
        where = f"file {file['id']} job {file['job_id']} attempt {file['attempt']}"
        state = f"{file['status']} behind {file['job_status']}"
        if file["status"] in FINAL_FILE:
            if not agrees[file["status"]](file):
                violations["b"].append(f"{where}: {state} (mapped_at {file['mapped_at']})")
        else:
            retryable = (
                file["job_status"] in RETRYABLE_JOB and file["attempt"] < file["max_attempts"]
            )
            if file["job_status"] not in IN_FLIGHT and not retryable:
                violations["b"].append(f"{where}: {state}, neither final, in flight nor retryable")
        # c. nobody moves a file on from behind a final job
        if (
            file["status"] in ("UPLOADED", "PROCESSING")
            and file["job_status"] in FINAL_JOB
            and file["finished_at"] is not None
            and file["finished_at"] < now - mapping_grace
        ):
            violations["c"].append(f"{where}: {state} since {file['finished_at']}")

    # d. documents written once
    for row in document_positions:
        violations["d"].append(
            f"job {row['job_id']}: {row['n']} documents on {row['positions']} positions"
        )
    for row in document_jobs:
        if len(row["jobs"]) > 1 or row["jobs"][0] != row["current"]:
            violations["d"].append(
                f"file {row['file_id']}: documents of jobs {sorted(row['jobs'])},"
                f" current job {row['current']}"
            )
    for row in unmapped_documents:
        violations["d"].append(f"job {row['job_id']}: documents although not mapped")

    # e. f. requests on the wire
    margin = timedelta(seconds=PUBLISH_CONFIRM_SECONDS)
    stalls = chaos.record.window("nats_freeze")

    def held_by_stall(finished: datetime, seen: datetime) -> bool:
        """A stalled server delivers at its resumption what clients handed it before: a job
        that became final during the stall had its requests handed over earlier, and they
        arrive only now. That is the stall's delay, not a publication after the end."""
        return any(
            start - margin <= finished <= end and seen <= end + margin for start, end in stalls
        )

    held: list[str] = []
    on_wire: dict[str, list[datetime]] = defaultdict(list)
    for request in list(chaos.tap.requests):
        if request.msg_id is not None:
            on_wire[request.msg_id].append(request.at)
    for job in jobs:
        if job["request_msg_id"] is None:
            continue
        seen = on_wire.get(job["request_msg_id"], [])
        finished = job["finished_at"]
        late = [t for t in seen if finished is not None and t > finished + margin]
        if late and all(held_by_stall(finished, t) for t in late):
            held.append(f"{_ids(job)}: {job['status']} at {finished}, delivered at the resumption")
        elif late:
            delays = ", ".join(f"+{(t - finished).total_seconds():.2f}s" for t in late)
            violations["e"].append(
                f"{_ids(job)}: {job['status']} at {finished}, request on the wire {delays}"
            )
        if job["republishes"] > timings.max_republish:
            violations["f"].append(
                f"{_ids(job)}: republished {job['republishes']} times"
                f" (OUTBOX_MAX_REPUBLISH {timings.max_republish})"
            )
        if len(seen) > 1 + timings.max_republish:
            violations["f"].append(
                f"{_ids(job)}: request {job['request_msg_id']} on the wire {len(seen)} times"
                f" (at most {1 + timings.max_republish}), republish count {job['republishes']}"
            )
    known_ids = {job["request_msg_id"] for job in jobs}
    for msg_id, seen in on_wire.items():
        if msg_id not in known_ids and len(seen) > 1 + timings.max_republish:
            violations["f"].append(f"request {msg_id}: on the wire {len(seen)} times")

    # g. what was registered is what was answered 201
    answers: dict[str, list[Upload]] = defaultdict(list)
    for upload in chaos.record.uploads:
        answers[upload.name].append(upload)
    created = {u.file_id for u in chaos.record.uploads if u.status == 201}
    stored = {file["id"]: file for file in files}
    unanswered_registered = []
    for file_id, file in stored.items():
        if file_id in created:
            continue
        tries = answers.get(file["original_name"], [])
        refused = [u for u in tries if u.status is not None]
        if refused:
            said = ", ".join(f"{u.status} {u.code} from {u.core}" for u in refused)
            violations["g"].append(
                f"file {file_id} ({file['original_name']}, {file['status']}): registered"
                f" although the upload answered {said}"
            )
        else:
            unanswered_registered.append(file_id)
    for file_id in sorted(created - stored.keys()):
        violations["g"].append(f"file {file_id}: answered 201 but not registered")

    # Lost results: delivered in time on the wire, and yet the job timed out or died.
    lost = []
    lost_after: Counter[str] = Counter()
    margin_lost = timedelta(seconds=timings.ack_timeout)
    delivered: dict[str, datetime] = {}
    for envelope in list(chaos.tap.envelopes):
        if envelope.status != "processing":
            delivered.setdefault(envelope.job_id, envelope.at)
    for job_id, at in delivered.items():
        job = by_id.get(job_id)
        if (
            job is not None
            and job["status"] in ("timeout", "dlq")
            and job["reply_deadline"] is not None
            and at < job["reply_deadline"] - margin_lost
        ):
            cause = chaos.record.cause(at)
            lost_after[cause.split(" at ")[0]] += 1
            lost.append(
                f"{_ids(job)}: result on the wire at {at} (after {cause}), job {job['status']}"
            )

    facts = {
        "now": now,
        "jobs": Counter(job["status"] for job in jobs),
        "files": Counter(file["status"] for file in files),
        "attempts": Counter(job["attempt"] for job in jobs),
        "republishes": Counter(job["republishes"] for job in jobs),
        "requests_on_wire": sum(len(v) for v in on_wire.values()),
        "registered_without_answer": unanswered_registered,
        "lost_results": lost,
        "lost_after": lost_after,
        "held_by_stall": held,
        "republish_source": column,
    }
    return violations, facts


INVARIANTS = {
    "a": "job neither final nor in flight with a future reply_deadline",
    "b": "file neither final, in flight nor retryable (or final against its current job)",
    "c": "file UPLOADED/PROCESSING behind a final current job after a mapping period",
    "d": "documents written twice",
    "e": "request on the wire after its job became final",
    "f": "republished more than OUTBOX_MAX_REPUBLISH / request id seen more than 1 + max times",
    "g": "upload answered an error yet registered the file (or 201 without a file)",
}


def summary_lines(
    chaos: Chaos, violations: dict[str, list[str]], facts: dict[str, Any], wall: float
) -> Iterator[str]:
    plan = chaos.plan
    record = chaos.record
    assert chaos.stub is not None and chaos.replayer is not None
    yield f"chaos {plan.form}: {wall:.1f}s wall, timings {plan.timings}"
    yield (
        f"uploads: {len(record.uploads)} requests for {plan.files + plan.pg_burst} files"
        f" ({plan.tabular_files} xlsx, {plan.image_files} png/jpg/pdf,"
        f" {plan.pg_burst} png at the PostgreSQL stop):"
        f" {dict(Counter(str(u.status or u.error.split(':')[0]) for u in record.uploads))}"
        f", codes {dict(Counter(u.code for u in record.uploads if u.code))}"
    )
    yield f"files: {dict(facts['files'])}"
    yield f"jobs: {dict(facts['jobs'])}, by attempt {dict(facts['attempts'])}"
    yield f"republish counts ({facts['republish_source']}): {dict(facts['republishes'])}"
    yield (
        f"retries: {len(record.retries)}:"
        f" {dict(Counter(str(r.status or r.code) for r in record.retries))}"
    )
    yield (
        f"wire: {facts['requests_on_wire']} requests, {len(chaos.tap.envelopes)} envelopes from"
        f" services, {chaos.tap.replays} replayed, tap disconnects {chaos.tap.disconnects}"
    )
    yield (
        f"stub image service: behaviours {dict(chaos.stub.behaviours)},"
        f" sent {dict(chaos.stub.sent)}, failures {len(chaos.stub.failures)}"
    )
    yield f"replays: {dict(chaos.replayer.counts)}"
    kinds = Counter(f.kind for f in record.faults if not f.kind.startswith("quiet"))
    yield f"faults: {dict(kinds)}"
    for fault in record.faults:
        span = f"{fault.at:7.2f}s" + (f" .. {fault.until:7.2f}s" if fault.until else "")
        yield f"  {span}  {fault.kind} {fault.detail}"
    yield (
        f"registered without an answer (core killed mid-upload):"
        f" {len(facts['registered_without_answer'])} {facts['registered_without_answer'][:5]}"
    )
    yield (
        f"requests of jobs final during a stall, delivered at its end (not counted in e):"
        f" {len(facts['held_by_stall'])}"
    )
    for line in facts["held_by_stall"][:3]:
        yield f"    {line}"
    yield (
        f"lost results (reported, not failing): {len(facts['lost_results'])},"
        f" by the fault before them {dict(facts['lost_after'])}"
    )
    for line in facts["lost_results"][:5]:
        yield f"    {line}"
    for key, title in INVARIANTS.items():
        yield f"violations {key} ({title}): {len(violations[key])}"
        for line in violations[key][:5]:
            yield f"    {line}"


def last_words(service: Any, count: int = 12) -> str:
    """How a process that stopped on its own ended: its exit code and last log lines."""
    code = service.child.process.returncode if service.child is not None else None
    lines = service.log.read_text(encoding="utf-8", errors="replace").splitlines()
    tail = "\n      ".join(line[:400] for line in lines[-count:])
    return f"{service.name} exited with {code}; its log ends:\n      {tail}"


def write_wire(chaos: Chaos, path: Path) -> None:
    """What the tap saw, one line per message, to follow a job's messages next to the logs."""
    with path.open("w", encoding="utf-8") as out:
        for request in list(chaos.tap.requests):
            line = {"at": request.at.isoformat(), "subject": request.subject}
            out.write(json.dumps({**line, "msg_id": request.msg_id}) + "\n")
        for envelope in list(chaos.tap.envelopes):
            line = {"at": envelope.at.isoformat(), "status": envelope.status}
            out.write(json.dumps({**line, "msg_id": envelope.msg_id}) + "\n")


async def test_files_survive_outages_kills_and_replayed_envelopes(
    cluster: Any, tmp_path: Path
) -> None:
    wall = time.monotonic()
    async with Chaos(cluster, tmp_path) as chaos:
        stop = asyncio.Event()
        helpers = [
            asyncio.create_task(chaos.keep_retrying(stop), name="retrier"),
            asyncio.create_task(chaos.keep_replaying(stop), name="replayer"),
        ]
        try:
            await asyncio.gather(chaos.upload_all(), chaos.run_faults())
            # Jobs whose answers died with a process or an outage time out; then the files
            # that ended ERROR get their last retries and the attempts they replace are
            # replayed, after which nothing more is done to the system.
            await chaos.wait_quiet("after uploads and faults")
        finally:
            stop.set()
            await asyncio.gather(*helpers, return_exceptions=True)
        await chaos.retry_pass(share=0.6)
        await chaos.replay_superseded()
        await chaos.replay_pass()
        await chaos.wait_quiet("after the last retries and replays")
        violations, facts = await check(chaos)
        if not cluster.all_up():
            down = [s for s in cluster.services.values() if not s.running()]
            violations.setdefault("processes", []).append(
                f"exited on their own: {[s.name for s in down]}"
            )
            # CI keeps only what the test prints: why each one stopped goes with the failure.
            violations["processes"] += [last_words(service) for service in down]
        wall = time.monotonic() - wall
        lines = list(summary_lines(chaos, violations, facts, wall))
        write_wire(chaos, cluster.log_dir / "wire.jsonl")
        if chaos.stub is not None and chaos.stub.failures:
            lines.append(f"stub failures: {chaos.stub.failures[:5]}")
    report = cluster.log_dir / "chaos-summary.txt"
    full = [*lines, "", "all violations:"]
    full += [f"{key}: {line}" for key, found in violations.items() for line in found]
    report.write_text("\n".join(full) + "\n", encoding="utf-8")
    print("\n" + "\n".join(lines) + f"\nsummary and every violation: {report}")
    print(f"every message the tap saw: {cluster.log_dir / 'wire.jsonl'}")
    counts = {key: len(found) for key, found in violations.items() if found}
    assert not counts, f"invariants violated {counts}:\n" + "\n".join(
        f"{key}: {line}" for key, found in violations.items() for line in found
    )
