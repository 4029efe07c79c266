"""The analysts' web UI in a real browser: Debian's Chromium driven by Playwright, against
arm-core on real PostgreSQL, NATS and storage, with the real tabular-parser where a test
needs recognition.

Pages are opened inside the test's ``run_core`` block and closed before it ends: a stopping
server waits for open event streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, async_playwright

from arm_core.settings import CoreSettings
from arm_ka_devstack.processes import READY_SECONDS
from arm_ka_platform.storage import ObjectStorage, open_storage
from recognition_contract import contracts_dir, result_key
from recognition_worker import Recognizer, Worker, WorkerSettings
from scan_gateway.app import recognizer as scan_recognizer
from scan_gateway.settings import ScanSettings
from tabular_parser.app import recognizer as tabular_recognizer
from tabular_parser.settings import TabularSettings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            await launched.close()


@contextlib.asynccontextmanager
async def _open_page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(
        viewport={"width": 1440, "height": 900}, locale="ru-RU", timezone_id="Europe/Minsk"
    )
    context.set_default_timeout(15_000)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The page's security policy refuses any inline script, handler or style: the browser
    # says so on its console, and a refusal is as much an error as a script's.
    page.on(
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    try:
        yield page
    finally:
        await context.close()
    assert errors == [], f"script errors or refused content on the page: {errors}"


async def _screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture
def subjects() -> dict[str, str]:
    """Subjects of this test alone, so no other test's service answers its requests."""
    prefix = f"ui{uuid.uuid4().hex[:10]}"
    return {
        "nats_tabular_request_subject": f"{prefix}.tabular",
        "nats_image_request_subject": f"{prefix}.img",
        "nats_result_subject": f"{prefix}.result",
    }


@pytest.fixture
def ui_settings(make_core_settings: Any, subjects: dict[str, str]) -> Any:
    def make(**overrides: Any) -> CoreSettings:
        # None of these tests is about republishing or deadlines: the deployed timings keep a
        # browser-loaded machine from turning a slow ack into a republish, or a slow
        # recognition into a timeout (a test that needs either sets it).
        timings = {
            "ack_timeout_seconds": CoreSettings.model_fields["ack_timeout_seconds"].default,
            "reply_timeout_seconds": CoreSettings.model_fields["reply_timeout_seconds"].default,
        }
        settings: CoreSettings = make_core_settings(
            openbao={"nats": subjects}, **{**timings, **overrides}
        )
        return settings

    return make


@contextlib.asynccontextmanager
async def _run_worker(
    core: CoreSettings,
    settings_type: type[WorkerSettings],
    make: Any,
) -> AsyncIterator[Worker]:
    """A real recognition service on the core's subjects and storage."""
    settings = settings_type(
        nats_url=core.nats_url,
        storage_url=core.storage_url,
        storage_bucket=core.storage_bucket,
        openbao={
            "nats": {
                "nats_tabular_request_subject": core.subjects.tabular_request,
                "nats_image_request_subject": core.subjects.image_request,
                "nats_result_subject": core.subjects.result,
            }
        },
        worker_concurrency=1,
        job_timeout_seconds=60.0,
        publish_retry_seconds=0.2,
    )
    recognizer: Recognizer = make(settings)
    worker = Worker(settings, recognizer)
    await worker.start()
    try:
        # Subscribed: from here on the core's requests reach it.
        await asyncio.wait_for(worker.ready.wait(), READY_SECONDS)
        yield worker
    finally:
        await worker.stop(grace=1.0)


def _run_parser(core: CoreSettings) -> contextlib.AbstractAsyncContextManager[Worker]:
    """The real tabular-parser."""
    return _run_worker(core, TabularSettings, tabular_recognizer)


def _run_gateway(core: CoreSettings) -> contextlib.AbstractAsyncContextManager[Worker]:
    """The real scan-gateway (PDF and images)."""
    return _run_worker(core, ScanSettings, scan_recognizer)


async def _write_result(
    settings: CoreSettings, example: str, file_id: uuid.UUID, job_id: uuid.UUID
) -> dict[str, Any]:
    """A contract example as this job's result file, where a service would write it."""
    data = json.loads((contracts_dir() / "examples" / example).read_text())
    data.update(job_id=str(job_id), file_id=str(file_id))
    storage: ObjectStorage = open_storage(settings.storage)
    await storage.put(result_key(file_id, job_id), json.dumps(data, ensure_ascii=False).encode())
    return data


# Helpers reach the tests as fixtures: test modules cannot import each other here.


@pytest.fixture
def open_page() -> Any:
    return _open_page


@pytest.fixture
def screenshot() -> Any:
    return _screenshot


@pytest.fixture
def run_parser() -> Any:
    return _run_parser


@pytest.fixture
def run_gateway() -> Any:
    return _run_gateway


@pytest.fixture
def write_result() -> Any:
    return _write_result
