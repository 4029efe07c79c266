"""The whole system on real infrastructure: arm-core, the tabular-parser process, PostgreSQL,
nats-server and storage. Files go in through the API and come out as documents; a parser that
stops with jobs in flight leaves none of them stuck."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from arm_core.settings import CoreSettings
from arm_core.testing import (
    RunningCore,
    StubService,
    file_row,
    job_row,
    run_core,
    upload,
    wait_until,
)
from arm_ka_devstack.processes import READY_SECONDS, WatchedProcess, venv_command, watched
from recognition_contract import examples, result_key
from recognition_corpus import Layout, generate, write_xlsx
from recognition_corpus.exports import Export, generate_exports
from recognition_worker import WorkerSettings, stop_bound
from recognition_worker.testing import eventually, in_flight
from tabular_parser import testing as books

# Long enough for a loaded machine to recognise a file; a file not settled by then has been
# timed out by the watchdog, and the test says so through its status rather than a timeout.
REPLY_TIMEOUT = 60.0
# Republishing is not what these tests are about: the deployed value keeps a slow ack on a
# loaded machine from turning into a republish or a dead letter.
ACK_TIMEOUT = CoreSettings.model_fields["ack_timeout_seconds"].default
PARSER_GRACE = WorkerSettings.model_fields["shutdown_grace_seconds"].default

MONEY = (
    "opening_debit", "opening_credit", "turnover_debit",
    "turnover_credit", "closing_debit", "closing_credit",
)  # fmt: skip


Parser = Callable[..., AbstractAsyncContextManager[WatchedProcess]]


@pytest.fixture
def parser(make_core_settings, nats_server) -> Parser:
    """``parser(**settings)``: the tabular-parser command on the core's NATS and storage,
    subscribed when the block starts; at the end it is stopped and must exit 0 within the
    bound its grace gives it."""
    storage_url = make_core_settings().storage_url

    @asynccontextmanager
    async def start(**settings: Any) -> AsyncIterator[WatchedProcess]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBAO__")}
        env.update(NATS_URL=nats_server.url, STORAGE_URL=storage_url, LOG_JSON="true")
        env.update({name.upper(): str(value) for name, value in settings.items()})
        grace = float(settings.get("shutdown_grace_seconds", PARSER_GRACE))
        async with watched([venv_command("tabular-parser")], env=env) as process:
            # Until it has subscribed, the core's requests reach nobody.
            await process.wait_for_event("worker_ready")
            yield process
            process.send_signal(signal.SIGTERM)
            assert await process.wait(stop_bound(grace)) == 0, process.tail()

    return start


@pytest.fixture
async def tabular_parser(parser: Parser) -> AsyncIterator[WatchedProcess]:
    async with parser(worker_concurrency=2) as process:
        yield process


@pytest.fixture
async def core(make_core_settings, tabular_parser) -> AsyncIterator[RunningCore]:
    settings = make_core_settings(
        reply_timeout_seconds=REPLY_TIMEOUT, ack_timeout_seconds=ACK_TIMEOUT
    )
    async with _running_core(settings) as running:
        yield running


@asynccontextmanager
async def _running_core(settings: CoreSettings) -> AsyncIterator[RunningCore]:
    """``run_core``, once the core's result subscription is on the server too (it connects
    to NATS in the background)."""
    async with run_core(settings) as running:
        await asyncio.wait_for(running.runtime.nats.connected.wait(), READY_SECONDS)
        yield running


def _layout(family: str) -> Layout:
    [layout] = generate(seed=7, per_family=1, families=[family])
    return layout


async def _settled(core: RunningCore, file_id: uuid.UUID) -> dict[str, Any] | None:
    file = await file_row(core.settings.database_dsn, file_id)
    return file if file["status"] in ("RECOGNIZED", "NEEDS_CHECK", "ERROR") else None


async def _rows(dsn: str, query: str, *params: Any) -> list[dict[str, Any]]:
    async with await psycopg.AsyncConnection.connect(dsn, row_factory=dict_row) as conn:
        return await (await conn.execute(query, params)).fetchall()


def _money(value: str | None) -> Decimal | None:
    return Decimal(value) if value is not None else None


async def _assert_documents(dsn: str, file_id: uuid.UUID, expected: list[dict[str, Any]]) -> None:
    documents = await _rows(
        dsn,
        "SELECT d.* FROM document d JOIN stored_file f ON f.current_recognition_job_id = d.job_id"
        " WHERE f.id = %s ORDER BY d.position",
        file_id,
    )
    assert [d["kind"] for d in documents] == [e["type"] for e in expected]
    for stored, wanted in zip(documents, expected, strict=True):
        assert stored["locator"] == wanted["locator"]
        if wanted["type"] == "osv":
            rows = await _rows(
                dsn,
                "SELECT * FROM trial_balance_row WHERE document_id = %s ORDER BY position",
                stored["id"],
            )
            assert [
                (r["account"], r["name"], r["level"], *(r[m] for m in MONEY)) for r in rows
            ] == [
                (w["code"], w["name"], w["level"], *(_money(w[m]) for m in MONEY))
                for w in wanted["rows"]
            ]
            assert stored["unit"] == wanted["unit"]
            if wanted["period"]:
                assert stored["period_from"].isoformat() == wanted["period"]["from"]
        else:
            [header] = await _rows(
                dsn, "SELECT * FROM statement_header WHERE document_id = %s", stored["id"]
            )
            want = wanted["header"]
            assert (header["account"], header["currency"], header["holder_tax_id"]) == (
                want["account"], want["currency"], want["holder_tax_id"],
            )  # fmt: skip
            assert header["opening_balance"] == _money(want["opening_balance"])
            assert header["closing_balance"] == _money(want["closing_balance"])
            lines = await _rows(
                dsn,
                "SELECT * FROM statement_transaction WHERE document_id = %s ORDER BY position",
                stored["id"],
            )
            assert [(t["date"].isoformat(), t["debit"], t["credit"]) for t in lines] == [
                (w["date"], _money(w["debit"]), _money(w["credit"])) for w in wanted["transactions"]
            ]


@pytest.mark.parametrize("family", ["osv-by", "statement-prior", "workbook-multisheet"])
async def test_xlsx_is_recognized_into_the_expected_documents(
    core: RunningCore, tmp_path: Path, family: str
) -> None:
    layout = _layout(family)
    path = tmp_path / f"{layout.name}.xlsx"
    write_xlsx(layout, path)
    response = await upload(core.client, path.name, path.read_bytes())
    assert response.status_code == 201, response.text
    file_id = uuid.UUID(response.json()["file_id"])

    file = await wait_until(lambda: _settled(core, file_id), timeout=2 * REPLY_TIMEOUT)

    assert layout.expected.status == "done"
    assert file["status"] == "RECOGNIZED", file
    await _assert_documents(core.settings.database_dsn, file_id, layout.expected.documents)
    detail = (await core.client.get(f"/api/v1/files/{file_id}")).json()
    [attempt] = detail["attempts"]
    assert attempt["service_name"] == "tabular-parser"
    assert attempt["group_schema"] == layout.expected.group_schema


async def test_totals_that_do_not_add_up_need_a_check(core: RunningCore, tmp_path: Path) -> None:
    layout = _layout("osv-broken-totals")
    path = tmp_path / "broken.xlsx"
    write_xlsx(layout, path)
    file_id = uuid.UUID((await upload(core.client, path.name, path.read_bytes())).json()["file_id"])

    file = await wait_until(lambda: _settled(core, file_id), timeout=2 * REPLY_TIMEOUT)

    assert file["status"] == "NEEDS_CHECK"
    body = (await core.client.get(f"/api/v1/files/{file_id}/documents")).json()
    found = {
        (w["code"], json.dumps(w["locator"], sort_keys=True))
        for doc in body["documents"]
        for w in doc["warnings"]
    }
    wanted = {
        (w["code"], json.dumps(w["locator"], sort_keys=True))
        for doc in layout.expected.documents
        for w in doc["warnings"]
    }
    assert wanted
    assert wanted <= found


def _export(fmt: str, **params: Any) -> Export:
    return next(
        item
        for item in generate_exports(seed=31, count=300)
        if item.params["format"] == fmt and all(item.params[k] == v for k, v in params.items())
    )


@pytest.mark.parametrize(
    ("name", "export", "status"),
    [
        ("kl_to_1c.txt", _export("1c", accounts=2, totals="agree", layout="header+sections", per_day=3), "RECOGNIZED"),
        ("statement.sta", _export("mt940", totals="agree", per_day=3), "RECOGNIZED"),
        ("camt053.xml", _export("camt", totals="off by 1000", per_day=3), "NEEDS_CHECK"),
    ],
    ids=["1c", "mt940", "camt-totals-off"],
)  # fmt: skip
async def test_bank_exports_are_recognized_with_their_balances_and_source_lines(
    core: RunningCore, name: str, export: Export, status: str
) -> None:
    response = await upload(core.client, name, export.data)
    assert response.status_code == 201, response.text
    file_id = uuid.UUID(response.json()["file_id"])

    file = await wait_until(lambda: _settled(core, file_id), timeout=2 * REPLY_TIMEOUT)

    assert file["status"] == status, file
    body = (await core.client.get(f"/api/v1/files/{file_id}/documents")).json()
    statements = {d["header"]["account"]: d for d in body["documents"]}
    assert set(statements) == {t.account for t in export.truth}
    for truth in export.truth:
        document = statements[truth.account]
        assert len(document["transactions"]) == truth.count
        if status == "RECOGNIZED":
            assert Decimal(document["header"]["opening_balance"]) == truth.opening
            assert Decimal(document["header"]["closing_balance"]) == truth.closing
    operations = next(d for d in statements.values() if d["transactions"])["transactions"]
    if name.endswith(".txt"):  # 1C names the kind of every payment document
        assert all(t["document_kind"] for t in operations)
    line = operations[0]["locator"]
    source = await core.client.get(
        f"/api/v1/files/{file_id}/source",
        params={"sheet": line["sheet"], "row": line["row"], "around": 0},
    )
    assert source.status_code == 200, source.text
    [shown] = source.json()["rows"]
    assert shown["number"] == line["row"]
    assert shown["cells"][0].strip().startswith(("СекцияДокумент=", ":61:", "<Ntry>"))


async def test_a_major_3_result_file_ends_in_mapping_error(
    make_core_settings, stub_service: StubService
) -> None:
    settings = make_core_settings(ack_timeout_seconds=ACK_TIMEOUT)
    await stub_service.listen()
    async with _running_core(settings) as core:
        from arm_core.testing import minimal_workbook
        from arm_ka_platform.storage import open_storage

        created = (await upload(core.client, "osv.xlsx", minimal_workbook())).json()
        file_id, job_id = uuid.UUID(created["file_id"]), uuid.UUID(created["job_id"])
        await stub_service.next_request()
        payload = next(e for e in examples() if e.name == "result-2.0-done-osv-general.json").load()
        payload.update(job_id=str(job_id), file_id=str(file_id), schema_version="3.0")
        key = result_key(file_id, job_id)
        await open_storage(settings.storage).put(key, json.dumps(payload).encode())
        await stub_service.send(job_id, file_id, "processing", version="2.0")
        await stub_service.send(
            job_id, file_id, "done", version="2.0",
            result_s3={"bucket": "arm-ka", "key": key}, result_schema_version="2.0",
        )  # fmt: skip
        file = await wait_until(lambda: _settled(core, file_id), timeout=20)
        detail = (await core.client.get(f"/api/v1/files/{file_id}")).json()
    assert file["status"] == "ERROR"
    assert "неизвестная версия" in file["mapping_error"]
    assert detail["mapping_error"] == file["mapping_error"]
    assert detail["attempts"][0]["status"] == "done"


async def test_jobs_a_stopping_parser_abandons_time_out_and_are_recognised_on_retry(
    make_core_settings, parser: Parser
) -> None:
    # Long enough for the acks, short enough to wait for the watchdog.
    reply_timeout = 10.0
    settings = make_core_settings(
        reply_timeout_seconds=reply_timeout, ack_timeout_seconds=ACK_TIMEOUT
    )
    dsn = settings.database_dsn
    # Half a second or so of recognition each, one at a time: most are still waiting or
    # running when the parser is told to stop, and its grace cannot cover them.
    book = books.xlsx([books.general_osv(accounts=20, subaccounts=1000)], constant_memory=True)
    async with _running_core(settings) as core:
        async with parser(worker_concurrency=1, shutdown_grace_seconds=0.2) as first:
            files = [
                uuid.UUID((await upload(core.client, f"ОСВ {n}.xlsx", book)).json()["file_id"])
                for n in range(4)
            ]
            # One running and one waiting at least: the waiting one cannot be done within
            # the grace.
            await eventually(lambda: len(in_flight(first)) >= 2, "the parser busy", 60)
        abandoned = {uuid.UUID(e["job_id"]) for e in first.find("job_abandoned")}
        assert abandoned, first.tail()

        settled = [
            await wait_until(lambda f=f: _settled(core, f), timeout=2 * reply_timeout)
            for f in files
        ]
        retry = []
        for file in settled:
            job_id = file["current_recognition_job_id"]
            if file["status"] == "RECOGNIZED":
                assert job_id not in abandoned
                continue
            # Abandoned, or published while the parser drained and heard by nobody: either
            # way unanswered, and timed out by the watchdog at its reply deadline.
            assert (file["status"], file["error_code"]) == ("ERROR", "TIMEOUT"), file
            assert (await job_row(dsn, job_id))["status"] == "timeout"
            retry.append(file["id"])
        assert abandoned <= {f["current_recognition_job_id"] for f in settled if f["id"] in retry}

    # The retries are recognised by a core whose deadline a loaded machine can meet: with the
    # short one, four of these files in a row can outlast it and time out again.
    patient = make_core_settings(
        reply_timeout_seconds=REPLY_TIMEOUT, ack_timeout_seconds=ACK_TIMEOUT
    )
    async with _running_core(patient) as core:
        async with parser() as second:
            for file_id in retry:
                response = await core.client.post(f"/api/v1/files/{file_id}/retry")
                assert response.status_code == 201, response.text
            for file_id in retry:
                file = await wait_until(
                    lambda f=file_id: _settled(core, f), timeout=2 * REPLY_TIMEOUT
                )
                assert file["status"] == "RECOGNIZED", file
        assert len(second.find("job_recognised")) == len(retry)
