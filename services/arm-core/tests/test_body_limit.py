"""Every request body but an upload's, whatever its content type, is read up to
BODY_MAX_BYTES: one past it is 413 BODY_TOO_LARGE before a route reads it, with a length or
without one; a page's form takes no file part at all."""

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


async def test_a_multipart_body_anywhere_but_an_upload_is_held_to_the_limit(
    make_core_settings,
) -> None:
    part = ("x.bin", b"\0" * 4096, "application/octet-stream")
    async with run_core(make_core_settings(nats_enabled=False, body_max_bytes=1024)) as core:
        client = core.client
        answers = {
            path: await client.post(path, files={"file": part}, data={"name": "Ромашка"})
            for path in (
                "/api/v1/consolidations",
                "/api/v1/files/retry",
                "/ui/consolidations",
                "/ui/files/retry",
            )
        }

        async def chunks():
            yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n'
            for _ in range(8):
                yield b"\0" * 512

        chunked = await client.post(
            "/api/v1/consolidations",
            content=chunks(),
            headers={"content-type": "multipart/form-data; boundary=b"},
        )
        listed = (await client.get("/api/v1/consolidations")).json()["items"]
    for path, answer in {**answers, "chunked": chunked}.items():
        assert (answer.status_code, answer.json()["error"]["code"]) == (413, "BODY_TOO_LARGE"), path
    assert listed == []


async def test_a_page_form_takes_no_file_part(make_core_settings) -> None:
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        answer = await core.client.post(
            "/ui/consolidations",
            files={"file": ("x.bin", b"\0" * 100, "application/octet-stream")},
            data={"name": "Ромашка"},
            follow_redirects=False,
        )
        listed = (await core.client.get("/api/v1/consolidations")).json()["items"]
    assert answer.status_code == 400
    assert listed == []
