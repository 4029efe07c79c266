"""What an analyst does in the browser: upload and watch statuses change live, read the
documents, retry a timed-out file, double-click retry, retry a mixed selection."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg
import pytest
from playwright.async_api import Browser, Page, expect
from python_calamine import CalamineWorkbook

from arm_core.testing import (
    StubService,
    fetch_one,
    file_row,
    insert_file_with_job,
    run_core,
    upload,
    wait_until,
)
from recognition_contract import S3Ref, result_key
from tabular_parser import testing as books

pytestmark = pytest.mark.timeout(90)

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


async def _execute(dsn: str, query: str, *params: Any) -> None:
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute(query, params)


async def _attempts(dsn: str, file_id: uuid.UUID) -> list[int]:
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        rows = await (
            await conn.execute(
                "SELECT attempt FROM recognition_job WHERE file_id = %s ORDER BY attempt",
                (file_id,),
            )
        ).fetchall()
    return [row[0] for row in rows]


async def _drop(page: Page, name: str, content: bytes) -> None:
    """What a browser does when a file is dragged from the desktop onto the zone."""
    await page.evaluate(
        """([name, bytes]) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([new Uint8Array(bytes)], name));
            const zone = document.getElementById("drop-zone");
            for (const type of ["dragenter", "dragover", "drop"]) {
                zone.dispatchEvent(new DragEvent(type, {dataTransfer: transfer, bubbles: true, cancelable: true}));
            }
        }""",
        [name, list(content)],
    )


def _row(page: Page, file_id: uuid.UUID | str) -> Any:
    return page.locator(f"#file-{file_id}")


async def test_uploaded_workbook_becomes_recognized_without_reload(
    ui_settings: Any, browser: Browser, open_page: Any, run_parser: Any, screenshot: Any
) -> None:
    settings = ui_settings(upload_max_bytes=64_000)
    book = books.xlsx([books.general_osv(accounts=8, subaccounts=2)])
    assert len(book) < 64_000
    async with run_core(settings) as core, run_parser(settings), open_page(browser) as page:
        await page.goto(f"{core.url}/ui/consolidations")
        await page.fill("#new-name", "ООО «Промтехснаб», кредитная заявка 2024")
        await page.click("button[type=submit]")
        await expect(page.locator("h1")).to_have_text("ООО «Промтехснаб», кредитная заявка 2024")
        consolidation_id = page.url.rsplit("/", 1)[1]
        await page.evaluate("window.sameDocument = true")

        await page.set_input_files(
            "#file-picker",
            files=[
                {"name": "ОСВ 1 квартал 2024.xlsx", "mimeType": XLSX, "buffer": book},
                {
                    "name": "пояснения.docx",
                    "mimeType": "application/octet-stream",
                    "buffer": b"PK\x03\x04 not a workbook",
                },
            ],
        )
        await _drop(page, "пустой.xlsx", b"")
        await _drop(page, "ОСВ за 5 лет.xlsx", bytes(100_000))

        rejected = page.locator(".upload-item.rejected")
        await expect(rejected).to_have_count(3)
        await expect(
            page.locator('.upload-item[data-code="FILE_TOO_LARGE"] .u-why')
        ).to_contain_text("Файл слишком большой: размер 97,7 КБ при допустимых 62,5 КБ")
        await expect(
            page.locator('.upload-item[data-code="UNSUPPORTED_FORMAT"] .u-why')
        ).to_contain_text("Формат не поддерживается")
        await expect(page.locator('.upload-item[data-code="EMPTY_FILE"] .u-why')).to_contain_text(
            "Пустой файл"
        )
        await expect(page.locator(".upload-item.done")).to_have_count(1)

        listing = (await core.client.get("/api/v1/files")).json()["items"]
        assert [item["original_name"] for item in listing] == ["ОСВ 1 квартал 2024.xlsx"]
        file_id = listing[0]["id"]
        row = _row(page, file_id)
        await expect(row).to_be_visible()
        await expect(row).to_have_attribute("data-status", "RECOGNIZED", timeout=30_000)
        await expect(row.locator(".badge[data-status]")).to_have_text("Распознан")
        await expect(page.locator('#counts [data-status="RECOGNIZED"] b')).to_have_text("1")
        assert await page.evaluate("window.sameDocument") is True, "the page was reloaded"
        assert (await file_row(settings.database_dsn, uuid.UUID(file_id)))["status"] == "RECOGNIZED"
        await screenshot(page, "consolidation-files")

        await row.get_by_role("link", name="Документы").click()
        await expect(page.locator("h1")).to_contain_text("Документы файла")
        table = page.locator("#osv-1")
        lines = books.trial_balance_lines(8, 2)
        await expect(table.locator("tbody tr")).to_have_count(len(lines))
        await expect(page.locator("#needs-check")).to_have_count(0)
        await expect(table.locator("tfoot tr.totals")).to_contain_text("Итого")
        parent = table.locator("tbody tr", has=page.locator(".toggle")).first
        children = table.locator(
            f'tbody tr[data-parent="{await parent.get_attribute("data-row")}"]'
        )
        await expect(children).to_have_count(2)
        await parent.locator(".toggle").click()
        await expect(children.first).to_be_hidden()
        await expect(children.last).to_be_hidden()
        await parent.locator(".toggle").click()
        await expect(children.first).to_be_visible()
        await screenshot(page, "documents-trial-balance")

        await page.goto(f"{core.url}/ui/consolidations")
        counts = page.locator(f"#consolidation-{consolidation_id}")
        await expect(counts.locator('[data-status="RECOGNIZED"]')).to_have_text("1")
        await screenshot(page, "consolidations")

        # The consolidation into the bank's spreadsheet: a sheet per document, money as numbers.
        await page.goto(f"{core.url}/ui/consolidations/{consolidation_id}")
        async with page.expect_download() as download_info:
            await page.click("#export-xlsx")
        download = await download_info.value
        assert download.suggested_filename == "ООО «Промтехснаб», кредитная заявка 2024.xlsx"
        book = CalamineWorkbook.from_path(await download.path())
        assert book.sheet_names == ["1 ОСВ", "Замечания"]
        sheet = book.get_sheet_by_name("1 ОСВ").to_python()
        captions = next(i for i, row in enumerate(sheet) if row[:2] == ["Счёт", "Наименование"])
        assert len(sheet) - captions - 2 == len(lines)  # the rows, then the totals
        assert all(isinstance(value, float) for value in sheet[captions + 1][3:9] if value != "")


async def test_timed_out_file_is_retried_from_its_page(
    ui_settings: Any,
    browser: Browser,
    nats_server: Any,
    open_page: Any,
    screenshot: Any,
    write_result: Any,
) -> None:
    settings = ui_settings(reply_timeout_seconds=30, watchdog_period_seconds=0.1)
    dsn = settings.database_dsn
    service = await StubService(nats_server.url, settings.subjects).connect()
    await service.listen()
    try:
        async with run_core(settings) as core:
            book = books.xlsx([books.general_osv()])
            created = (await upload(core.client, "Выписка Приорбанк март.xlsx", book)).json()
            file_id, first = uuid.UUID(created["file_id"]), uuid.UUID(created["job_id"])
            await service.next_request()
            await service.send(first, file_id, "processing", version="2.0")
            # Attempt 1 runs out of time; attempt 2 keeps the long deadline for the rest.
            async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
                await conn.execute(
                    "UPDATE recognition_job SET reply_deadline = now() - interval '1 second'"
                    " WHERE id = %s",
                    (first,),
                )
            await wait_until(lambda: _file_is(dsn, file_id, "ERROR"), timeout=10)
            assert (await file_row(dsn, file_id))["error_code"] == "TIMEOUT"

            async with open_page(browser) as page:
                await page.goto(f"{core.url}/ui/files/{file_id}")
                await page.evaluate("window.sameDocument = true")
                await expect(page.locator("#file-main")).to_contain_text("Истекло время обработки")
                await expect(page.locator('#attempts li[data-attempt="1"]')).to_have_attribute(
                    "data-status", "timeout"
                )
                await expect(page.locator("#retry")).to_be_enabled()
                await screenshot(page, "file-timed-out")
                async with page.expect_download() as download_info:
                    await page.click("#download")
                download = await download_info.value
                assert download.suggested_filename == "Выписка Приорбанк март.xlsx"
                with open(await download.path(), "rb") as saved:  # noqa: ASYNC230 (a small local file)
                    assert saved.read() == book

                await page.click("#retry")
                await expect(page.locator('#attempts li[data-attempt="2"]')).to_be_visible()
                await expect(page.locator("#retry")).to_be_disabled()
                second = uuid.UUID(
                    (await core.client.get(f"/api/v1/files/{file_id}")).json()["current_job_id"]
                )
                request = await service.next_request()
                assert request.headers is not None
                await service.send(second, file_id, "processing", attempt=2, version="2.0")
                await expect(
                    page.locator("#file-main > .page-head .badge[data-status]")
                ).to_have_text("Распознаётся")

                await write_result(
                    settings,
                    "result-2.1-needs_check-osv-account-and-statement.json",
                    file_id,
                    second,
                )
                await service.send(
                    second, file_id, "needs_check", attempt=2, version="2.0",
                    result_s3=S3Ref(bucket="arm-ka", key=result_key(file_id, second)),
                    result_schema_version="2.1",
                )  # fmt: skip
                await expect(page.locator("#needs-check")).to_be_visible(timeout=15_000)
                await expect(page.locator('#attempts li[data-attempt="2"]')).to_have_attribute(
                    "data-status", "needs_check"
                )
                await expect(page.locator('#attempts li[data-attempt="1"]')).to_have_attribute(
                    "data-status", "timeout"
                )
                assert await page.evaluate("window.sameDocument") is True, "the page was reloaded"
                await screenshot(page, "file-attempts")

                await page.click("#documents-link")
                await expect(page.locator("#needs-check")).to_contain_text("Требует проверки")
                flagged = page.locator("#osv-1 tbody tr.flagged")
                await expect(flagged).to_have_count(1)
                await expect(flagged).to_contain_text("ИП Ковалёв А. Н.")
                await expect(page.locator("#osv-1 tfoot tr.flagged")).to_have_count(1)
                await expect(page.locator(".statement")).to_contain_text("ОАО «Приорбанк»")
                await expect(page.locator(".statement .checks li.ok").first).to_contain_text(
                    "Остаток на начало"
                )
                await expect(page.locator(".statement")).to_contain_text(
                    "лист «Выписка», строка 11, столбец F"
                )
                await screenshot(page, "documents-needs-check")
        assert await _attempts(dsn, file_id) == [1, 2]
    finally:
        await service.close()


async def test_double_click_on_retry_makes_one_attempt(
    ui_settings: Any, browser: Browser, open_page: Any
) -> None:
    settings = ui_settings(nats_enabled=False)
    dsn = settings.database_dsn
    file_id, job_id = await insert_file_with_job(
        dsn, status="error", original_name="ОСВ 60.xls", file_type="XLS"
    )
    # The service could not fetch the file from storage: a new attempt may well succeed.
    await _execute(
        dsn, "UPDATE recognition_job SET error_code = 'FILE_READ_ERROR' WHERE id = %s", job_id
    )
    await _execute(
        dsn,
        "UPDATE stored_file SET status = 'ERROR', error_code = 'FILE_READ_ERROR' WHERE id = %s",
        file_id,
    )
    other, _ = await insert_file_with_job(dsn, status="timeout")
    async with run_core(settings) as core, open_page(browser) as page:
        posts: list[str] = []
        page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
        await page.goto(f"{core.url}/ui/files/{file_id}")
        await expect(page.locator("#file-main")).to_contain_text("Файл не получен сервисом")
        await page.dblclick("#retry")
        await expect(page.locator('#attempts li[data-attempt="2"]')).to_be_visible()
        await expect(page.locator("#flash")).to_have_text("Создана попытка 2.")
        await asyncio.sleep(0.5)  # a second request, if one had been sent, lands by now
        assert posts == [f"{core.url}/ui/files/{file_id}/retry"]
        assert await _attempts(dsn, file_id) == [1, 2]
        await expect(page.locator("#attempts li[data-attempt]")).to_have_count(2)

        # Two requests that do reach the server (two tabs, say): it makes one attempt.
        statuses = await page.evaluate(
            """async (url) => {
                const responses = await Promise.all([fetch(url, {method: "POST"}), fetch(url, {method: "POST"})]);
                return responses.map((r) => r.status).sort();
            }""",
            f"{core.url}/ui/files/{other}/retry",
        )
        assert statuses == [201, 409]
        assert await _attempts(dsn, other) == [1, 2]


async def test_batch_retry_shows_the_outcome_of_each_file(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    settings = ui_settings(nats_enabled=False)
    dsn = settings.database_dsn
    async with run_core(settings) as core:
        consolidation = (
            await core.client.post(
                "/api/v1/consolidations", json={"name": "ОАО «Гомельстройматериалы»"}
            )
        ).json()
        files = {
            "error": await insert_file_with_job(dsn, status="error", original_name="ОСВ 2024.xlsx"),
            "timeout": await insert_file_with_job(
                dsn, status="timeout", original_name="Выписка USD.xlsx"
            ),
            "done": await insert_file_with_job(dsn, status="done", original_name="ОСВ 62.xlsx"),
            "spent": await insert_file_with_job(
                dsn,
                status="dlq",
                attempt=3,
                max_attempts=3,
                original_name="скан.pdf",
                file_type="PDF",
                pipeline="image",
            ),
        }
        file_status = {
            "error": ("ERROR", "RECOGNITION_FAILED"),
            "timeout": ("ERROR", "TIMEOUT"),
            "done": ("RECOGNIZED", None),
            "spent": ("ERROR", "NO_ACK"),
        }
        for key, (file_id, _) in files.items():
            status, code = file_status[key]
            await _execute(
                dsn,
                "UPDATE stored_file SET consolidation_id = %s, status = %s, error_code = %s WHERE id = %s",
                consolidation["id"], status, code, file_id,
            )  # fmt: skip

        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/consolidations/{consolidation['id']}")
            await expect(page.locator("#file-rows tr[data-status]")).to_have_count(4)
            await expect(_row(page, files["spent"][0])).to_contain_text(
                "Сервис распознавания не ответил"
            )
            await page.check("#pick-all")
            await page.click("#batch-retry")
            outcomes = page.locator("#batch-outcomes tbody tr")
            await expect(outcomes).to_have_count(4)
            for key, expected in (
                ("error", "retried"),
                ("timeout", "retried"),
                ("done", "skipped"),
                ("spent", "skipped"),
            ):
                await expect(
                    page.locator(f'#batch-outcomes tr[data-file="{files[key][0]}"]')
                ).to_have_attribute("data-outcome", expected)
            await expect(
                page.locator(f'#batch-outcomes tr[data-file="{files["spent"][0]}"]')
            ).to_contain_text("Исчерпан лимит попыток: 3 из 3")
            await expect(
                page.locator(f'#batch-outcomes tr[data-file="{files["done"][0]}"]')
            ).to_contain_text("Повтор невозможен. Файл уже распознан")
            await expect(page.locator(".batch")).to_contain_text("повторено 2, пропущено 2")
            # The list shows the new attempts without a reload.
            await expect(_row(page, files["error"][0])).to_have_attribute("data-status", "UPLOADED")
            await expect(_row(page, files["error"][0]).locator("td.num").last).to_have_text(
                "2 из 3"
            )
            await screenshot(page, "batch-retry")

    for key, attempts in (("error", [1, 2]), ("timeout", [1, 2]), ("done", [1]), ("spent", [3])):
        assert await _attempts(dsn, files[key][0]) == attempts, key


async def _file_is(dsn: str, file_id: uuid.UUID, status: str) -> bool:
    row = await fetch_one(dsn, "SELECT status FROM stored_file WHERE id = %s", file_id)
    return row is not None and row["status"] == status
