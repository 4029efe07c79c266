"""The source beside the data, in the browser: a trial balance's row and a warning open the
sheet as the real tabular-parser read it, the row highlighted."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from playwright.async_api import Browser, expect

from arm_core.testing import file_row, run_core, upload, wait_until
from tabular_parser import testing as books

pytestmark = pytest.mark.timeout(90)


async def test_a_row_opens_the_cells_it_came_from(
    ui_settings: Any, browser: Browser, open_page: Any, run_parser: Any, screenshot: Any
) -> None:
    settings = ui_settings()
    book = books.xlsx([books.general_osv(accounts=30, subaccounts=2)])
    async with run_core(settings) as core, run_parser(settings):
        uploaded = await upload(core.client, "ОСВ 2024.xlsx", book)
        file_id = uuid.UUID(uploaded.json()["file_id"])

        async def recognised() -> bool:
            return (await file_row(settings.database_dsn, file_id))["status"] == "RECOGNIZED"

        await wait_until(recognised, timeout=30)
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/files/{file_id}/documents")
            row = page.locator("#osv-1 tbody tr").nth(40)
            code = (await row.locator("td.acc").inner_text()).strip()
            name = (await row.locator("td.label").inner_text()).strip()
            await row.locator("a.source-link").click()
            here = page.locator("#source tr.here")
            await expect(here).to_have_count(1)
            await expect(here).to_contain_text(code)
            await expect(here).to_contain_text(name)
            await expect(page.locator("#source tbody tr")).to_have_count(31)  # 15 either side
            await expect(page.locator("#source thead th").nth(1)).to_have_text("A")
            await screenshot(page, "source-sheet")
            await page.click("a[rel=next]")
            await expect(page.locator("#source tr.here")).to_have_count(1)
            answer = await core.client.get(
                f"/api/v1/files/{file_id}/source", params={"sheet": "Лист", "row": 1}
            )
            assert answer.status_code == 404
            assert answer.json()["error"]["code"] == "SHEET_NOT_FOUND"
