"""Open event streams are limited in total and per user; a slot comes back when its stream
ends, or when a stream that never started is dropped."""

from __future__ import annotations

import gc

from arm_core.testing import run_core, wait_until
from arm_core.web.slots import StreamSlots


def test_slots_are_limited_per_user_and_in_total_and_come_back() -> None:
    slots = StreamSlots()
    first = slots.take("anna", most=3, most_per_user=2)
    second = slots.take("anna", most=3, most_per_user=2)
    assert first is not None and second is not None
    assert slots.take("anna", most=3, most_per_user=2) is None  # her two are taken
    third = slots.take("boris", most=3, most_per_user=2)
    assert third is not None
    assert slots.take("vera", most=3, most_per_user=2) is None  # all three are taken
    first.release()
    first.release()  # once only
    assert slots.total == 2 and slots.held_by("anna") == 1
    del second, third
    gc.collect()
    assert slots.total == 0 and slots.held_by("anna") == 0


async def test_a_user_over_the_streams_limit_gets_429_until_one_ends(make_core_settings) -> None:
    settings = make_core_settings(nats_enabled=False, event_streams_per_user=1)
    async with run_core(settings) as core:
        async with core.client.stream("GET", "/ui/events") as open_stream:
            assert open_stream.status_code == 200
            refused = await core.client.get("/ui/events")
            assert refused.status_code == 429
            assert refused.json()["error"]["code"] == "TOO_MANY_STREAMS"
            assert int(refused.headers["retry-after"]) > 0
        await wait_until(lambda: _free(core))
        async with core.client.stream("GET", "/ui/events") as again:
            assert again.status_code == 200


async def _free(core) -> bool:
    return core.runtime.stream_slots.total == 0
