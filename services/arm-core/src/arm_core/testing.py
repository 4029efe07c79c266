"""Pytest fixtures for arm-core against real infrastructure (a pytest11 plugin).

The schema is migrated once into a template database; every test gets a fresh clone, which
PostgreSQL makes in tens of milliseconds. ``core_settings`` uses short timings so exchange
scenarios run in fractions of a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import nats
import psycopg
import pytest
import uvicorn
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from psycopg.rows import dict_row

from arm_core.app import create_app
from arm_core.cli import STOP_BOUND_SECONDS, http_config
from arm_core.db.ids import new_id
from arm_core.db.migrate import upgrade
from arm_core.settings import CoreSettings
from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.postgres import EmbeddedPostgres
from arm_ka_devstack.processes import free_port
from arm_ka_platform.settings import Subjects
from arm_ka_platform.storage import open_storage
from recognition_contract import (
    NATS_MSG_ID,
    ResultEnvelope,
    ServiceInfo,
    Status,
    ack_msg_id,
    contracts_dir,
    dump_envelope,
    result_key,
    result_msg_id,
)

TEMPLATE = "arm_ka_template"


def _bulk_files(status: str) -> str:
    """``%(n)s`` objects and their files in ``status``, each naming its future job's id."""
    return f"""
WITH o AS (
    INSERT INTO s3_object (bucket, key, bucket_role, created_by)
    SELECT 'arm-ka', 'uploads/' || uuid_v7(), 'uploads', 'bench'
      FROM generate_series(1, %(n)s)
    RETURNING id
), f AS (
    INSERT INTO stored_file (id, original_name, file_type, s3_object_id,
                             current_recognition_job_id, status)
    SELECT uuid_v7(), 'osv.xlsx', 'XLSX', id, uuid_v7(), '{status}' FROM o
    RETURNING id, current_recognition_job_id
)"""


# Files in bulk, for benches and for tests of how the cost grows with history (``%(n)s``).
# Files just uploaded, each with its queued job as its current one:
QUEUED_FILES = f"""{_bulk_files("UPLOADED")}
INSERT INTO recognition_job (id, file_id, pipeline, attempt, max_attempts, status)
SELECT current_recognition_job_id, id, 'tabular', 1, 3, 'queued' FROM f
"""
# Files recognised long ago, with their mapped jobs and a document each:
RECOGNISED_FILES = f"""{_bulk_files("RECOGNIZED")}, j AS (
    INSERT INTO recognition_job (id, file_id, pipeline, attempt, max_attempts, status,
                                 published_at, started_at, finished_at, mapped_at,
                                 group_schema)
    SELECT current_recognition_job_id, id, 'tabular', 1, 3, 'done',
           now(), now(), now(), now(), 'osv-general'
      FROM f
    RETURNING id, file_id
)
INSERT INTO document (id, job_id, file_id, position, kind, variant, confidence, warnings, locator)
SELECT uuid_v7(), j.id, j.file_id, 1, 'osv', 'general', 99, '[]', '{{}}' FROM j
"""


@pytest.fixture(scope="session")
def migrated_template(postgres: EmbeddedPostgres) -> str:
    postgres.drop_database(TEMPLATE)
    upgrade(postgres.ensure_database(TEMPLATE))
    return TEMPLATE


@pytest.fixture
def database_url(postgres: EmbeddedPostgres, migrated_template: str) -> Iterator[str]:
    name = f"test_{uuid.uuid4().hex[:16]}"
    url = postgres.ensure_database(name, template=migrated_template)
    try:
        yield url
    finally:
        postgres.drop_database(name)


@pytest.fixture
def storage_url(tmp_path: Path) -> str:
    return f"file://{tmp_path / 'storage'}"


@pytest.fixture
def make_core_settings(
    database_url: str, nats_server: NatsServer, storage_url: str
) -> Callable[..., CoreSettings]:
    """Settings for a core under test; keyword arguments override any field."""

    def make(**overrides: Any) -> CoreSettings:
        values: dict[str, Any] = {
            "database_url": database_url,
            "nats_url": nats_server.url,
            "storage_url": storage_url,
            "outbox_poll_seconds": 0.2,
            "ack_timeout_seconds": 1.0,
            "reply_timeout_seconds": 10.0,
            "watchdog_period_seconds": 0.2,
            "mapping_period_seconds": 0.2,
            "http_port": free_port(),
            "log_json": True,
            # The development identity unless a test configures sign-in.
            "debug": True,
            # Behind a proxy (when a test sets AUTH_USER_HEADER): the tests' own client.
            "auth_trusted_proxies": ["127.0.0.1"],
        }
        values.update(overrides)
        return CoreSettings(**values)

    return make


def runtime_of_server(server: uvicorn.Server) -> Any:
    """The runtime of the core ``server`` serves (under whatever middleware uvicorn added)."""
    app = server.config.loaded_app
    while not hasattr(app, "state"):
        app = app.app
    return app.state.runtime


@dataclass
class RunningCore:
    settings: CoreSettings
    url: str
    client: httpx.AsyncClient
    server: uvicorn.Server

    @property
    def runtime(self) -> Any:
        return runtime_of_server(self.server)


@contextlib.asynccontextmanager
async def serving(app: Any, port: int, *, name: str) -> AsyncIterator[uvicorn.Server]:
    """``app`` served by uvicorn on loopback inside the test's event loop, once it listens."""
    config = http_config(app, host="127.0.0.1", port=port, lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(), name=name)
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError(f"{name} stopped while starting")
            await asyncio.sleep(0.02)
        yield server
    finally:
        server.should_exit = True
        # The core bounds its own stop; a busy machine may need all of it.
        await asyncio.wait_for(task, timeout=STOP_BOUND_SECONDS + 5)


@contextlib.asynccontextmanager
async def run_core(
    settings: CoreSettings, *, wait_for_nats: bool = True
) -> AsyncIterator[RunningCore]:
    """arm-core served by uvicorn on a real port inside the test's event loop; with NATS
    enabled, once its result subscription is in place (unless ``wait_for_nats`` is false, for
    a test that starts it while NATS is away)."""
    async with serving(create_app(settings), settings.http_port, name="arm-core") as server:
        url = f"http://127.0.0.1:{settings.http_port}"
        if settings.nats_enabled and wait_for_nats:
            nats_link = runtime_of_server(server).nats
            assert await nats_link.wait_connected(60), "arm-core never subscribed"
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            yield RunningCore(settings=settings, url=url, client=client, server=server)


def stored_objects(settings: CoreSettings) -> list[Path]:
    """The objects of a ``file://`` store, to show that nothing was left behind."""
    root = Path(settings.storage_url.removeprefix("file://")) / settings.storage_bucket
    return [path for path in root.rglob("*") if path.is_file()]


async def wait_for_files(dsn: str, file_ids: list[uuid.UUID], *statuses: str) -> None:
    """Until every one of ``file_ids`` is in one of ``statuses`` (mapped, say)."""

    async def reached() -> bool:
        row = await fetch_one(
            dsn,
            "SELECT count(*) AS n FROM stored_file WHERE id = ANY(%s) AND status = ANY(%s)",
            file_ids,
            list(statuses),
        )
        return row is not None and row["n"] == len(file_ids)

    await wait_until(reached)


async def wait_until(
    predicate: Callable[[], Awaitable[Any]], timeout: float = 10.0, interval: float = 0.05
) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail the test after ``timeout``."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = await predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"condition not met within {timeout}s (last value {value!r})")
        await asyncio.sleep(interval)


async def mapped_file(
    settings: CoreSettings,
    example: str,
    edit: Callable[[dict[str, Any]], None] | None = None,
    **file: Any,
) -> uuid.UUID:
    """A file whose current job finished with the contract ``example`` (changed by ``edit``)
    as its result file, for the core's mapping to take (``file``: as for
    ``insert_file_with_job``)."""
    dsn = settings.database_dsn
    file_id, job_id = await insert_file_with_job(dsn, status="processing", **file)
    data = json.loads((contracts_dir() / "examples" / example).read_text())
    data.update(job_id=str(job_id), file_id=str(file_id))
    if edit is not None:
        edit(data)
    key = result_key(file_id, job_id)
    await open_storage(settings.storage).put(key, json.dumps(data).encode())
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute("UPDATE stored_file SET status = 'PROCESSING' WHERE id = %s", (file_id,))
        object_id = (
            await (
                await conn.execute(
                    "INSERT INTO s3_object (bucket, key, bucket_role, created_by)"
                    " VALUES ('arm-ka', %s, 'results', 'tabular-parser') RETURNING id",
                    (key,),
                )
            ).fetchone()
        )[0]  # type: ignore[index]
        await conn.execute(
            "UPDATE recognition_job SET status = %s, finished_at = now(),"
            " result_s3_object_id = %s, result_schema_version = %s WHERE id = %s",
            (data["status"], object_id, data["schema_version"], job_id),
        )
    return file_id


async def insert_file_with_job(
    dsn: str,
    *,
    file_type: str = "XLSX",
    pipeline: str = "tabular",
    status: str = "queued",
    attempt: int = 1,
    max_attempts: int = 3,
    original_name: str = "ОСВ РБ 2024.xlsx",
    uploaded_by: str = "test",
    consolidation_id: uuid.UUID | str | None = None,
) -> tuple[uuid.UUID, uuid.UUID]:
    """A stored file and its current recognition job, written straight to the database."""
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=False) as conn:
        file_id = new_id()
        job_id = new_id()
        key = f"uploads/{file_id}/source"
        object_id = (
            await (
                await conn.execute(
                    "INSERT INTO s3_object (bucket, key, bucket_role, size, created_by)"
                    " VALUES ('arm-ka', %s, 'uploads', 1024, %s) RETURNING id",
                    (key, uploaded_by),
                )
            ).fetchone()
        )[0]  # type: ignore[index]
        await conn.execute(
            "INSERT INTO stored_file (id, original_name, file_type, s3_object_id, status,"
            " current_recognition_job_id, consolidation_id)"
            " VALUES (%s, %s, %s, %s, 'UPLOADED', %s, %s)",
            (file_id, original_name, file_type, object_id, job_id, consolidation_id),
        )
        await conn.execute(
            "INSERT INTO recognition_job (id, file_id, pipeline, attempt, max_attempts, status)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (job_id, file_id, pipeline, attempt, max_attempts, status),
        )
        await conn.commit()
    return file_id, job_id


async def fetch_one(dsn: str, query: str, *params: Any) -> dict[str, Any] | None:
    async with await psycopg.AsyncConnection.connect(dsn, row_factory=dict_row) as conn:
        return await (await conn.execute(query, params)).fetchone()


async def job_row(dsn: str, job_id: uuid.UUID) -> dict[str, Any]:
    row = await fetch_one(dsn, "SELECT * FROM recognition_job WHERE id = %s", job_id)
    assert row is not None, f"job {job_id} not found"
    return row


async def file_row(dsn: str, file_id: uuid.UUID) -> dict[str, Any]:
    row = await fetch_one(dsn, "SELECT * FROM stored_file WHERE id = %s", file_id)
    assert row is not None, f"file {file_id} not found"
    return row


class StubService:
    """A recognition service reduced to its wire behaviour, for exercising the core alone.

    It listens on a request subject (real NATS), records what arrives and, when told to,
    answers with acks and results built by the contract library.
    """

    def __init__(self, nats_url: str, subjects: Subjects, name: str = "tabular-parser") -> None:
        self._url = nats_url
        self.subjects = subjects
        self.name = name
        self.requests: asyncio.Queue[Msg] = asyncio.Queue()
        self._nc: NatsClient | None = None
        self._subscription: Any = None

    async def connect(self) -> StubService:
        self._nc = await nats.connect(self._url)
        return self

    async def listen(self, subject: str | None = None, queue: str = "tabular-parser") -> None:
        assert self._nc is not None
        self._subscription = await self._nc.subscribe(
            subject or self.subjects.tabular_request, queue=queue, cb=self.requests.put
        )
        await self._nc.flush()

    async def stop_listening(self) -> None:
        if self._subscription is not None:
            await self._subscription.unsubscribe()
            self._subscription = None

    async def next_request(self, timeout: float = 10.0) -> Msg:
        return await asyncio.wait_for(self.requests.get(), timeout)

    async def send(
        self,
        job_id: uuid.UUID,
        file_id: uuid.UUID,
        status: str,
        *,
        attempt: int = 1,
        version: str = "1.0",
        msg_id: str | None = None,
        **fields: Any,
    ) -> None:
        """Publish an envelope (``processing`` is the ack) with the matching Nats-Msg-Id."""
        assert self._nc is not None
        envelope = ResultEnvelope(
            schema_version=version,
            job_id=job_id,
            file_id=file_id,
            status=Status(status),
            service=ServiceInfo(
                name=self.name,
                version="1.4.2",
                statements_version=fields.pop("statements_version", None),
            ),
            **fields,
        )
        if msg_id is None:
            msg_id = (ack_msg_id if status == "processing" else result_msg_id)(job_id, attempt)
        await self.send_raw(dump_envelope(envelope, version), {NATS_MSG_ID: msg_id})

    async def send_raw(self, data: bytes, headers: dict[str, str] | None = None) -> None:
        assert self._nc is not None
        await self._nc.publish(self.subjects.result, data, headers=headers)
        await self._nc.flush()

    async def close(self) -> None:
        if self._nc is not None:
            await self._nc.close()


@pytest.fixture
async def stub_service(nats_server: NatsServer) -> AsyncIterator[StubService]:
    service = await StubService(nats_server.url, CoreSettings().subjects).connect()
    try:
        yield service
    finally:
        await service.close()


def minimal_workbook(kind: str = "xlsx") -> bytes:
    """The smallest ZIP the intake recognises as XLSX (``xl/workbook.xml``) or XLSB."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        if kind == "xlsx":
            archive.writestr("xl/workbook.xml", "<workbook/>")
            archive.writestr("xl/worksheets/sheet1.xml", "<worksheet/>")
        elif kind == "xlsb":
            archive.writestr("xl/workbook.bin", b"\x83\x01\x00")
        else:
            archive.writestr("word/document.xml", "<document/>")
    return buffer.getvalue()


SIGNATURES = {
    "xls": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504,
    "pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n",
    "png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
    "jpg": b"\xff\xd8\xff\xe0" + b"\x00" * 64,
}


async def upload(
    client: httpx.AsyncClient,
    name: str,
    content: bytes,
    *,
    consolidation_id: str | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    data = {"consolidation_id": consolidation_id} if consolidation_id else None
    return await client.post(
        "/api/v1/files", files={"file": (name, content)}, data=data, headers=headers
    )
