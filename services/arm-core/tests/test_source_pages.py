"""The pages of a PDF or scan beside the data, as scan-gateway keeps them: the index and the
page images are served to those who may see the file, and nothing else under the prefix is.
(Through the real scan-gateway and a browser: tests/ui/test_source_ui.py.)"""

from __future__ import annotations

import io
import json
import re
import uuid

import psycopg
from PIL import Image

from arm_core.testing import insert_file_with_job, run_core
from arm_ka_platform.storage import open_storage
from recognition_contract import raw_prefix

OWNER = {"X-Remote-User": "ivanova.a", "X-Remote-Roles": "analyst", "X-Remote-Groups": "team-a"}
STRANGER = {"X-Remote-User": "petrov.p", "X-Remote-Roles": "analyst", "X-Remote-Groups": "team-b"}


def _jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("L", (100, 140), 255).save(out, format="JPEG")
    return out.getvalue()


async def _scanned_file(settings, pages: list[dict[str, object]], files: dict[str, bytes]):
    file_id, job_id = await insert_file_with_job(
        settings.database_dsn,
        file_type="PDF",
        pipeline="image",
        status="done",
        original_name="Выписка.pdf",
        uploaded_by="ivanova.a",
    )
    prefix = raw_prefix(file_id, job_id)
    storage = open_storage(settings.storage)
    await storage.put(prefix + "pages.json", json.dumps({"format": 1, "pages": pages}).encode())
    for name, body in files.items():
        await storage.put(prefix + name, body)
    async with await psycopg.AsyncConnection.connect(settings.database_dsn, autocommit=True) as c:
        await c.execute(
            "UPDATE recognition_job SET metrics = jsonb_build_object('raw_s3_key', %s::text)"
            " WHERE id = %s",
            (prefix, job_id),
        )
    return file_id, prefix


async def test_page_images_are_served_to_those_who_may_see_the_file(make_core_settings) -> None:
    settings = make_core_settings(
        nats_enabled=False,
        debug=False,
        auth_user_header="X-Remote-User",
        auth_roles_header="X-Remote-Roles",
        auth_teams_header="X-Remote-Groups",
    )
    image = _jpeg()
    pages = [
        {"page": 1, "image": "page-1.jpg", "source": "ocr"},
        {"page": 2, "image": None, "source": "text"},
        # Not a name of this prefix: never followed.
        {"page": 3, "image": "../other/page-1.jpg", "source": "ocr"},
        {"page": 4, "image": "page-4.jpg", "source": "ocr"},
    ]
    async with run_core(settings) as core:
        file_id, _ = await _scanned_file(settings, pages, {"page-1.jpg": image})
        base = f"/api/v1/files/{file_id}/source/pages"
        listed = await core.client.get(base, headers=OWNER)
        first = await core.client.get(f"{base}/1", headers=OWNER)
        refused = {
            page: (await core.client.get(f"{base}/{page}", headers=OWNER)).json()["error"]["code"]
            for page in (2, 3, 4, 5)
        }
        hidden = await core.client.get(f"{base}/1", headers=STRANGER)
        hidden_list = await core.client.get(base, headers=STRANGER)
        shown = await core.client.get(
            f"/ui/files/{file_id}/source",
            params={"page": 1, "box": "0.1,0.2,0.5,0.25"},
            headers=OWNER,
        )
        unboxed = await core.client.get(
            f"/ui/files/{file_id}/source", params={"page": 1, "box": "0.5,0.2,0.1,9"}, headers=OWNER
        )
        missing = await core.client.get(
            f"/ui/files/{file_id}/source", params={"page": 2}, headers=OWNER
        )
    async with await psycopg.AsyncConnection.connect(settings.database_dsn) as conn:
        refusals = await (
            await conn.execute("SELECT actor FROM audit_log WHERE action = 'access.refused'")
        ).fetchall()
    # A page missing from a file the owner sees is no refusal; the other team's look is.
    assert sorted(actor for (actor,) in refusals) == ["petrov.p", "petrov.p"]
    assert listed.status_code == 200
    assert [(p["page"], p["image_url"]) for p in listed.json()["pages"]] == [
        (1, f"{base}/1"),
        (2, None),
        (3, None),
        (4, f"{base}/4"),
    ]
    assert first.status_code == 200 and first.content == image
    assert first.headers["content-type"] == "image/jpeg"
    assert refused == {
        2: "SOURCE_NOT_KEPT",
        3: "SOURCE_NOT_KEPT",
        4: "SOURCE_NOT_KEPT",
        5: "PAGE_NOT_FOUND",
    }
    assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "FILE_NOT_FOUND"
    assert hidden_list.status_code == 404
    assert shown.status_code == 200
    assert f'src="{base}/1"' in shown.text
    # Thousandths of the page, four of them around the words.
    assert 'x="96.0" y="196.0" width="408.0" height="58.0"' in shown.text
    assert unboxed.status_code == 200 and "<rect" not in unboxed.text
    assert missing.status_code == 404 and "изображение страницы 2 не сохранено" in missing.text


async def test_a_workbook_keeps_no_pages_and_says_so(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False)
    async with run_core(settings) as core:
        file_id, _ = await insert_file_with_job(settings.database_dsn, status="done")
        answer = await core.client.get(f"/api/v1/files/{file_id}/source/pages/1")
        unknown = await core.client.get(f"/api/v1/files/{uuid.uuid4()}/source/pages")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "SOURCE_NOT_KEPT"
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "FILE_NOT_FOUND"


async def test_a_damaged_index_is_as_good_as_none(make_core_settings) -> None:
    """An index that is no JSON object (cut off, overwritten) answers SOURCE_NOT_KEPT, not a
    server error."""
    settings = make_core_settings(nats_enabled=False)
    async with run_core(settings) as core:
        answers = []
        for body in (b'{"format": 1, "pag', b"[1, 2]"):
            file_id, prefix = await _scanned_file(settings, [], {})
            await open_storage(settings.storage).put(prefix + "pages.json", body)
            answer = await core.client.get(f"/api/v1/files/{file_id}/source/pages/1")
            answers.append((answer.status_code, answer.json()["error"]["code"]))
    assert answers == [(404, "SOURCE_NOT_KEPT"), (404, "SOURCE_NOT_KEPT")]


async def test_a_text_files_operation_opens_all_its_lines(make_core_settings) -> None:
    from document_extraction import Grid
    from tabular_parser.source import source_files

    settings = make_core_settings(nats_enabled=False)
    file_id, job_id = await insert_file_with_job(
        settings.database_dsn, file_type="TXT", status="done", original_name="kl_to_1c.txt"
    )
    prefix = raw_prefix(file_id, job_id)
    lines = [[f"line {k}"] for k in range(1, 2001)]
    storage = open_storage(settings.storage)
    for name, body in source_files([Grid("Текст", lines)], chunk_rows=20_000).items():
        await storage.put(prefix + name, body)
    async with await psycopg.AsyncConnection.connect(settings.database_dsn, autocommit=True) as c:
        await c.execute(
            "UPDATE recognition_job SET metrics = jsonb_build_object('raw_s3_key', %s::text)"
            " WHERE id = %s",
            (prefix, job_id),
        )
    async with run_core(settings) as core:

        async def highlighted(**params: int) -> list[str]:
            page = await core.client.get(
                f"/ui/files/{file_id}/source", params={"sheet": "Текст", **params}
            )
            assert page.status_code == 200, page.text
            assert "Строка" in page.text and "файла" in page.text
            return re.findall(r'class="here"[^>]*><td class="where">(\d+)</td>', page.text)

        assert await highlighted(row=40, row_end=44) == ["40", "41", "42", "43", "44"]
        # A span ending above its start is the start alone.
        assert await highlighted(row=40, row_end=12) == ["40"]
        # A span longer than a window holds is shown from its start, the window bounded.
        shown = await highlighted(row=100, row_end=1900)
        assert shown[0] == "100" and len(shown) == 501
