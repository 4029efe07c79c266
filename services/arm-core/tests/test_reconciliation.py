"""A consolidation's «Сверки» through the API and the page: the same bytes uploaded twice are
told at upload and found in the consolidation; a consolidation of consistent documents has
nothing to report. (The checks themselves: test_reconcile_checks.)"""

from __future__ import annotations

from arm_core.testing import minimal_workbook, run_core, upload


async def test_the_same_file_twice_is_told_at_upload_and_in_the_consolidation(
    make_core_settings,
) -> None:
    settings = make_core_settings(nats_enabled=False)
    book = minimal_workbook()
    async with run_core(settings) as core:
        client = core.client
        made = await client.post("/api/v1/consolidations", json={"name": "ООО «Ромашка»"})
        consolidation_id = made.json()["id"]
        first = await upload(client, "ОСВ 2024.xlsx", book, consolidation_id=consolidation_id)
        # Other bytes, outside the consolidation: no copy of anything.
        other = await upload(client, "Другая.xlsb", minimal_workbook("xlsb"))
        second = await upload(client, "ОСВ 2024 (1).xlsx", book, consolidation_id=consolidation_id)
        api = (await client.get(f"/api/v1/consolidations/{consolidation_id}/reconciliation")).json()
        page = await client.get(f"/ui/consolidations/{consolidation_id}/reconciliation")
    assert first.json()["same_bytes"] == []
    assert other.status_code == 201 and other.json()["same_bytes"] == []
    assert [f["original_name"] for f in second.json()["same_bytes"]] == ["ОСВ 2024.xlsx"]
    checks = {check["code"]: check for check in api["checks"]}
    assert [c for c in checks if checks[c]["findings"]] == ["SAME_FILE"]
    [finding] = checks["SAME_FILE"]["findings"]
    assert [place["file_name"] for place in finding["places"]] == [
        "ОСВ 2024.xlsx",
        "ОСВ 2024 (1).xlsx",
    ]
    assert finding["places"][0]["url"] == f"/ui/files/{first.json()['file_id']}"
    assert page.status_code == 200
    assert "Сверки" in page.text and "Один и тот же файл загружен 2 раза" in page.text


async def test_an_empty_consolidation_has_nothing_to_compare(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False)
    async with run_core(settings) as core:
        made = await core.client.post("/api/v1/consolidations", json={"name": "Пустая"})
        api = (
            await core.client.get(f"/api/v1/consolidations/{made.json()['id']}/reconciliation")
        ).json()
    assert [(c["code"], c["compared"], c["findings"]) for c in api["checks"]] == [
        ("STATEMENT_CHAIN", 0, []),
        ("TRIAL_BALANCE_CHAIN", 0, []),
        ("BANK_ACCOUNTS", 0, []),
        ("SAME_FILE", 0, []),
    ]


async def test_a_file_left_out_of_the_checks_by_the_api_is_audited_and_named(
    make_core_settings,
) -> None:
    settings = make_core_settings(nats_enabled=False)
    book = minimal_workbook()
    async with run_core(settings) as core:
        client = core.client
        made = await client.post("/api/v1/consolidations", json={"name": "ООО «Ромашка»"})
        consolidation_id = made.json()["id"]
        await upload(client, "ОСВ 2024.xlsx", book, consolidation_id=consolidation_id)
        second = await upload(client, "ОСВ 2024 (1).xlsx", book, consolidation_id=consolidation_id)
        file_id = second.json()["file_id"]
        url = f"/api/v1/files/{file_id}/reconciliation-exclusion"
        blank = await client.put(url, json={"reason": ""})
        left = await client.put(url, json={"reason": "копия"})
        api = (await client.get(f"/api/v1/consolidations/{consolidation_id}/reconciliation")).json()
        back = await client.delete(url)
        again = (
            await client.get(f"/api/v1/consolidations/{consolidation_id}/reconciliation")
        ).json()
    assert blank.status_code == 422
    assert left.json() == {"file_id": file_id, "excluded": True}
    assert [c["findings"] for c in api["checks"]] == [[], [], [], []]
    [excluded] = api["excluded"]
    assert (excluded["file_name"], excluded["by"], excluded["reason"]) == (
        "ОСВ 2024 (1).xlsx",
        "dev",
        "копия",
    )
    assert back.json()["excluded"] is False
    assert again["excluded"] == []
    assert [c["code"] for c in again["checks"] if c["findings"]] == ["SAME_FILE"]
