"""Exports of a file's and a consolidation's documents, read back (the workbook with
python-calamine, the CSV files with the csv module) and compared with the documents the API
gives: every amount a number with two decimals, every row, the totals and each warning with
where it points."""

from __future__ import annotations

import csv
import io
import uuid
import zipfile
from decimal import Decimal
from typing import Any

import psycopg
from python_calamine import CalamineWorkbook

from arm_core.testing import fetch_one, mapped_file, run_core, wait_until

BOTH = "result-2.1-needs_check-osv-account-and-statement.json"
OSV = "result-2.0-done-osv-general.json"
MONEY = ("opening_debit", "opening_credit", "turnover_debit", "turnover_credit")
MONEY += ("closing_debit", "closing_credit")


async def _mapped(settings: Any, example: str) -> uuid.UUID:
    file_id = await mapped_file(settings, example)

    async def done() -> bool:
        row = await fetch_one(
            settings.database_dsn, "SELECT status FROM stored_file WHERE id = %s", file_id
        )
        return row is not None and row["status"] in ("RECOGNIZED", "NEEDS_CHECK")

    await wait_until(done)
    return file_id


def _rows(book: CalamineWorkbook, name: str) -> list[list[Any]]:
    return book.get_sheet_by_name(name).to_python(skip_empty_area=False)


def _table(rows: list[list[Any]], *captions: str) -> list[list[Any]]:
    """The rows under the column captions (the lines above are the document's header)."""
    start = next(i for i, row in enumerate(rows) if row[: len(captions)] == list(captions))
    return rows[start + 1 :]


def _amount(value: str | None) -> float | str:
    return "" if value is None else float(Decimal(value))


async def test_a_files_documents_become_a_workbook_of_numbers(make_core_settings) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        file_id = await _mapped(settings, BOTH)
        documents = (await core.client.get(f"/api/v1/files/{file_id}/documents")).json()
        response = await core.client.get(f"/api/v1/files/{file_id}/export")
        audit = await fetch_one(
            settings.database_dsn,
            "SELECT actor, details FROM audit_log WHERE action = 'file.export'",
        )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    assert response.headers["content-disposition"].startswith("attachment; filename*=UTF-8''")
    book = CalamineWorkbook.from_filelike(io.BytesIO(response.content))
    assert book.sheet_names == ["1 ОСВ", "2 Выписка", "Замечания"]
    osv, statement = documents["documents"]

    rows = _table(_rows(book, "1 ОСВ"), "Счёт", "Наименование")
    body, totals = rows[: len(osv["rows"])], rows[len(osv["rows"])]
    assert [row[:2] for row in body] == [[r["account"] or "", r["name"]] for r in osv["rows"]]
    for got, row in zip(body, osv["rows"], strict=True):
        assert got[3:9] == [_amount(row[key]) for key in MONEY]
        assert all(isinstance(v, float) for v in got[3:9] if v != "")
    assert totals[0] == "Итого"
    assert totals[3:9] == [_amount(osv["totals"][key]) for key in MONEY]

    header = {row[0]: row[1] for row in _rows(book, "2 Выписка")[:11] if row and row[0]}
    assert header["Счёт"] == statement["header"]["account"]
    assert header["Остаток на начало"] == _amount(statement["header"]["opening_balance"])
    lines = _table(_rows(book, "2 Выписка"), "Дата", "Номер")
    transactions = statement["transactions"]
    # Дата, Номер, Вид документа, Дебет, Кредит, …
    assert [line[3:5] for line in lines[: len(transactions)]] == [
        [_amount(t["debit"]), _amount(t["credit"])] for t in transactions
    ]
    warnings = _table(_rows(book, "Замечания"), "Файл", "Лист выгрузки")
    expected = [
        (w["code"], w["message"], (w.get("locator") or {}).get("row"))
        for doc in documents["documents"]
        for w in doc["warnings"]
    ]
    assert [(w[2], w[4], w[6] if w[6] != "" else None) for w in warnings] == [
        (code, message, float(row) if row is not None else None) for code, message, row in expected
    ]
    assert audit == {"actor": "dev", "details": {"format": "xlsx"}}


async def test_a_files_documents_as_csv(make_core_settings) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        file_id = await _mapped(settings, BOTH)
        documents = (await core.client.get(f"/api/v1/files/{file_id}/documents")).json()
        response = await core.client.get(f"/api/v1/files/{file_id}/export?format=csv")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert archive.namelist() == ["1 ОСВ.csv", "2 Выписка.csv", "Замечания.csv"]
    text = archive.read("1 ОСВ.csv").decode("utf-8")
    assert text.startswith("\ufeff")
    rows = [row for row in csv.reader(io.StringIO(text[1:])) if row[0] != "#"]
    osv = documents["documents"][0]
    assert rows[0][0] == "Счёт"
    assert rows[1 : 1 + len(osv["rows"])] == [
        [r["account"] or "", r["name"], str(r["level"]), *(r[key] or "" for key in MONEY)]
        for r in osv["rows"]
    ]


async def test_a_consolidation_exports_the_documents_of_its_recognised_files(
    make_core_settings,
) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        made = await core.client.post("/api/v1/consolidations", json={"name": "ООО «Ромашка»"})
        consolidation_id = made.json()["id"]
        first = await _mapped(settings, OSV)
        second = await _mapped(settings, BOTH)
        async with await psycopg.AsyncConnection.connect(
            settings.database_dsn, autocommit=True
        ) as conn:
            await conn.execute(
                "UPDATE stored_file SET consolidation_id = %s WHERE id = ANY(%s)",
                (consolidation_id, [first, second]),
            )
        empty = await core.client.post("/api/v1/consolidations", json={"name": "Пустая"})
        response = await core.client.get(f"/api/v1/consolidations/{consolidation_id}/export")
        nothing = await core.client.get(f"/api/v1/consolidations/{empty.json()['id']}/export")
    book = CalamineWorkbook.from_filelike(io.BytesIO(response.content))
    assert book.sheet_names == ["1.1 ОСВ", "2.1 ОСВ", "2.2 Выписка", "Замечания"]
    assert "%D0%A0%D0%BE%D0%BC%D0%B0%D1%88%D0%BA%D0%B0" in response.headers["content-disposition"]
    assert nothing.status_code == 409 and nothing.json()["error"]["code"] == "NO_DOCUMENTS"


async def test_a_corrected_document_exports_corrected_and_says_what_was_changed(
    make_core_settings,
) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        file_id = await _mapped(settings, BOTH)
        documents = (await core.client.get(f"/api/v1/files/{file_id}/documents")).json()
        statement = documents["documents"][1]
        await core.client.post(
            f"/api/v1/documents/{statement['id']}/corrections",
            json={
                "target": "transaction",
                "position": 1,
                "field": "debit",
                "value": "100.50",
                "reason": "сверено с оригиналом",
            },
        )
        response = await core.client.get(f"/api/v1/files/{file_id}/export")
    book = CalamineWorkbook.from_filelike(io.BytesIO(response.content))
    assert book.sheet_names == ["1 ОСВ", "2 Выписка", "Замечания", "Исправления"]
    first = _table(_rows(book, "2 Выписка"), "Дата", "Номер")[0]
    assert first[3] == 100.5  # the debit, after the date, number and document kind
    [layer] = _table(_rows(book, "Исправления"), "Файл", "Лист выгрузки")
    recognised = statement["transactions"][0]["debit"]
    assert layer[1:7] == ["2 Выписка", "операция", 1.0, "debit", recognised or "", "100.50"]
    assert layer[9] == "сверено с оригиналом"


async def test_each_document_says_where_its_review_stands(make_core_settings) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        file_id = await _mapped(settings, OSV)
        [osv] = (await core.client.get(f"/api/v1/files/{file_id}/documents")).json()["documents"]
        before = await core.client.get(f"/api/v1/files/{file_id}/export")
        acknowledged = [
            {"code": w["code"], "locator": w["locator"], "reason": "сверено"}
            for w in osv["warnings"]
            if w["severity"] != "info"
        ]
        confirmed = await core.client.post(
            f"/api/v1/documents/{osv['id']}/confirm", json={"acknowledged": acknowledged}
        )
        after = await core.client.get(f"/api/v1/files/{file_id}/export")

    def review(response: Any) -> str:
        book = CalamineWorkbook.from_filelike(io.BytesIO(response.content))
        rows = _rows(book, book.sheet_names[0])
        return next(row[1] for row in rows if row[0] == "Проверка аналитиком")

    assert confirmed.status_code == 200, confirmed.text
    assert review(before) == "не подтверждён"
    assert review(after).startswith("подтверждён: dev, ")
