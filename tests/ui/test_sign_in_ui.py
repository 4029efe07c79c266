"""Signing in through the bank's identity provider in a real browser: an OpenID Connect
issuer made in the test, the authorization-code flow with PKCE, a page's form and upload
carrying the session's CSRF token, and signing out."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, expect

from arm_core.testing import fetch_one, run_core
from arm_core.testing_issuer import run_issuer
from tabular_parser import testing as books

pytestmark = pytest.mark.timeout(90)

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


async def test_an_analyst_signs_in_works_and_signs_out(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    async with run_issuer() as issuer:
        issuer.sign_in_as = {
            "preferred_username": "ivanova.a",
            "roles": ["analyst"],
            "groups": ["/credit/team-a"],
        }
        settings = ui_settings(**issuer.core_settings())
        async with run_core(settings) as core, open_page(browser) as page:
            await page.goto(f"{core.url}/ui/consolidations")
            # Through the issuer and back, to the page asked for.
            assert page.url == f"{core.url}/ui/consolidations"
            await expect(page.locator(".top .user")).to_have_text("ivanova.a")
            await expect(page.locator(".dev-identity")).to_have_count(0)

            await page.fill("#new-name", "ООО «Промтехснаб»")
            await page.click(".inline-form button[type=submit]")
            await expect(page.locator("h1")).to_have_text("ООО «Промтехснаб»")
            await page.set_input_files(
                "#file-picker",
                files=[
                    {
                        "name": "ОСВ 2024.xlsx",
                        "mimeType": XLSX,
                        "buffer": books.xlsx([books.general_osv(accounts=3, subaccounts=1)]),
                    }
                ],
            )
            await expect(page.locator(".upload-item.done")).to_have_count(1)
            await expect(page.locator('#file-rows tr[id^="file-"]')).to_have_count(1)
            await screenshot(page, "signed-in")

            await page.click(".sign-out button")
            # The issuer ends its own session and sends the browser home, which signs in
            # anew: as whoever the issuer now says.
            await expect(page.locator(".top .user")).to_have_text("ivanova.a")

        created = await fetch_one(
            settings.database_dsn, "SELECT team, created_by FROM consolidation"
        )
        uploaded = await fetch_one(settings.database_dsn, "SELECT created_by FROM s3_object")
        actions = await fetch_one(
            settings.database_dsn,
            "SELECT array_agg(action ORDER BY id) AS actions FROM audit_log"
            " WHERE action LIKE 'auth.%%'",
        )
    assert created == {"team": "team-a", "created_by": "ivanova.a"}
    assert uploaded == {"created_by": "ivanova.a"}
    assert actions == {"actions": ["auth.sign_in", "auth.sign_out", "auth.sign_in"]}


async def test_an_admin_reads_the_audit_trail(
    ui_settings: Any, browser: Browser, open_page: Any, screenshot: Any
) -> None:
    async with run_issuer() as issuer:
        issuer.sign_in_as = {"preferred_username": "root.r", "roles": ["admin"]}
        settings = ui_settings(**issuer.core_settings())
        async with run_core(settings) as core, open_page(browser) as page:
            await core.client.get("/api/v1/files")  # refused: nobody signed in
            await page.goto(f"{core.url}/ui/consolidations")
            await page.click("nav >> text=Журнал")
            rows = page.locator("#audit tbody tr")
            await expect(rows).to_have_count(2)
            await expect(rows.nth(0)).to_contain_text("Вход")
            await expect(rows.nth(1)).to_contain_text("отказ: UNAUTHENTICATED")
            await page.select_option("#audit-action", "auth.sign_in")
            await page.click(".inline-form button[type=submit]")
            await expect(rows).to_have_count(1)
            await expect(page.locator(".top .user")).to_have_text("root.r")
            await expect(rows.nth(0)).to_contain_text("roles: admin")
            await screenshot(page, "audit-trail")
