"""Corrections to a recognised document and its confirmation: a correction is a layer over
what was recognised (kept as it was), audited, applied wherever the document is shown, and the
document's checks are made again on the corrected values at once; a document is confirmed
once no warning is left without a reason."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from arm_core.testing import fetch_one, mapped_file, run_core, wait_until

STATEMENT = "result-2.0-needs_check-statement.json"  # totals 4 789,00 Дт; lines 2 789,00
OSV = "result-2.0-done-osv-general.json"


async def _documents(
    core: Any, settings: Any, example: str
) -> tuple[uuid.UUID, list[dict[str, Any]]]:
    file_id = await mapped_file(settings, example)

    async def mapped() -> Any:
        answer = await core.client.get(f"/api/v1/files/{file_id}/documents")
        return answer.json()["documents"]

    return file_id, await wait_until(mapped)


def _codes(doc: dict[str, Any]) -> list[str]:
    return sorted(w["code"] for w in doc["warnings"])


async def test_a_corrected_total_is_a_layer_and_the_checks_are_made_again(
    make_core_settings,
) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        file_id, [statement] = await _documents(core, settings, STATEMENT)
        before = [w["message"] for w in statement["warnings"]]
        answer = await core.client.post(
            f"/api/v1/documents/{statement['id']}/corrections",
            json={
                "target": "header",
                "field": "total_debit",
                "value": "2 789,00",
                "reason": "итог на странице 3 прочитан с ошибкой",
            },
        )
        shown = (await core.client.get(f"/api/v1/files/{file_id}/documents")).json()
        stored = await fetch_one(
            settings.database_dsn,
            "SELECT total_debit FROM statement_header WHERE document_id = %s",
            statement["id"],
        )
        audit = await fetch_one(
            settings.database_dsn,
            "SELECT actor, details FROM audit_log WHERE action = 'document.correct'",
        )
    assert answer.status_code == 201, answer.text
    corrected = answer.json()["document"]
    assert corrected["header"]["total_debit"] == "2789.00"
    [layer] = corrected["corrections"]
    assert (layer["field"], layer["recognised"], layer["corrected"], layer["actor"]) == (
        "total_debit",
        "4789.00",
        "2789.00",
        "dev",
    )
    assert any("по дебету" in m for m in before)
    assert not any("по дебету" in w["message"] for w in corrected["warnings"])
    assert shown["documents"][0] == corrected
    assert str(stored["total_debit"]) == "4789.00"  # what was recognised stays
    assert audit["actor"] == "dev" and audit["details"]["recognised"] == "4789.00"


async def test_a_row_made_not_to_balance_is_flagged_at_its_row(make_core_settings) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        _, [osv] = await _documents(core, settings, OSV)
        assert osv["warnings"] == []
        answer = await core.client.post(
            f"/api/v1/documents/{osv['id']}/corrections",
            json={
                "target": "row",
                "position": 1,
                "field": "closing_debit",
                "value": "120001.00",
                "reason": "проверка",
            },
        )
    warnings = answer.json()["document"]["warnings"]
    balance = [w for w in warnings if w["code"] == "ROW_BALANCE_MISMATCH"]
    assert [w["locator"] for w in balance] == [osv["rows"][0]["locator"]]
    assert "TOTALS_MISMATCH" in _codes(answer.json()["document"])


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"target": "header", "field": "confidence", "value": "1"}, "FIELD_NOT_EDITABLE"),
        ({"target": "header", "field": "total_debit", "value": "много"}, "INVALID_VALUE"),
        ({"target": "header", "field": "total_debit", "value": "1.005"}, "INVALID_VALUE"),
        ({"target": "header", "field": "period_from", "value": "31.04.2025"}, "INVALID_VALUE"),
        (
            {"target": "transaction", "position": 99, "field": "debit", "value": "1"},
            "POSITION_OUT_OF_RANGE",
        ),
        ({"target": "row", "position": 1, "field": "name", "value": "x"}, "FIELD_NOT_EDITABLE"),
    ],
)
async def test_a_correction_that_cannot_be_is_refused_with_its_reason(
    make_core_settings, body: dict[str, Any], code: str
) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        _, [statement] = await _documents(core, settings, STATEMENT)
        answer = await core.client.post(
            f"/api/v1/documents/{statement['id']}/corrections", json={**body, "reason": "r"}
        )
        missing = await core.client.post(
            f"/api/v1/documents/{uuid.uuid4()}/corrections", json={**body, "reason": "r"}
        )
    assert answer.status_code == 400 and answer.json()["error"]["code"] == code
    assert missing.status_code == 404


async def test_a_correction_whose_answer_fails_is_not_kept(make_core_settings, monkeypatch) -> None:
    """The change and the document as changed are one transaction: if the document cannot be
    read back after the write, the change is not kept, so the analyst's retry does not make
    it twice."""
    settings = make_core_settings()
    async with run_core(settings) as core:
        file_id, [statement] = await _documents(core, settings, STATEMENT)
        # The read that follows the write fails (the reads before it use other statements).
        monkeypatch.setattr("arm_core.review.service.LAYERS", "SELECT 1 / 0 AS document_id")
        answer = await core.client.post(
            f"/api/v1/documents/{statement['id']}/corrections",
            json={"target": "header", "field": "total_debit", "value": "2 789,00", "reason": "r"},
        )
        monkeypatch.undo()
        kept = await fetch_one(
            settings.database_dsn,
            "SELECT count(*) AS n FROM correction WHERE document_id = %s",
            statement["id"],
        )
        shown = (await core.client.get(f"/api/v1/files/{file_id}/documents")).json()
    assert answer.status_code == 500
    assert kept["n"] == 0
    assert shown["documents"][0]["corrections"] == []


async def test_a_document_is_confirmed_once_every_warning_has_a_reason(make_core_settings) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        file_id, [statement] = await _documents(core, settings, STATEMENT)
        url = f"/api/v1/documents/{statement['id']}"
        refused = await core.client.post(f"{url}/confirm", json={})
        acknowledged = [
            {"code": w["code"], "locator": w["locator"], "reason": "сверено с оригиналом"}
            for w in statement["warnings"]
        ]
        done = await core.client.post(f"{url}/confirm", json={"acknowledged": acknowledged})
        again = await core.client.post(f"{url}/confirm", json={"acknowledged": acknowledged})
        late = await core.client.post(
            f"{url}/corrections",
            json={"target": "header", "field": "currency", "value": "USD", "reason": "r"},
        )
        shown = (await core.client.get(f"/api/v1/files/{file_id}")).json()
        left = [
            {"code": w["code"], "locator": w["locator"], "reason": "сверено"}
            for w in late.json()["document"]["warnings"]
            if w["severity"] != "info"
        ]
        reconfirmed = await core.client.post(f"{url}/confirm", json={"acknowledged": left})
        trail = await fetch_one(
            settings.database_dsn,
            "SELECT array_agg(action ORDER BY id) AS actions FROM audit_log"
            " WHERE action LIKE 'document.%%' AND action <> 'document.view'",
        )
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "WARNINGS_NOT_ACKNOWLEDGED"
    assert done.status_code == 200, done.text
    confirmed = done.json()["document"]
    assert confirmed["confirmed"]["by"] == "dev"
    assert [a["reason"] for a in confirmed["acknowledgements"]] == ["сверено с оригиналом"] * len(
        acknowledged
    )
    assert confirmed["review_state"] == "confirmed" and confirmed["reopened"] is None
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "DOCUMENT_CONFIRMED"
    # A correction after the confirmation reopens the document, visibly and audited.
    assert late.status_code == 201, late.text
    reopened = late.json()["document"]
    assert reopened["confirmed"] is None and reopened["review_state"] == "reopened"
    assert reopened["reopened"]["by"] == "dev"
    assert (shown["documents"], shown["confirmed_documents"]) == (1, 0)
    assert reconfirmed.status_code == 200, (reconfirmed.text, left)
    assert reconfirmed.json()["document"]["review_state"] == "confirmed"
    assert reconfirmed.json()["document"]["reopened"] is None
    assert trail["actions"] == [
        "document.confirm",
        "document.correct",
        "document.reopen",
        "document.confirm",
    ]


@pytest.mark.parametrize(
    ("form", "shown"),
    [
        ({"spot": "header:total_debit", "value": "1.00", "reason": ""}, "укажите причину"),
        ({"spot": "nowhere:total_debit", "value": "1.00", "reason": "r"}, "Выберите поле"),
        ({"spot": "transaction:debit", "value": "1.00", "reason": "r"}, "Укажите номер строки"),
        ({"spot": "header:total_debit", "value": "много", "reason": "r"}, "сумма должна быть"),
    ],
)
async def test_the_page_form_says_why_a_correction_is_refused(
    make_core_settings, form: dict[str, str], shown: str
) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        _, [statement] = await _documents(core, settings, STATEMENT)
        answer = await core.client.post(f"/ui/documents/{statement['id']}/corrections", data=form)
        layers = await core.client.get(f"/api/v1/files/{statement['job_id']}/documents")
    assert answer.status_code == 422
    assert shown in answer.text and 'role="alert"' in answer.text
    assert layers.status_code == 404 or all(
        not doc["corrections"] for doc in layers.json().get("documents", [])
    )


async def test_a_correction_is_undone_audited_and_the_recognised_value_applies_again(
    make_core_settings,
) -> None:
    settings = make_core_settings()
    async with run_core(settings) as core:
        _, [statement] = await _documents(core, settings, STATEMENT)
        url = f"/api/v1/documents/{statement['id']}"
        recognised = statement["transactions"][1]["debit"]
        made = await core.client.post(
            f"{url}/corrections",
            json={
                "target": "transaction",
                "position": 2,
                "field": "debit",
                "value": "200.20",
                "reason": "r",
            },
        )
        [layer] = made.json()["document"]["corrections"]
        undone = await core.client.delete(f"{url}/corrections/{layer['id']}")
        again = await core.client.delete(f"{url}/corrections/{layer['id']}")
        trail = await fetch_one(
            settings.database_dsn,
            "SELECT details FROM audit_log WHERE action = 'document.uncorrect'",
        )
    assert made.json()["document"]["transactions"][1]["debit"] == "200.20"
    assert undone.status_code == 200, undone.text
    after = undone.json()["document"]
    assert after["corrections"] == []
    assert after["transactions"][1]["debit"] == recognised
    assert (again.status_code, again.json()["error"]["code"]) == (404, "CORRECTION_NOT_FOUND")
    assert trail["details"]["corrected"] == "200.20"
    assert trail["details"]["position"] == 2
