"""Uploads and retries are limited per user per minute: past the limit 429 TOO_MANY_REQUESTS
with Retry-After, and the bucket refills as the minute goes by."""

from __future__ import annotations

import uuid

from arm_core.api.rate import RateLimits
from arm_core.testing import minimal_workbook, run_core, upload


def test_a_bucket_holds_a_minutes_requests_and_refills_by_the_second() -> None:
    now = [1000.0]
    limits = RateLimits(clock=lambda: now[0])
    assert [limits.take("upload", "anna", 3) for _ in range(3)] == [None, None, None]
    assert limits.take("upload", "anna", 3) == 20  # one more in 60/3 s
    assert limits.take("upload", "boris", 3) is None  # each user has a bucket
    assert limits.take("retry", "anna", 3) is None  # and each kind of request
    now[0] += 20
    assert limits.take("upload", "anna", 3) is None
    assert limits.take("upload", "anna", 3) == 20


async def test_uploads_and_retries_over_the_limit_are_429_with_retry_after(
    make_core_settings,
) -> None:
    settings = make_core_settings(
        nats_enabled=False,
        uploads_per_minute=2,
        retries_per_minute=1,
        auth_user_header="X-Remote-User",
    )
    anna, boris = {"X-Remote-User": "anna"}, {"X-Remote-User": "boris"}
    async with run_core(settings) as core:
        uploads = [
            await upload(core.client, "osv.xlsx", minimal_workbook(), headers=anna)
            for _ in range(3)
        ]
        retries = [
            await core.client.post(
                "/api/v1/files/retry", json={"file_ids": [str(uuid.uuid4())]}, headers=anna
            )
            for _ in range(2)
        ]
        other = await upload(core.client, "osv.xlsx", minimal_workbook(), headers=boris)
    assert [r.status_code for r in uploads] == [201, 201, 429]
    assert [r.status_code for r in retries] == [200, 429]
    for refused in (uploads[2], retries[1]):
        assert refused.json()["error"]["code"] == "TOO_MANY_REQUESTS"
        assert int(refused.headers["retry-after"]) >= 1
    assert other.status_code == 201  # another user's own bucket
