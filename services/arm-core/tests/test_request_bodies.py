"""Every text of every JSON body is checked alike: a NUL or a lone surrogate anywhere (a
field, a free-form locator's key or value, a list's item) is 422 VALIDATION_ERROR, never a
500 from PostgreSQL. Every route's body model takes that check from one base."""

from __future__ import annotations

import uuid

import pytest
from fastapi.routing import APIRoute

from arm_core.api.bodies import RequestBody, texts
from arm_core.app import create_app, routers
from arm_core.testing import run_core


def test_every_json_body_of_every_route_is_a_request_body(make_core_settings) -> None:
    create_app(make_core_settings(nats_enabled=False))
    bodies = {
        (sorted(route.methods)[0], route.path): param.field_info.annotation
        for router in routers()
        for route in router.routes
        if isinstance(route, APIRoute)
        for param in route.dependant.body_params
    }
    assert len(bodies) >= 5, bodies
    assert {
        route: str(model)
        for route, model in bodies.items()
        if not (isinstance(model, type) and issubclass(model, RequestBody))
    } == {}


def test_texts_are_found_at_any_depth_without_recursion() -> None:
    deep: object = "x"
    for _ in range(100_000):
        deep = [deep]
    assert list(texts(deep)) == ["x"]
    assert sorted(texts({"k": {"v": ["a", 1, None]}})) == ["a", "k", "v"]


BAD = ["\\u0000", "\\ud800", "a\\udfffb"]
DOCUMENT = str(uuid.uuid4())
# (method, path, a JSON body with {bad} where a text goes)
PLACES = [
    (
        "POST",
        f"/api/v1/documents/{DOCUMENT}/confirm",
        '{"acknowledged": [{"code": "X", "locator": {"sheet": "{bad}"}, "reason": "r"}]}',
    ),
    (
        "POST",
        f"/api/v1/documents/{DOCUMENT}/confirm",
        '{"acknowledged": [{"code": "X", "locator": {"{bad}": 1}, "reason": "r"}]}',
    ),
    (
        "POST",
        f"/api/v1/documents/{DOCUMENT}/corrections",
        '{"target": "header", "field": "unit", "value": "{bad}", "reason": "r"}',
    ),
    ("POST", "/api/v1/consolidations", '{"name": "Ромашка", "team": "{bad}"}'),
    ("POST", "/api/v1/files/retry", '{"file_ids": ["{bad}"]}'),
    ("PATCH", f"/api/v1/consolidations/{DOCUMENT}", '{"team": "{bad}"}'),
]


@pytest.mark.parametrize("bad", BAD)
async def test_an_unstorable_text_anywhere_in_a_body_is_422(make_core_settings, bad) -> None:
    async with run_core(make_core_settings(nats_enabled=False)) as core:
        answers = [
            await core.client.request(
                method,
                path,
                content=body.replace("{bad}", bad).encode(),
                headers={"content-type": "application/json"},
            )
            for method, path, body in PLACES
        ]
    assert [(a.status_code, a.json()["error"]["code"]) for a in answers] == [
        (422, "VALIDATION_ERROR")
    ] * len(PLACES)
