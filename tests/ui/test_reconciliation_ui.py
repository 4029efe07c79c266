"""«Сверки» in the browser: a statement whose opening balance does not continue the previous
month's closing balance is named on the consolidation's page, with the amount, and its link
opens the document."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, expect

from arm_core.testing import fetch_one, mapped_file, run_core, wait_for_files

pytestmark = pytest.mark.timeout(90)

MARCH = "result-1.0-done-statement.json"  # BY66…0933, closing 64 087,85 on 31.03.2025
APRIL = "result-2.0-needs_check-statement.json"  # April 2025, opening 15 300,00


def _same_account(data: dict[str, Any]) -> None:
    """April's statement of March's account: its opening balance then breaks the chain."""
    data["documents"][0]["header"]["account"] = "BY66PJCB30120612341010000933"


async def _march_and_april(core: Any, settings: Any) -> tuple[str, Any]:
    """A consolidation with March's statement and April's of the same account, mapped: its
    id and April's file."""
    made = await core.client.post("/api/v1/consolidations", json={"name": "ООО «Альфа»"})
    consolidation_id = made.json()["id"]
    march = await mapped_file(
        settings, MARCH, original_name="Выписка март.pdf", consolidation_id=consolidation_id
    )
    april = await mapped_file(
        settings,
        APRIL,
        _same_account,
        original_name="Выписка апрель.pdf",
        consolidation_id=consolidation_id,
    )
    await wait_for_files(settings.database_dsn, [march, april], "RECOGNIZED", "NEEDS_CHECK")
    return consolidation_id, april


async def test_a_statement_that_does_not_chain_is_named_in_the_reconciliation(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    settings = ui_settings()
    async with run_core(settings) as core:
        consolidation_id, april = await _march_and_april(core, settings)
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/consolidations/{consolidation_id}")
            chain = page.locator('#reconciliation [data-check="STATEMENT_CHAIN"]')
            await expect(chain).to_have_class("check bad")
            finding = chain.locator('[data-code="BALANCE_BREAK"]')
            await expect(finding).to_contain_text(
                "остаток на конец 31.03.2025 64\u00a0087,85, а на начало 01.04.2025 15\u00a0300,00"
            )
            await expect(finding.locator(".difference")).to_contain_text("−48\u00a0787,85")
            await expect(page.locator('#reconciliation [data-check="SAME_FILE"]')).to_have_class(
                "check ok"
            )
            await screenshot(page, "reconciliation")
            await finding.get_by_role("link", name="Выписка апрель.pdf").click()
            await expect(page.locator("h1")).to_contain_text("Документы файла «Выписка апрель.pdf»")
            assert page.url.endswith(f"/ui/files/{april}/documents#doc-1")


async def test_a_file_excluded_from_the_checks_clears_its_false_finding_and_comes_back(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    """The April statement breaks the chain (say it is another company's account, mislabeled):
    the analyst leaves it out with a reason, the finding goes, the file is listed as left out
    with who and why, and it can be taken back in."""
    settings = ui_settings()
    async with run_core(settings) as core:
        consolidation_id, april = await _march_and_april(core, settings)
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/consolidations/{consolidation_id}")
            chain = page.locator('#reconciliation [data-check="STATEMENT_CHAIN"]')
            await expect(chain).to_have_class("check bad")
            await page.locator("#reconciliation details.exclude summary").click()
            form = page.locator("#reconciliation .exclude-form")
            await form.locator('select[name="file_id"]').select_option(str(april))
            await form.locator('input[name="reason"]').fill("выписка другой организации")
            await form.locator("button[type=submit]").click()
            await expect(chain).not_to_have_class("check bad")
            left_out = page.locator(f'#reconciliation .excluded li[data-file="{april}"]')
            await expect(left_out).to_contain_text("Выписка апрель.pdf")
            await expect(left_out).to_contain_text("dev")
            await expect(left_out).to_contain_text("выписка другой организации")
            await screenshot(page, "reconciliation-excluded")
            await left_out.locator("button").click()
            await expect(chain).to_have_class("check bad")
            await expect(page.locator("#reconciliation .excluded")).to_have_count(0)
        trail = await fetch_one(
            settings.database_dsn,
            "SELECT array_agg(action ORDER BY id) AS actions FROM audit_log"
            " WHERE action LIKE 'reconciliation.%%'",
        )
    assert trail["actions"] == ["reconciliation.exclude", "reconciliation.include"]
