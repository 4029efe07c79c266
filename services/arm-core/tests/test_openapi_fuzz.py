"""The HTTP boundary under generated requests.

schemathesis reads the OpenAPI document of a real core (PostgreSQL, NATS, storage) and sends
every operation requests that fit the schema and requests that do not: no answer may be a 5xx,
and every answer must be documented (status, media type, body). The document itself is checked
to be complete, so a route added without its models fails here first.
"""

from __future__ import annotations

import asyncio
import typing
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from fastapi.routing import APIRoute, iter_route_contexts
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from arm_core.api import models
from arm_core.app import create_app
from arm_core.db import tables
from arm_core.settings import CoreSettings
from arm_core.testing import (
    RunningCore,
    fetch_one,
    minimal_workbook,
    run_core,
    upload,
)

# Small enough for a loaded two-core machine, large enough to reach every parameter's edges;
# derandomized, so every run sends the same requests and a failure is reproducible.
EXAMPLES = 16
ERROR_REF = {"$ref": "#/components/schemas/ErrorResponse"}

CONFORMS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
REJECTS = [*CONFORMS, negative_data_rejection]


def _stored_objects(core: RunningCore) -> list[Path]:
    root = Path(core.settings.storage_url.removeprefix("file://"))
    return [p for p in root.rglob("*") if p.is_file()]


async def _count(core: RunningCore, table: str) -> int:
    row = await fetch_one(core.settings.database_dsn, f"SELECT count(*) AS n FROM {table}")
    assert row is not None
    return int(row["n"])


def _exercise(
    operation: schemathesis.APIOperation,
    mode: GenerationMode,
    path_parameters: dict[str, Any] | None,
    base_url: str,
    session: requests.Session,
) -> None:
    checks = CONFORMS if mode is GenerationMode.POSITIVE else REJECTS

    @given(case=operation.as_strategy(mode, path_parameters=path_parameters))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        # No shrinking: the failure report carries the request as a curl command anyway.
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: schemathesis.Case) -> None:
        case.call_and_validate(base_url=base_url, session=session, checks=checks)

    run()


def _fuzz(base_url: str, known: dict[str, str]) -> list[str]:
    """Every operation, generated requests that fit and that do not, and once more with the
    ids of things that exist, so the answers with bodies are checked too. Returns failures."""
    schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
    failures: list[str] = []
    with requests.Session() as session:
        for result in schema.get_all_operations():
            operation = result.ok()
            names = {p.name for p in operation.path_parameters}
            runs: list[tuple[str, GenerationMode, dict[str, Any] | None]] = [
                ("fits", GenerationMode.POSITIVE, None)
            ]
            inputs = [operation.path_parameters, operation.query, operation.headers]
            if any(len(found) for found in inputs) or len(operation.body):
                runs.append(("off-schema", GenerationMode.NEGATIVE, None))
            if names and names <= known.keys():
                runs.append(("existing", GenerationMode.POSITIVE, {n: known[n] for n in names}))
            for label, mode, path_parameters in runs:
                try:
                    _exercise(operation, mode, path_parameters, base_url, session)
                except (Exception, BaseExceptionGroup) as exc:
                    failures.append(f"{operation.label} ({label}):\n{exc}")
    return failures


async def test_every_operation_answers_within_its_schema(make_core_settings) -> None:
    async with run_core(make_core_settings(upload_max_bytes=64 * 1024)) as core:
        consolidation = await core.client.post(
            "/api/v1/consolidations", json={"name": "ООО Ромашка"}
        )
        uploaded = await upload(
            core.client,
            "ОСВ 2024.xlsx",
            minimal_workbook("xlsx"),
            consolidation_id=consolidation.json()["id"],
        )
        assert uploaded.status_code == 201, uploaded.text
        known = {
            "file_id": uploaded.json()["file_id"],
            "job_id": uploaded.json()["job_id"],
            "consolidation_id": consolidation.json()["id"],
        }
        failures = await asyncio.to_thread(_fuzz, core.url, known)
        health = await core.client.get("/healthcheck")
    assert not failures, "\n\n".join(failures)
    # The core took all of that without losing its database or NATS.
    assert health.json()["status"] == "ok"


def _schema_app() -> tuple[Any, dict[str, Any]]:
    app = create_app(CoreSettings(debug=True))
    return app, app.openapi()


def test_every_route_of_the_api_is_documented_with_models() -> None:
    app, document = _schema_app()
    components = document["components"]["schemas"]
    checked = 0
    # Included routers are resolved lazily; their routes come out with the prefix applied.
    for route in iter_route_contexts(app.routes):
        if not isinstance(route.original_route, APIRoute):
            continue
        if not route.include_in_schema:
            # Only the analysts' pages and their sign-in stay out of the document; the API
            # never does.
            assert route.path == "/" or route.path.startswith(("/ui", "/auth/")), route.path
            continue
        for method in route.methods:
            operation = document["paths"][route.path_format][method.lower()]
            responses = operation["responses"]
            where = f"{method} {route.path}"
            success = [status for status in responses if status.startswith("2")]
            assert success, f"{where}: no success answer"
            for status in success:
                content = responses[status].get("content")
                assert content, f"{where}: {status} declares no content"
                json_body = content.get("application/json")
                if json_body is not None:
                    ref = json_body["schema"].get("$ref", "")
                    assert ref.startswith("#/components/schemas/"), f"{where}: untyped {status}"
                    assert ref.rsplit("/", 1)[1] in components
                else:
                    assert route.response_model is None, where
            errors = [status for status in responses if not status.startswith("2")]
            assert {"500", "503"} <= set(errors), f"{where}: 500/503 undocumented"
            # A route with parameters that leaves out 422 gets FastAPI's own validation
            # shape, which is not the one sent: the check below catches it.
            for status in errors:
                assert responses[status]["content"] == {
                    "application/json": {"schema": ERROR_REF}
                }, f"{where}: {status} is not in the error shape"
            checked += 1
    assert checked >= 13


def test_the_error_shape_is_documented_as_it_is_sent() -> None:
    _, document = _schema_app()
    schemas = document["components"]["schemas"]
    assert schemas["ErrorResponse"]["required"] == ["error"]
    assert set(schemas["ErrorDetail"]["required"]) == {"code", "message"}
    # FastAPI's own validation shape never appears: validation errors leave in ours.
    assert "HTTPValidationError" not in schemas


@pytest.mark.parametrize(
    ("alias", "values"),
    [
        (models.FileStatus, tables.FILE_STATUSES),
        (models.JobStatus, tables.JOB_STATUSES),
        (models.FileType, tables.FILE_TYPES),
        (models.Pipeline, tables.PIPELINES),
    ],
)
def test_documented_vocabularies_are_the_database_ones(alias: Any, values: tuple[str, ...]) -> None:
    assert typing.get_args(alias) == values


# The requests that used to get a 5xx, kept as plain regressions.


@pytest.fixture
async def core(make_core_settings):
    async with run_core(make_core_settings(upload_max_bytes=256 * 1024)) as running:
        yield running


@pytest.mark.parametrize("field", ["offset", "limit"])
@pytest.mark.parametrize("value", ["99999999999999999999", "-1", "1e3", "x"])
async def test_paging_out_of_range_is_a_validation_error(core, field, value) -> None:
    response = await core.client.get("/api/v1/files", params={field: value})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert field in response.json()["error"]["message"]


def _multipart(name: str, content: bytes, boundary: str = "b0undary") -> bytes:
    return (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode() + content


@pytest.mark.parametrize(
    "content",
    [
        # Cut while the store is being written (past the first chunk it sniffs).
        minimal_workbook("xlsx") + b"\0" * (128 * 1024),
        # Cut inside the first bytes, before anything is stored.
        minimal_workbook("xlsx")[:40],
    ],
    ids=["inside-the-stored-bytes", "inside-the-head"],
)
async def test_a_truncated_body_is_malformed_and_leaves_nothing(core, content) -> None:
    body = _multipart("ОСВ.xlsx", content)
    response = await core.client.post(
        "/api/v1/files",
        content=body,
        headers={"Content-Type": "multipart/form-data; boundary=b0undary"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "MALFORMED_MULTIPART"
    assert _stored_objects(core) == []
    for table in ("stored_file", "s3_object", "recognition_job", "audit_log"):
        assert await _count(core, table) == 0, table


async def test_a_complete_body_after_the_same_bytes_is_stored(core) -> None:
    # The counterpart of the above: the same bytes, closed properly, are a file.
    body = _multipart("ОСВ.xlsx", minimal_workbook("xlsx")) + b"\r\n--b0undary--\r\n"
    response = await core.client.post(
        "/api/v1/files",
        content=body,
        headers={"Content-Type": "multipart/form-data; boundary=b0undary"},
    )
    assert response.status_code == 201, response.text
    assert len(_stored_objects(core)) == 1


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        (f"multipart/form-data; boundary={'b' * 300}", _multipart("a.pdf", b"%PDF", "b" * 300)),
        (
            "multipart/form-data; boundary=b0undary",
            b"--b0undary\r\n" + b"X-Padding: " + b"y" * 20000 + b"\r\n\r\n",
        ),
        (
            "multipart/form-data; boundary=b0undary",
            b"--b0undary\r\n" + b"X" * 20000 + b": y\r\n\r\n",
        ),
        ("multipart/form-data; boundary=b0undary", b"garbage without any boundary"),
    ],
    ids=["boundary-too-long", "header-value-too-long", "header-name-too-long", "no-boundary"],
)
async def test_malformed_multipart_is_a_client_error(core, content_type, body) -> None:
    response = await core.client.post(
        "/api/v1/files", content=body, headers={"Content-Type": content_type}
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] in ("BAD_REQUEST", "MALFORMED_MULTIPART")
    assert _stored_objects(core) == []


@pytest.mark.parametrize("name", ["a\u0000b", "\u0000"])
async def test_a_name_postgresql_cannot_store_is_a_validation_error(core, name) -> None:
    response = await core.client.post("/api/v1/consolidations", json={"name": name})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert await _count(core, "consolidation") == 0


async def test_a_batch_id_is_bounded(core) -> None:
    response = await core.client.post(
        "/api/v1/files/retry", json={"file_ids": ["x" * 101, str(uuid.uuid4())]}
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
