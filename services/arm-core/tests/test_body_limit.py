"""Every request body but an upload's multipart form is read up to BODY_MAX_BYTES: one past
it is 413 BODY_TOO_LARGE before a route reads it, with a length or without one."""

from __future__ import annotations

import json
import uuid

from arm_core.testing import minimal_workbook, run_core, upload


async def test_a_json_body_over_the_limit_is_413_with_or_without_a_length(
    make_core_settings,
) -> None:
    body = json.dumps({"file_ids": [str(uuid.uuid4()) for _ in range(100)]}).encode()
    async with run_core(make_core_settings(nats_enabled=False, body_max_bytes=1024)) as core:
        sized = await core.client.post(
            "/api/v1/files/retry", content=body, headers={"content-type": "application/json"}
        )

        async def chunks():
            for start in range(0, len(body), 256):
                yield body[start : start + 256]

        chunked = await core.client.post(
            "/api/v1/files/retry", content=chunks(), headers={"content-type": "application/json"}
        )
        small = await core.client.post(
            "/api/v1/files/retry", json={"file_ids": [str(uuid.uuid4())]}
        )
        form = await core.client.post(
            "/ui/consolidations", data={"name": "x" * 2000}, follow_redirects=False
        )
    for response in (sized, chunked, form):
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "BODY_TOO_LARGE"
    assert small.status_code == 200
    assert small.json()["results"][0]["outcome"] == "skipped"


async def test_an_upload_is_not_held_to_the_small_bodies_limit(make_core_settings) -> None:
    content = minimal_workbook()
    async with run_core(make_core_settings(nats_enabled=False, body_max_bytes=64)) as core:
        response = await upload(core.client, "osv.xlsx", content)
    assert len(content) > 64
    assert response.status_code == 201
