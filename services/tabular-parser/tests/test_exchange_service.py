"""Bank exports through the service: requests of contract 2.3 for TXT and XML files on a real
nats-server, the statements in the result, the file's lines kept for the source view, and a
clear error code for every file that is no such export."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arm_ka_devstack.nats_server import NatsServer
from recognition_contract import Statement, parse_result_file, result_key
from recognition_corpus.exports import generate_exports
from recognition_worker.testing import ResultCollector

pytestmark = pytest.mark.timeout(90)


def _first(fmt: str, **params: Any) -> bytes:
    for item in generate_exports(seed=23, count=200):
        if item.params["format"] == fmt and all(item.params[k] == v for k, v in params.items()):
            return item.data
    raise AssertionError(f"seed 23 has no {fmt} export with {params}")


ONEC = _first("1c", layout="header+sections", totals="agree", accounts=2, per_day=3)
CAMT = _first("camt", totals="agree")


@pytest.mark.parametrize("storage_settings", ["local", "s3"], indirect=True)
async def test_a_1c_export_becomes_statements_and_its_lines_are_kept(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url)
    request = await send(
        worker,
        collector,
        ONEC,
        file_type="TXT",
        original_name="kl_to_1c.txt",
        schema_version="2.3",
    )
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome.status == "done", outcome.payload
    key = result_key(request["file_id"], request["job_id"])
    result = parse_result_file(await worker.storage.get(key), majors=(2,))
    assert len(result.documents) == 2
    assert all(isinstance(d, Statement) and d.transactions for d in result.documents)
    line = result.documents[0].transactions[0]  # type: ignore[union-attr]
    assert line.locator.sheet == "Текст" and line.locator.row is not None
    prefix = outcome.envelope.raw_s3_key
    assert prefix is not None
    index = json.loads(await worker.storage.get(prefix + "sheets.json"))
    [sheet] = index["sheets"]
    assert sheet["sheet"] == "Текст" and sheet["columns"] == 1
    chunk = json.loads(await worker.storage.get(prefix + sheet["chunks"][0]["name"]))
    shown = dict((number, cells[0]) for number, cells in chunk["rows"])
    assert shown[line.locator.row].startswith("СекцияДокумент=")


async def test_a_camt_file_sent_as_txt_is_read_for_what_it_is(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url)
    request = await send(worker, collector, CAMT, file_type="TXT", schema_version="2.3")
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome.status == "done", outcome.payload
    result = parse_result_file(
        await worker.storage.get(result_key(request["file_id"], request["job_id"])), majors=(2,)
    )
    assert [w.code for w in result.warnings] == ["FILE_TYPE_MISMATCH"]


HOSTILE = [
    ("binary", "TXT", b"\x00\x01\x02" * 1000, "INVALID_FORMAT"),
    ("other text", "TXT", "Просто заметки\n".encode("cp1251") * 10, "INVALID_FORMAT"),
    ("empty", "TXT", b"", "INVALID_FORMAT"),
    (
        "entity",
        "XML",
        b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">&x;</Document>',
        "UNREADABLE",
    ),
    ("invalid encoding", "TXT", b"1CClientBankExchange\n\xff\xfe\x00\x00", "INVALID_FORMAT"),
]


async def test_hostile_exports_get_error_codes_and_the_service_keeps_working(
    nats_server: NatsServer, parser: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await parser(nats_server.url)
    sent = [
        (name, code, await send(worker, collector, data, file_type=kind, schema_version="2.3"))
        for name, kind, data, code in HOSTILE
    ]
    for name, code, request in sent:
        _, outcome = await collector.wait_for(request["job_id"], timeout=30)
        got = outcome.envelope.error.code.value if outcome.envelope.error else None
        assert (name, outcome.status, got) == (name, "error", code)
    request = await send(worker, collector, ONEC, file_type="TXT", schema_version="2.3")
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome.status == "done"
