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
STATEMENT_Q1 = APRIL  # rewritten into the quarter a trial balance covers


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


OSV = "result-2.0-done-osv-general.json"  # ООО «Промтехснаб», Q1 2025, 51: 48 250,75 → 73 250,75


def _promtekhsnab_q1(data: dict[str, Any]) -> None:
    """The statement of account 51 of the trial balance's company for its quarter: incoming
    60 000,00, outgoing 35 000,00, as the trial balance's 51 says."""
    doc = data["documents"][0]
    doc["header"].update(
        holder_name="ООО «Промтехснаб»",
        holder_tax_id="192745313",
        account="BY66PJCB30120612341010000933",
        period={"from": "2025-01-01", "to": "2025-03-31", "text": "01.01.2025 - 31.03.2025"},
        opening_balance="48250.75",
        closing_balance="73250.75",
        total_debit="35000.00",
        total_credit="60000.00",
    )
    first, second = doc["transactions"][:2]
    first.update(date="2025-02-03", debit=None, credit="60000.00")
    second.update(date="2025-03-03", debit="35000.00", credit=None)
    doc["transactions"] = [first, second]
    doc["warnings"] = []
    data["status"] = "done"


def _another_company(data: dict[str, Any]) -> None:
    _promtekhsnab_q1(data)
    data["documents"][0]["header"].update(
        holder_name="ООО «Лютик»",
        holder_tax_id="190657200",
        account="BY95ALFA30122231870010270000",
        opening_balance="1000.00",
        closing_balance="26000.00",
    )


async def test_the_reconciliation_compares_like_with_like(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    """The quarter's statement uploaded twice (a PDF and its Excel twin) is summed once against
    account 51, and another company's statement in the consolidation is not summed at all."""
    settings = ui_settings()
    async with run_core(settings) as core:
        made = await core.client.post("/api/v1/consolidations", json={"name": "Промтехснаб"})
        consolidation_id = made.json()["id"]
        files = [
            await mapped_file(
                settings, OSV, original_name="ОСВ 1 кв.xlsx", consolidation_id=consolidation_id
            ),
            await mapped_file(
                settings,
                STATEMENT_Q1,
                _promtekhsnab_q1,
                original_name="Выписка 1 кв.pdf",
                consolidation_id=consolidation_id,
            ),
            await mapped_file(
                settings,
                STATEMENT_Q1,
                _promtekhsnab_q1,
                original_name="Выписка 1 кв.xlsx",
                consolidation_id=consolidation_id,
            ),
            await mapped_file(
                settings,
                STATEMENT_Q1,
                _another_company,
                original_name="Выписка Лютик.pdf",
                consolidation_id=consolidation_id,
            ),
        ]
        await wait_for_files(settings.database_dsn, files, "RECOGNIZED", "NEEDS_CHECK")
        async with open_page(browser) as page:
            await page.goto(f"{core.url}/ui/consolidations/{consolidation_id}")
            bank = page.locator('#reconciliation [data-check="BANK_ACCOUNTS"]')
            await expect(bank).to_have_class("check ok")
            copy = page.locator('#reconciliation [data-code="SAME_DOCUMENT"]')
            await expect(copy).to_contain_text("учтена один раз, по «Выписка 1 кв.pdf»")
            await screenshot(page, "reconciliation-like-with-like")
