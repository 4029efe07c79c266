"""The source beside the data, in the browser: a trial balance's row and a warning open the
sheet as the real tabular-parser read it, the row highlighted; a PDF's row opens its page as
the real scan-gateway read it, the row's box drawn on it."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from playwright.async_api import Browser, expect

from arm_core.testing import file_row, run_core, upload, wait_until
from recognition_corpus import generate
from recognition_corpus.exports import generate_exports
from scan_gateway import testing as scans
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
            # The header's merged captions, as the workbook shows them.
            await page.goto(f"{core.url}/ui/files/{file_id}/source?sheet=ОСВ&row=5")
            merged = page.locator('#source tr.here td[colspan="2"]')
            await expect(merged).to_have_count(3)
            await expect(merged.first).to_contain_text("Сальдо на начало")
            answer = await core.client.get(
                f"/api/v1/files/{file_id}/source", params={"sheet": "Лист", "row": 1}
            )
            assert answer.status_code == 404
            assert answer.json()["error"]["code"] == "SHEET_NOT_FOUND"


async def test_a_pdf_row_opens_its_page_with_the_box_drawn(
    ui_settings: Any, browser: Browser, open_page: Any, run_gateway: Any, screenshot: Any
) -> None:
    settings = ui_settings()
    layout = generate(seed=3, per_family=1, families=["osv-by"])[0]
    printed = scans.text_pdf(layout, ruled=True)
    assert printed is not None
    async with run_core(settings) as core, run_gateway(settings):
        uploaded = await upload(core.client, "ОСВ 2024.pdf", printed.data)
        file_id = uuid.UUID(uploaded.json()["file_id"])

        async def recognised() -> bool:
            status = (await file_row(settings.database_dsn, file_id))["status"]
            return status in ("RECOGNIZED", "NEEDS_CHECK")

        await wait_until(recognised, timeout=60)
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/files/{file_id}/documents")
            rows = page.locator("#osv-1 tbody tr")
            boxes = []
            for index in (0, 5):
                await page.goto(f"{core.url}/ui/files/{file_id}/documents")
                await rows.nth(index).locator("a.source-link").click()
                image = page.locator("#source img")
                await expect(image).to_be_visible()
                loaded = await image.evaluate("img => img.complete && img.naturalWidth")
                assert loaded > 0
                here = page.locator("#source rect#here")
                await expect(here).to_have_count(1)
                picture, frame = await image.bounding_box(), await here.bounding_box()
                assert picture is not None and frame is not None
                # The frame lies on the page image, a line's height, not the whole page.
                assert picture["y"] <= frame["y"] and frame["y"] + frame["height"] <= (
                    picture["y"] + picture["height"]
                )
                assert 0 < frame["height"] < picture["height"] / 10
                boxes.append(frame["y"] - picture["y"])
            await screenshot(page, "source-page")
            # The sixth row is printed below the first.
            assert boxes[1] > boxes[0]
            listed = await core.client.get(f"/api/v1/files/{file_id}/source/pages")
            assert [p["page"] for p in listed.json()["pages"]] == [1]
            image_answer = await core.client.get(listed.json()["pages"][0]["image_url"])
            assert image_answer.headers["content-type"] == "image/jpeg"


async def test_an_operation_of_a_1c_export_opens_the_lines_it_came_from(
    ui_settings: Any, browser: Browser, open_page: Any, run_parser: Any, screenshot: Any
) -> None:
    settings = ui_settings()
    export = next(
        item
        for item in generate_exports(seed=41, count=200)
        if item.params["format"] == "1c"
        and item.params["layout"] == "header+sections"
        and item.params["totals"] == "agree"
        and item.params["per_day"] >= 3
    )
    async with run_core(settings) as core, run_parser(settings):
        uploaded = await upload(core.client, "kl_to_1c.txt", export.data)
        file_id = uuid.UUID(uploaded.json()["file_id"])

        async def recognised() -> bool:
            return (await file_row(settings.database_dsn, file_id))["status"] == "RECOGNIZED"

        await wait_until(recognised, timeout=30)
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/files/{file_id}/documents")
            row = page.locator("section.statement tbody tr, .statement-table tbody tr").first
            await expect(row).to_contain_text("Платежное поручение")
            await row.locator("a.source-link").click()
            await expect(page.locator("h1")).to_contain_text("файла")
            here = page.locator("#source tr.here")
            await expect(here.first).to_contain_text("СекцияДокумент=")
            await expect(here.last).to_contain_text("КонецДокумента")
            await expect(page.locator("#source thead th").nth(1)).to_have_text("Текст файла")
            await screenshot(page, "source-text-lines")
