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

from arm_core.testing import (
    fetch_one,
    insert_file_with_job,
    mapped_file,
    run_core,
    wait_for_files,
    wait_until,
)
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

        await wait_for_files(settings.database_dsn, [file_id], "RECOGNIZED")
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/files/{file_id}/documents")
            await expect(page.locator("#doc-1 .facts .denomination")).to_have_text("тыс. руб.")
            await expect(page.locator("#osv-1 caption")).to_have_text("Единицы сумм: тыс. руб.")
            await screenshot(page, "documents-denomination")
        export = await core.client.get(f"/api/v1/files/{file_id}/export")
    book = CalamineWorkbook.from_filelike(io.BytesIO(export.content))
    rows = book.get_sheet_by_name(book.sheet_names[0]).to_python()
    assert ["Единицы сумм", "тыс. руб."] in [row[:2] for row in rows]


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
        await expect(item).to_contain_text("Файл защищён паролем")
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


# A statement with no account line in its head, one operation of 2.0E+16 among ordinary ones.
ABSURD_STATEMENT = [
    ["Банк: ОАО «Приорбанк», БИК PJCBBY2X"],
    ["Выписка за период с 01.03.2025 по 31.03.2025"],
    ["Клиент: ООО «Промтехснаб», УНП 192745313"],
    ["Входящий остаток:", None, "1 000,00"],
    [],
    ["Дата", "№ док", "Сумма", "Контрагент", "УНП", "Назначение платежа"],
    ["03.03.2025", "1", 500.0, "ОАО «Керамин»", "190657200", "Оплата"],
    ["05.03.2025", "2", -200.0, "ООО «ТрансЛогистик»", "192745313", "Услуги"],
    ["06.03.2025", "3", 2.0e16, "ООО «Ромашка»", "192745313", "Оплата по договору"],
    ["Исходящий остаток:", None, "1 300,00"],
]


async def test_an_absurd_amount_is_flagged_on_its_row_and_no_title_says_none(
    ui_settings: Any, browser: Browser, open_page: Any, run_parser: Any, screenshot: Any
) -> None:
    settings = ui_settings()
    book = books.xlsx([books.Sheet("Выписка", ABSURD_STATEMENT)])
    async with run_core(settings) as core, run_parser(settings), open_page(browser) as page:
        uploaded = await core.client.post(
            "/api/v1/files", files={"file": ("Выписка март.xlsx", book)}
        )
        file_id = uploaded.json()["file_id"]

        async def recognised() -> bool:
            row = await fetch_one(
                settings.database_dsn, "SELECT status FROM stored_file WHERE id = %s", file_id
            )
            return row is not None and row["status"] in ("RECOGNIZED", "NEEDS_CHECK", "ERROR")

        await wait_until(recognised, timeout=60)
        await page.goto(f"{core.url}/ui/files/{file_id}/documents")
        await expect(page.locator("#doc-1 h2")).to_have_text("Выписка (счёт не прочитан)")
        await expect(page.locator(".doc-index")).not_to_contain_text("None")
        flagged = page.locator("#doc-1 tr.flagged")
        await expect(flagged).to_have_count(1)
        await expect(flagged).to_contain_text("Оплата по договору")
        warning = page.locator("#doc-1 .warnings li", has_text="Сумма вне масштаба документа")
        await expect(warning).to_contain_text("20\u00a0000\u00a0000\u00a0000\u00a0000\u00a0000,00")
        await screenshot(page, "documents-outlier")
