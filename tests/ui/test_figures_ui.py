"""Figures the analyst can trust on screen: a trial balance in thousands says «тыс. руб.»
beside its amounts and in its export, amounts in messages read as in the tables; a
password-protected book is called that when it is dropped; a file whose own content failed is
not offered a retry that would spend an attempt for the same answer."""

from __future__ import annotations

import io
from typing import Any

import psycopg
import pytest
from playwright.async_api import Browser, expect
from python_calamine import CalamineWorkbook

from arm_core.testing import fetch_one, insert_file_with_job, mapped_file, run_core, wait_until
from tabular_parser import testing as books

pytestmark = pytest.mark.timeout(90)

OSV = "result-2.0-done-osv-general.json"


def _in_thousands_of_roubles(result: dict[str, Any]) -> None:
    result["documents"][0].update(unit="thousands", currency="RUB")


async def test_a_trial_balance_in_thousands_says_so_beside_its_amounts(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    settings = ui_settings()
    async with run_core(settings) as core:
        file_id = await mapped_file(
            settings, OSV, _in_thousands_of_roubles, original_name="ОСВ 1 кв.xlsx"
        )

        async def mapped() -> bool:
            row = await fetch_one(
                settings.database_dsn, "SELECT status FROM stored_file WHERE id = %s", file_id
            )
            return row is not None and row["status"] == "RECOGNIZED"

        await wait_until(mapped)
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/files/{file_id}/documents")
            await expect(page.locator("#doc-1 .facts .denomination")).to_have_text("тыс. руб.")
            await expect(page.locator("#osv-1 caption")).to_have_text("Суммы в тыс. руб.")
            await screenshot(page, "documents-denomination")
        export = await core.client.get(f"/api/v1/files/{file_id}/export")
    book = CalamineWorkbook.from_filelike(io.BytesIO(export.content))
    rows = book.get_sheet_by_name(book.sheet_names[0]).to_python()
    assert ["Суммы в", "тыс. руб."] in [row[:2] for row in rows]


async def test_a_protected_book_is_named_so_when_dropped(
    ui_settings: Any, browser: Browser, open_page: Any
) -> None:
    protected = books.encrypted_xlsx(books.xlsx([books.general_osv(accounts=2)]), "пароль")
    async with run_core(ui_settings()) as core, open_page(browser) as page:
        await page.goto(f"{core.url}/ui/files")
        await page.set_input_files(
            "#file-picker",
            files=[
                {
                    "name": "ОСВ 2024.xlsx",
                    "mimeType": "application/octet-stream",
                    "buffer": protected,
                }
            ],
        )
        item = page.locator('.upload-item[data-code="PASSWORD_PROTECTED"] .u-why')
        await expect(item).to_contain_text("Книга защищена паролем")
        await expect(item).to_contain_text("снимите пароль")


async def test_a_file_that_failed_by_its_own_content_offers_no_retry(
    ui_settings: Any, browser: Browser, open_page: Any
) -> None:
    settings = ui_settings()
    dsn = settings.database_dsn
    damaged, damaged_job = await insert_file_with_job(dsn, status="error")
    late, late_job = await insert_file_with_job(dsn, status="timeout")
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        for file_id, job_id, code in (
            (damaged, damaged_job, "UNREADABLE"),
            (late, late_job, "TIMEOUT"),
        ):
            await conn.execute(
                "UPDATE recognition_job SET error_code = %s WHERE id = %s", (code, job_id)
            )
            await conn.execute(
                "UPDATE stored_file SET status = 'ERROR', error_code = %s WHERE id = %s",
                (code, file_id),
            )
    async with run_core(settings) as core, open_page(browser) as page:
        await page.goto(f"{core.url}/ui/files/{damaged}")
        await expect(page.locator("#retry")).to_be_disabled()
        await expect(page.locator(".why-not")).to_contain_text("Повтор не поможет")
        await page.goto(f"{core.url}/ui/files/{late}")
        await expect(page.locator("#retry")).to_be_enabled()
