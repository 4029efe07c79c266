"""Every response carries the security headers: pages may not be framed, run only the core's
own scripts and styles, and no response is read as another type than it says."""

from __future__ import annotations

import pytest

from arm_core.api.headers import content_security_policy
from arm_core.testing import run_core, upload


@pytest.mark.parametrize(
    "path",
    ["/healthcheck", "/api/v1/files", "/ui/files", "/ui/consolidations", "/static/app.js",
     "/api/v1/files/00000000-0000-0000-0000-000000000000", "/no/such/page"],
)  # fmt: skip
async def test_every_response_carries_the_security_headers(make_core_settings, path: str) -> None:
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        response = await core.client.get(path)
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "same-origin"
    policy = response.headers["content-security-policy"]
    assert policy == content_security_policy()
    assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy


async def test_the_api_docs_keep_the_headers_and_cannot_be_framed(make_core_settings) -> None:
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        response = await core.client.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-security-policy"] == "frame-ancestors 'none'"
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_no_page_template_carries_an_inline_style_script_or_handler() -> None:
    # The policy would refuse them in the browser; a template that adds one fails here first.
    from importlib.resources import files

    templates = files("arm_core.web") / "templates"
    offending = [
        item.name
        for item in templates.iterdir()
        if item.name.endswith(".html")
        and any(
            marker in item.read_text(encoding="utf-8")
            for marker in (" style=", "<style", " onclick=", " onload=", " onchange=", "<script>")
        )
    ]
    assert offending == []


async def test_a_pdf_that_is_also_html_comes_back_as_a_pdf_attachment(make_core_settings) -> None:
    # A polyglot: a PDF's signature, then a page with a script. Served back as an attachment
    # of the type its bytes were recognised as, never to be sniffed into a page.
    polyglot = b"%PDF-1.4\n<html><body><script>alert(document.cookie)</script></body></html>\n"
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        created = await upload(core.client, "report.pdf", polyglot)
        assert created.status_code == 201
        response = await core.client.get(f"/api/v1/files/{created.json()['file_id']}/content")
    assert response.content == polyglot
    assert response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"].startswith("attachment;")
    assert response.headers["x-content-type-options"] == "nosniff"
