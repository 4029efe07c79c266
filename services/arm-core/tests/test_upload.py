"""POST /api/v1/files: the type comes from the content, nothing is left half-stored."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from arm_core.testing import (
    SIGNATURES,
    fetch_one,
    file_row,
    job_row,
    minimal_workbook,
    run_core,
    stored_objects,
    upload,
    wait_until,
)

EXPORTS = {
    "1c": "1CClientBankExchange\nВерсияФормата=1.03\nКодировка=Windows\n".encode("cp1251"),
    "mt940": b":20:STMT1\r\n:25:KZ12345678901234567890\r\n:28C:1/1\r\n:60F:C240531KZT1,00\r\n",
    "camt": b'<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">'
    b"<BkToCstmrStmt/></Document>",
}


@pytest.fixture
async def core(make_core_settings):
    # No service listens: jobs are published and wait, which is all these tests need.
    async with run_core(make_core_settings(upload_max_bytes=256 * 1024)) as running:
        yield running


@pytest.mark.parametrize(
    ("name", "content", "file_type", "pipeline"),
    [
        ("ОСВ РБ 2024.xlsx", minimal_workbook("xlsx"), "XLSX", "tabular"),
        ("osv.XLSB", minimal_workbook("xlsb"), "XLSB", "tabular"),
        ("osv.xls", SIGNATURES["xls"], "XLS", "tabular"),
        ("выписка.pdf", SIGNATURES["pdf"], "PDF", "image"),
        ("scan.png", SIGNATURES["png"], "PNG", "image"),
        ("scan.jpeg", SIGNATURES["jpg"], "JPG", "image"),
        ("kl_to_1c.txt", EXPORTS["1c"], "TXT", "tabular"),
        ("выписка.sta", EXPORTS["mt940"], "TXT", "tabular"),
        ("statement.MT940", EXPORTS["mt940"], "TXT", "tabular"),
        ("camt053.xml", EXPORTS["camt"], "XML", "tabular"),
        # The content decides among the export types: a camt.053 saved as .txt is XML.
        ("camt053.txt", EXPORTS["camt"], "XML", "tabular"),
        ("kl_to_1c.xml", EXPORTS["1c"], "TXT", "tabular"),
    ],
)
async def test_upload_registers_file_and_queues_attempt_1(
    core, name, content, file_type, pipeline
) -> None:
    response = await upload(core.client, name, content)
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["file_type"], body["pipeline"], body["status"]) == (
        file_type,
        pipeline,
        "UPLOADED",
    )
    dsn = core.settings.database_dsn
    file_id, job_id = uuid.UUID(body["file_id"]), uuid.UUID(body["job_id"])
    file = await file_row(dsn, file_id)
    assert file["original_name"] == name
    assert file["current_recognition_job_id"] == job_id
    job = await job_row(dsn, job_id)
    assert (job["attempt"], job["max_attempts"], job["pipeline"]) == (1, 3, pipeline)
    obj = await fetch_one(dsn, "SELECT * FROM s3_object WHERE id = %s", file["s3_object_id"])
    assert obj["bucket_role"] == "uploads"
    assert obj["size"] == len(content)
    assert obj["created_by"] == "dev"
    assert obj["key"] == f"uploads/{file_id}/original.{file_type.lower()}"
    stored = stored_objects(core.settings)
    assert [p.read_bytes() for p in stored] == [content]
    audit = await fetch_one(dsn, "SELECT * FROM audit_log WHERE file_id = %s", file_id)
    assert (audit["action"], audit["actor"], audit["job_id"]) == ("file.upload", "dev", job_id)
    download = await core.client.get(f"/api/v1/files/{file_id}/content")
    assert download.content == content


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("osv.xlsx", SIGNATURES["pdf"]),
        ("osv.xlsx", minimal_workbook("docx")),
        ("osv.xlsb", minimal_workbook("xlsx")),
        ("osv.xlsx", minimal_workbook("xlsb")),
        ("osv.xls", minimal_workbook("xlsx")),
        ("scan.png", SIGNATURES["jpg"]),
        ("statement.pdf", b"just some text, not a pdf"),
        ("osv.csv", b"a;b;c\n"),
        ("osv", minimal_workbook("xlsx")),
        ("payload.exe", b"MZ\x90\x00"),
        ("notes.txt", "Просто заметки\n".encode("cp1251")),
        ("page.xml", b'<?xml version="1.0"?><html><body>hi</body></html>'),
        ("binary.txt", b"\x00\x01\x02" * 100),
        ("osv.txt", minimal_workbook("xlsx")),
    ],
    ids=[
        "pdf-as-xlsx", "docx-as-xlsx", "xlsx-as-xlsb", "xlsb-as-xlsx", "xlsx-as-xls",
        "jpg-as-png", "text-as-pdf", "csv", "no-extension", "exe", "other-text", "other-xml",
        "binary-as-txt", "xlsx-as-txt",
    ],
)  # fmt: skip
async def test_lying_or_unsupported_file_is_415(core, name, content) -> None:
    response = await upload(core.client, name, content)
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "UNSUPPORTED_FORMAT"
    # The refusal names what is accepted, bank exports included.
    assert "1CClientBankExchange" in response.json()["error"]["message"] or name.endswith(
        (".xlsx", ".xlsb", ".xls", ".pdf", ".png")
    )
    assert stored_objects(core.settings) == []
    assert await fetch_one(core.settings.database_dsn, "SELECT 1 FROM stored_file") is None


@pytest.mark.parametrize("name", ["ОСВ 2024.xlsx", "osv.xlsb"])
async def test_a_password_protected_book_says_so(core, name) -> None:
    """Excel encrypts a protected XLSX into an OLE2 file: it is a protected book, not a file
    whose content does not match its extension, and nothing of it is kept."""
    from tabular_parser.testing import encrypted_xlsx, general_osv, xlsx

    protected = encrypted_xlsx(xlsx([general_osv(accounts=2)]), "secret")
    response = await upload(core.client, name, protected)
    plain_ole2 = await upload(core.client, "osv.xlsx", SIGNATURES["xls"])
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "PASSWORD_PROTECTED"
    assert "защищена паролем" in response.json()["error"]["message"]
    assert plain_ole2.json()["error"]["code"] == "UNSUPPORTED_FORMAT"
    assert stored_objects(core.settings) == []
    assert await fetch_one(core.settings.database_dsn, "SELECT 1 FROM stored_file") is None


async def test_zero_byte_file_is_400(core) -> None:
    response = await upload(core.client, "osv.xlsx", b"")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "EMPTY_FILE"
    assert stored_objects(core.settings) == []


async def test_over_limit_file_is_413_and_leaves_nothing(core) -> None:
    big = minimal_workbook("xlsx") + b"\x00" * (300 * 1024)
    response = await upload(core.client, "osv.xlsx", big)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "FILE_TOO_LARGE"
    assert stored_objects(core.settings) == []


async def test_streamed_over_limit_without_content_length_is_413(core) -> None:
    boundary = "b0undary"

    async def body():
        yield (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="osv.xlsx"\r\n\r\n'
        ).encode()
        yield minimal_workbook("xlsx")
        for _ in range(40):
            yield b"\x00" * 16384
        yield f"\r\n--{boundary}--\r\n".encode()

    response = await core.client.post(
        "/api/v1/files",
        content=body(),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert response.status_code == 413
    assert stored_objects(core.settings) == []


async def test_failing_transaction_leaves_no_object(core) -> None:
    async with await psycopg.AsyncConnection.connect(
        core.settings.database_dsn, autocommit=True
    ) as conn:
        await conn.execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;"
            " CREATE TRIGGER refuse BEFORE INSERT ON recognition_job"
            " FOR EACH ROW EXECUTE FUNCTION refuse();"
        )
    response = await upload(core.client, "osv.xlsx", minimal_workbook("xlsx"))
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "DATABASE_UNAVAILABLE"
    assert "disk full" not in response.text
    assert stored_objects(core.settings) == []
    dsn = core.settings.database_dsn
    assert await fetch_one(dsn, "SELECT 1 FROM s3_object") is None
    assert await fetch_one(dsn, "SELECT 1 FROM stored_file") is None


@pytest.mark.parametrize("field_first", [True, False])
async def test_unknown_consolidation_is_404_and_leaves_nothing(core, field_first) -> None:
    missing = str(uuid.uuid4())
    if field_first:
        response = await upload(
            core.client, "osv.xlsx", minimal_workbook("xlsx"), consolidation_id=missing
        )
    else:
        response = await _upload_field_after_file(core, missing)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "CONSOLIDATION_NOT_FOUND"
    assert stored_objects(core.settings) == []
    dsn = core.settings.database_dsn
    for table in ("s3_object", "stored_file", "recognition_job", "audit_log"):
        assert await fetch_one(dsn, f"SELECT 1 FROM {table}") is None, table


async def test_consolidation_field_after_the_file_is_honoured(core) -> None:
    created = await core.client.post("/api/v1/consolidations", json={"name": "ООО Ромашка"})
    consolidation_id = created.json()["id"]
    response = await _upload_field_after_file(core, consolidation_id)
    assert response.status_code == 201
    file = await file_row(core.settings.database_dsn, uuid.UUID(response.json()["file_id"]))
    assert str(file["consolidation_id"]) == consolidation_id


async def _upload_field_after_file(core, consolidation_id: str):
    boundary = "xyz"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.xlsx"\r\n'
            "\r\n"
        ).encode()
        + minimal_workbook("xlsx")
        + (
            f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="consolidation_id"\r\n\r\n'
            f"{consolidation_id}\r\n--{boundary}--\r\n"
        ).encode()
    )
    return await core.client.post(
        "/api/v1/files",
        content=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )


@pytest.mark.parametrize(
    ("after_the_file", "code"),
    [
        (
            b'\r\n--xyz\r\nContent-Disposition: form-data; name="file"; filename="b.xlsx"\r\n\r\n'
            + minimal_workbook("xlsx")
            + b"\r\n--xyz--\r\n",
            "BAD_REQUEST",
        ),
        (
            b'\r\n--xyz\r\nContent-Disposition: form-data; name="consolidation_id"\r\n\r\n'
            b"not-a-uuid\r\n--xyz--\r\n",
            "BAD_REQUEST",
        ),
        (b"\r\n--xyz\r\nContent-Disposition: form-data; na", "MALFORMED_MULTIPART"),
    ],
    ids=["second-file", "bad-consolidation", "truncated"],
)
async def test_a_form_that_goes_wrong_after_the_file_leaves_nothing(
    core, after_the_file: bytes, code: str
) -> None:
    body = (
        b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.xlsx"\r\n\r\n'
        + minimal_workbook("xlsx")
        + after_the_file
    )
    response = await core.client.post(
        "/api/v1/files",
        content=body,
        headers={"Content-Type": "multipart/form-data; boundary=xyz"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == code
    assert stored_objects(core.settings) == []
    dsn = core.settings.database_dsn
    for table in ("s3_object", "stored_file", "recognition_job", "audit_log"):
        assert await fetch_one(dsn, f"SELECT 1 FROM {table}") is None, table


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("../../etc/passwd.xlsx", "passwd.xlsx"),
        ("..\\..\\windows\\osv.xlsx", "osv.xlsx"),
        ("ОСВ\u202e\u200bxslx.xlsx", "ОСВxslx.xlsx"),
        ("  .hidden .xlsx", "hidden .xlsx"),
        ("О" * 400 + ".xlsx", "О" * 250 + ".xlsx"),
        ("Оборотно\u0301-сальдовая.xlsx", "Оборотно\u0301-сальдовая.xlsx"),
    ],
    ids=["traversal", "backslashes", "bidi-and-zero-width", "dots", "long", "combining"],
)
async def test_original_name_is_kept_for_display_only(core, raw, shown) -> None:
    response = await upload(core.client, raw, minimal_workbook("xlsx"))
    assert response.status_code == 201
    body = response.json()
    import unicodedata

    assert body["original_name"] == unicodedata.normalize("NFC", shown)
    [stored] = stored_objects(core.settings)
    assert stored.name == "original.xlsx"
    assert stored.parent.name == body["file_id"]


async def test_not_multipart_is_400(core) -> None:
    response = await core.client.post("/api/v1/files", content=b"{}")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "BAD_REQUEST"
    no_file = await core.client.post("/api/v1/files", data={"consolidation_id": ""}, files={})
    assert no_file.status_code == 400


async def test_consolidations_and_filters(core) -> None:
    a = (await core.client.post("/api/v1/consolidations", json={"name": "ООО Ромашка"})).json()
    b = (await core.client.post("/api/v1/consolidations", json={"name": "ОАО Лютик"})).json()
    assert (
        await core.client.post("/api/v1/consolidations", json={"name": "  "})
    ).status_code == 422
    for _ in range(2):
        await upload(core.client, "osv.xlsx", minimal_workbook("xlsx"), consolidation_id=a["id"])
    other = await upload(core.client, "s.pdf", SIGNATURES["pdf"], consolidation_id=b["id"])
    listed = (await core.client.get("/api/v1/consolidations")).json()["items"]
    counts = {item["name"]: item["files"] for item in listed}
    assert counts == {"ООО Ромашка": 2, "ОАО Лютик": 1}
    ours = (await core.client.get(f"/api/v1/consolidations/{a['id']}")).json()
    assert ours["by_status"]["UPLOADED"] == 2
    files = (await core.client.get("/api/v1/files", params={"consolidation_id": a["id"]})).json()
    assert files["total"] == 2
    by_status = await core.client.get("/api/v1/files", params={"status": ["UPLOADED", "ERROR"]})
    assert by_status.json()["total"] == 3
    bad = await core.client.get("/api/v1/files", params={"status": "DONE"})
    assert bad.status_code == 400
    detail = (await core.client.get(f"/api/v1/files/{other.json()['file_id']}")).json()
    assert [a["attempt"] for a in detail["attempts"]] == [1]
    assert detail["retryable"] is False
    missing = await core.client.get(f"/api/v1/files/{uuid.uuid4()}")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "FILE_NOT_FOUND")
    job = await core.client.get(f"/api/v1/jobs/{detail['current_job_id']}")
    assert job.json()["attempt"] == 1
    await wait_until(lambda: _published(core, detail["current_job_id"]))


async def _published(core, job_id):
    job = await job_row(core.settings.database_dsn, uuid.UUID(job_id))
    return job["status"] == "published"
