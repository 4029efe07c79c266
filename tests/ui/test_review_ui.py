"""An analyst reviews a document in the browser: corrects a total and a period, sees the
checks made again and what was changed, finds the correction in the audit trail, and confirms
the document with a reason for the warning left."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, expect

from arm_core.testing import fetch_one, mapped_file, run_core, wait_for_files

pytestmark = pytest.mark.timeout(90)

STATEMENT = "result-2.0-needs_check-statement.json"  # totals 4 789,00 Дт, lines 2 789,00


async def _correct(page: Any, spot: str, value: str, reason: str) -> None:
    form = page.locator("#review-1 .correction-form")
    if not await form.is_visible():
        await page.locator("#review-1 details.correct summary").click()
    await form.locator('select[name="spot"]').select_option(spot)
    await form.locator('input[name="value"]').fill(value)
    await form.locator('input[name="reason"]').fill(reason)
    async with page.expect_navigation():
        await form.locator("button[type=submit]").click()


async def test_an_analyst_corrects_and_confirms_a_statement(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    settings = ui_settings()
    async with run_core(settings) as core:
        file_id = await mapped_file(settings, STATEMENT, original_name="Выписка апрель.pdf")

        await wait_for_files(settings.database_dsn, [file_id], "NEEDS_CHECK")
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/files/{file_id}/documents")
            checks = page.locator("#doc-1 .checks")
            await expect(checks).to_contain_text(
                "Сумма строк по дебету 2\u00a0789,00 не равна итогу"
            )

            await _correct(page, "header:total_debit", "2789.00", "итог прочитан с ошибкой")
            corrections = page.locator("#review-1 .corrections li")
            await expect(corrections).to_have_count(1)
            await expect(corrections.first).to_contain_text(
                "итого списано: 4\u00a0789,00 → 2\u00a0789,00"
            )
            await expect(checks).not_to_contain_text("по дебету")

            await _correct(page, "header:period_from", "02.04.2025", "начало периода со 2-го")
            await expect(corrections).to_have_count(2)
            await expect(page.locator("#doc-1 .facts")).to_contain_text("02.04.2025 – 30.04.2025")
            await screenshot(page, "documents-corrected")

            left = page.locator('#review-1 .confirm-form input[name="reason"]')
            if await left.count():
                await left.fill("сверено с оригиналом выписки")
            async with page.expect_navigation():
                await page.locator("#review-1 .confirm-form button").click()
            await expect(page.locator("#review-1 .confirmed")).to_contain_text(
                "Документ подтверждён: dev"
            )
            await expect(page.locator("#review-1 .confirm-form")).to_have_count(0)

            await page.goto(f"{core.url}/ui/audit?action=document.correct")
            await expect(page.locator("#audit tbody tr")).to_have_count(2)
            await expect(page.locator("#audit tbody tr").last).to_contain_text("total_debit")


async def test_a_confirmed_document_reads_confirmed_everywhere_until_a_correction_reopens_it(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    """Confirmed means confirmed: on the document, its file and its consolidation («N из M»);
    a correction made after it takes the confirmation back, and says so."""
    settings = ui_settings()
    async with run_core(settings) as core:
        made = await core.client.post("/api/v1/consolidations", json={"name": "ООО Ромашка"})
        consolidation_id = made.json()["id"]
        file_id = await mapped_file(
            settings,
            STATEMENT,
            original_name="Выписка апрель.pdf",
            consolidation_id=consolidation_id,
        )

        await wait_for_files(settings.database_dsn, [file_id], "NEEDS_CHECK")
        async with open_page(browser) as page:
            documents = f"{core.url}/ui/files/{file_id}/documents"
            await page.goto(documents)
            state = page.locator("#doc-1 .review-state")
            await expect(state).to_have_text("Требует проверки")
            await expect(page.locator("#needs-check")).to_be_visible()
            await expect(page.locator(".page-head .confirmed-count")).to_have_text(
                "подтверждено 0 из 1"
            )

            await page.locator('#review-1 .confirm-form input[name="reason"]').fill(
                "сверено с оригиналом выписки"
            )
            async with page.expect_navigation():
                await page.locator("#review-1 .confirm-form button").click()
            await expect(state).to_have_text("Подтверждён")
            await expect(page.locator("#needs-check")).to_have_count(0)
            await expect(page.locator(".page-head .confirmed-count")).to_have_text(
                "подтверждено 1 из 1"
            )
            await screenshot(page, "documents-confirmed")

            await page.goto(f"{core.url}/ui/files/{file_id}")
            await expect(page.locator(".page-head .confirmed-count")).to_have_text(
                "подтверждено 1 из 1"
            )
            await expect(page.locator("#needs-check")).to_have_count(0)
            await page.goto(f"{core.url}/ui/consolidations")
            await expect(
                page.locator(f"#consolidation-{consolidation_id} .confirmed-count")
            ).to_have_text("1 из 1")
            await page.goto(f"{core.url}/ui/consolidations/{consolidation_id}")
            await expect(page.locator(".page-head .confirmed-count")).to_have_text(
                "подтверждено 1 из 1"
            )
            await expect(page.locator(f"#file-{file_id} .confirmed-count")).to_have_text(
                "подтверждено 1 из 1"
            )

            await page.goto(documents)
            await _correct(page, "header:total_debit", "2789.00", "итог прочитан с ошибкой")
            await expect(state).to_have_text("Открыт снова")
            await expect(page.locator("#review-1 .reopened")).to_contain_text(
                "Подтверждение снято исправлением: dev"
            )
            await expect(page.locator(".page-head .confirmed-count")).to_have_text(
                "подтверждено 0 из 1"
            )
            await screenshot(page, "documents-reopened")


async def test_a_correction_made_from_its_row_lands_on_that_row_and_can_be_undone(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    """The analyst corrects the operation they see (its «№» in the table, not a sheet row),
    sees the recognised value beside the current one, and undoes the correction."""
    settings = ui_settings()
    async with run_core(settings) as core:
        file_id = await mapped_file(settings, STATEMENT, original_name="Выписка апрель.pdf")

        await wait_for_files(settings.database_dsn, [file_id], "NEEDS_CHECK")
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/files/{file_id}/documents")
            third = page.locator("#doc-1 .statement-table tbody tr").nth(2)
            await expect(third).to_contain_text("930,00")
            await third.locator(".edit-row").click()
            editor = page.locator("#row-editor-1 .row-editor")
            await expect(editor).to_contain_text("Исправить операцию № 3")
            await editor.locator('select[name="spot"]').select_option("transaction:debit")
            await expect(editor.locator('select[name="spot"]')).to_contain_text(
                "дебет — сейчас: 930,00"
            )
            await editor.locator('input[name="value"]').fill("903,00")
            await editor.locator('input[name="reason"]').fill("цифры переставлены при чтении")
            async with page.expect_navigation():
                await editor.locator("button[type=submit]").click()
            rows = page.locator("#doc-1 .statement-table tbody tr")
            await expect(rows.nth(2)).to_contain_text("903,00")
            # The operation of the sheet's row 3 is another one, and it is untouched.
            await expect(rows.nth(1)).to_contain_text("1\u00a0850,60")
            corrections = page.locator("#review-1 .corrections li")
            await expect(corrections).to_have_count(1)
            await expect(corrections.first).to_contain_text("операция 3")
            await expect(corrections.first).to_contain_text("930,00 → 903,00")
            await screenshot(page, "documents-row-correction")

            await rows.nth(2).locator(".edit-row").click()
            await expect(
                page.locator('#row-editor-1 select[name="spot"] option[value="transaction:debit"]')
            ).to_contain_text("сейчас: 903,00, распознано: 930,00")

            page.once("dialog", lambda dialog: dialog.accept())
            async with page.expect_navigation():
                await corrections.first.locator("button.undo").click()
            await expect(page.locator("#review-1 .corrections li")).to_have_count(0)
            await expect(page.locator("#doc-1 .statement-table tbody tr").nth(2)).to_contain_text(
                "930,00"
            )
        trail = await fetch_one(
            settings.database_dsn,
            "SELECT count(*) AS n FROM audit_log WHERE action = 'document.uncorrect'",
        )
    assert trail["n"] == 1
