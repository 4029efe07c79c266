"""The server-rendered pages through the running app: what each page says, which actions it
offers, and that they change what they should (no browser here; tests/ui drives one)."""

from __future__ import annotations

import re
import uuid

import psycopg
import pytest

from arm_core.testing import (
    fetch_one,
    file_row,
    insert_file_with_job,
    mapped_file,
    minimal_workbook,
    run_core,
    upload,
    wait_until,
)

pytestmark = pytest.mark.timeout(60)


def _disabled(button: str) -> bool:
    return re.search(r"\sdisabled[\s>]", button) is not None


async def _set(dsn: str, query: str, *params: object) -> None:
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute(query, params)


async def test_pages_are_local_html_in_russian(make_core_settings) -> None:
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        home = await core.client.get("/")
        assert (home.status_code, home.headers["location"]) == (303, "/ui/consolidations")
        page = await core.client.get("/ui/consolidations")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert '<html lang="ru">' in page.text
        assert "Консолидаций пока нет" in page.text
        sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
        assert sources, "the page loads its assets"
        assert all(s.startswith(("/", "data:")) for s in sources), sources
        for asset in ("/static/htmx.min.js", "/static/htmx-ext-sse.min.js", "/static/app.css"):
            assert asset in sources
            served = await core.client.get(asset)
            assert served.status_code == 200
            assert len(served.content) > 1000
        # The JSON API is untouched by the pages.
        assert (await core.client.get("/api/v1/consolidations")).json() == {"items": []}


async def test_consolidation_created_from_the_form_lists_counts_by_status(
    make_core_settings,
) -> None:
    settings = make_core_settings(nats_enabled=False)
    async with run_core(settings) as core:
        blank = await core.client.post("/ui/consolidations", data={"name": "   "})
        assert blank.status_code == 422
        assert "Введите название" in blank.text

        created = await core.client.post("/ui/consolidations", data={"name": " ООО  Ромашка "})
        assert created.status_code == 303
        consolidation_id = created.headers["location"].rsplit("/", 1)[1]
        for name in ("a.xlsx", "b.xlsx", "c.xlsx"):
            response = await upload(
                core.client, name, minimal_workbook("xlsx"), consolidation_id=consolidation_id
            )
            assert response.status_code == 201
        failed = (await core.client.get("/api/v1/files")).json()["items"][0]["id"]
        await _set(
            settings.database_dsn,
            "UPDATE stored_file SET status = 'ERROR', error_code = 'TIMEOUT' WHERE id = %s",
            failed,
        )

        listing = await core.client.get("/ui/consolidations")
        assert "ООО Ромашка" in listing.text
        row = re.search(
            rf'<tr id="consolidation-{consolidation_id}".*?</tr>', listing.text, re.S
        ).group(0)
        counts = dict(re.findall(r'data-status="(\w+)">(\d+)</a>', row))
        assert counts == {"UPLOADED": "2", "ERROR": "1"}

        files = await core.client.get(f"/ui/consolidations/{consolidation_id}")
        assert files.text.count('<tr id="file-') == 3
        assert "Истекло время обработки" in files.text
        only_errors = await core.client.get(
            f"/ui/consolidations/{consolidation_id}", params={"status": "ERROR"}
        )
        assert only_errors.text.count('<tr id="file-') == 1
        assert f'id="file-{failed}"' in only_errors.text
        assert (await core.client.get(f"/ui/consolidations/{uuid.uuid4()}")).status_code == 404


async def test_file_page_offers_retry_only_when_retryable(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False)
    dsn = settings.database_dsn
    failed, failed_job = await insert_file_with_job(dsn, status="timeout")
    await _set(
        dsn,
        "UPDATE recognition_job SET error_code = 'TIMEOUT', service_name = 'tabular-parser',"
        " service_version = '1.4.2', republish_count = 2 WHERE id = %s",
        failed_job,
    )
    await _set(
        dsn, "UPDATE stored_file SET status = 'ERROR', error_code = 'TIMEOUT' WHERE id = %s", failed
    )
    busy, _ = await insert_file_with_job(dsn, status="processing")
    spent, _ = await insert_file_with_job(dsn, status="error", attempt=3, max_attempts=3)
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        page = (await core.client.get(f"/ui/files/{failed}")).text
        button = re.search(r'<button id="retry"[^>]*>', page).group(0)
        assert not _disabled(button)
        assert "Истекло время обработки" in page
        assert "tabular-parser 1.4.2" in page
        assert re.search(r"Повторных отправок</dt><dd>2</dd>", page)
        assert f'href="/api/v1/files/{failed}/content"' in page

        for file_id, why in (
            (busy, "ещё обрабатывается"),
            (spent, "Исчерпан лимит попыток: 3 из 3"),
        ):
            text = (await core.client.get(f"/ui/files/{file_id}")).text
            button = re.search(r'<button id="retry"[^>]*>', text).group(0)
            assert _disabled(button)
            assert why in text

        first = await core.client.post(f"/ui/files/{failed}/retry")
        second = await core.client.post(f"/ui/files/{failed}/retry")
        assert (first.status_code, second.status_code) == (201, 409)
        assert "Создана попытка 2" in first.text
        assert "Повтор не выполнен" in second.text
        assert [int(n) for n in re.findall(r'data-attempt="(\d+)"', first.text)] == [2, 1]
        assert (await core.client.get(f"/ui/files/{uuid.uuid4()}")).status_code == 404
    row = await fetch_one(
        dsn, "SELECT count(*) AS n FROM recognition_job WHERE file_id = %s", failed
    )
    assert row["n"] == 2


async def test_batch_retry_reports_each_file(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False)
    dsn = settings.database_dsn
    retryable, _ = await insert_file_with_job(dsn, status="dlq", original_name="выписка.pdf")
    done, _ = await insert_file_with_job(dsn, status="done", original_name="осв.xlsx")
    async with run_core(settings) as core:
        response = await core.client.post(
            "/ui/files/retry",
            data={"file_ids": [str(retryable), str(done), str(retryable), "not-a-file"]},
        )
        assert response.status_code == 200
        outcomes = dict(re.findall(r'data-file="([^"]+)" data-outcome="(\w+)"', response.text))
        assert outcomes == {
            str(retryable): "retried",
            str(done): "skipped",
            "not-a-file": "skipped",
        }
        assert "повторено 1, пропущено 2" in response.text
        assert "создана попытка 2" in response.text
        assert "Повтор невозможен" in response.text
        assert "Файл не найден" in response.text
        nothing = await core.client.post("/ui/files/retry", data={})
        assert "Отметьте файлы" in nothing.text


async def test_documents_page_shows_hierarchy_checks_and_flags(
    make_core_settings,
) -> None:
    settings = make_core_settings()
    dsn = settings.database_dsn
    file_id = await mapped_file(settings, "result-2.1-needs_check-osv-account-and-statement.json")
    async with run_core(settings) as core:
        await wait_until(lambda: _status(dsn, file_id, "NEEDS_CHECK"))
        page = (await core.client.get(f"/ui/files/{file_id}/documents")).text
    assert 'id="needs-check"' in page
    osv = page[page.index('id="osv-1"') : page.index("</table>", page.index('id="osv-1"'))]
    rows = re.findall(r'<tr data-row="(\d+)" data-parent="(\d*)"', osv)
    assert rows == [("1", ""), ("2", "1"), ("3", "1"), ("4", ""), ("5", "4"), ("6", "")]
    assert osv.count('class="toggle"') == 2
    flagged = re.findall(r'<tr data-row="(\d+)"[^>]*class="[^"]*flagged', osv)
    assert flagged == ["6"]
    assert re.search(r'<tr class="totals flagged"', osv)
    assert "13\u00a0850,75" in osv
    assert "лист «ОСВ 60», строка 14" in page
    assert "Выписка по счёту BY66PJCB30120612341010000933" in page
    assert "ОАО «Приорбанк»" in page
    assert "Не сходится контрольная цифра УНП/ИНН" in page
    # 48 250,75 + 36 000,00 − 20 162,90 = 64 087,85
    assert re.search(r'<li class="ok"><span class="mark">✓</span> Остаток на начало', page)
    statement = page[page.index("statement-table") :]
    assert len(re.findall(r"<tr class=\"flagged", statement)) == 1


async def _status(dsn: str, file_id: uuid.UUID, status: str) -> bool:
    return (await file_row(dsn, file_id))["status"] == status


@pytest.mark.parametrize("path", ["/ui/files", "/ui/files/rows"])
async def test_an_offset_past_any_page_is_refused_not_a_server_error(
    make_core_settings, path
) -> None:
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        response = await core.client.get(path, params={"offset": "99999999999999999999"})
    assert response.status_code == 422


async def test_statement_checks_are_the_ones_the_extraction_made(make_core_settings) -> None:
    """The page shows what the recognition found; it does not do the arithmetic again (a
    statement whose stored warnings say the totals disagree shows that, whatever its rows)."""
    settings = make_core_settings()
    dsn = settings.database_dsn
    file_id = await mapped_file(settings, "result-2.0-needs_check-statement.json")
    async with run_core(settings) as core:
        await wait_until(lambda: _status(dsn, file_id, "NEEDS_CHECK"))
        page = (await core.client.get(f"/ui/files/{file_id}/documents")).text
    found = re.findall(r'<li class="(\w+)"><span class="mark">.</span> ([^<]+?) <span', page)
    checks = {name: tone for tone, name in found}
    assert checks == {
        "Остаток на начало + поступления − списания = остаток на конец": "ok",
        "Сумма операций = итоги выписки": "bad",
        "Даты операций внутри периода выписки": "ok",
    }
    # Amounts inside a message are written as the tables write them.
    assert "Сумма строк по дебету 2\u00a0789,00 не равна итогу выписки 4\u00a0789,00" in page


def _rows(count: int):
    """A trial balance of ``count`` balanced rows (each 1,00 in and out), totals to match."""

    def edit(data: dict) -> None:
        doc = data["documents"][0]
        doc["rows"] = [
            {
                "id": n,
                "parent": None,
                "kind": "account",
                "level": 0,
                "code": f"{n:05d}",
                "name": f"Счёт {n}",
                "opening_debit": "1.00",
                "opening_credit": None,
                "turnover_debit": None,
                "turnover_credit": None,
                "closing_debit": "1.00",
                "closing_credit": None,
                "confidence": 99,
                "locator": {"sheet": "TDSheet", "row": 8 + n},
            }
            for n in range(1, count + 1)
        ]
        amount = f"{count}.00"
        doc["totals"] = {
            "opening_debit": amount,
            "opening_credit": amount,
            "turnover_debit": None,
            "turnover_credit": None,
            "closing_debit": amount,
            "closing_credit": amount,
            "locator": {"sheet": "TDSheet", "row": 9 + count},
        }

    return edit


async def test_a_large_trial_balance_is_shown_a_page_at_a_time(make_core_settings) -> None:
    settings = make_core_settings()
    dsn = settings.database_dsn
    file_id = await mapped_file(settings, "result-2.0-done-osv-general.json", _rows(2500))
    async with run_core(settings) as core:
        await wait_until(lambda: _status(dsn, file_id, "RECOGNIZED"), timeout=30)
        first = (await core.client.get(f"/ui/files/{file_id}/documents")).text
        last = (await core.client.get(f"/ui/files/{file_id}/documents?doc=1&page=3")).text
        beyond = await core.client.get(f"/ui/files/{file_id}/documents?doc=1&page=99")
    rows_first = re.findall(r'<tr data-row="(\d+)"', first)
    rows_last = re.findall(r'<tr data-row="(\d+)"', last)
    assert (rows_first[0], rows_first[-1], len(rows_first)) == ("1", "1000", 1000)
    assert (rows_last[0], rows_last[-1], len(rows_last)) == ("2001", "2500", 500)
    assert "строки 1–1000 из 2500 (страница 1 из 3)" in first
    assert 'href="?doc=1&amp;page=2#doc-1" rel="next"' in first
    assert 'class="totals' in last and 'class="totals' not in first
    assert beyond.status_code == 200 and "страница 3 из 3" in beyond.text
