"""Loops survive their passes' errors, wake on demand and stop cleanly."""

from __future__ import annotations

import asyncio

from arm_ka_platform.supervisor import Supervisor


async def test_failing_pass_is_logged_and_loop_goes_on() -> None:
    calls = 0

    async def flaky() -> None:
        nonlocal calls
        calls += 1
        if calls % 2:
            raise RuntimeError("boom")

    observed: list[tuple[str, bool]] = []
    enough = asyncio.Event()

    def observe(name: str, _seconds: float, ok: bool) -> None:
        observed.append((name, ok))
        if len(observed) >= 4:
            enough.set()

    supervisor = Supervisor(observer=observe)
    loop = supervisor.add("flaky", flaky, period=0.01)
    supervisor.start()
    # However slow the machine, the loop goes on through its errors: wait for four passes.
    await asyncio.wait_for(enough.wait(), timeout=30)
    await supervisor.stop()
    assert calls >= 4
    assert loop.errors >= 2
    assert ("flaky", False) in observed
    assert ("flaky", True) in observed
    assert not supervisor.failed.is_set()


async def test_wake_runs_a_pass_before_the_period() -> None:
    ran = asyncio.Event()
    count = 0

    async def work() -> None:
        nonlocal count
        count += 1
        if count > 1:
            ran.set()

    first = asyncio.Event()
    supervisor = Supervisor(observer=lambda _name, _seconds, _ok: first.set())
    loop = supervisor.add("work", work, period=60)
    supervisor.start()
    # The first pass runs at start; the wake must bring a second one long before the period.
    await asyncio.wait_for(first.wait(), timeout=30)
    loop.wake()
    await asyncio.wait_for(ran.wait(), timeout=1)
    await supervisor.stop()


async def test_stop_cancels_a_pass_that_outlives_the_grace() -> None:
    cancelled = asyncio.Event()

    started = asyncio.Event()

    async def stuck() -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    supervisor = Supervisor()
    supervisor.add("stuck", stuck, period=1)
    supervisor.start()
    await asyncio.wait_for(started.wait(), timeout=10)
    await supervisor.stop(grace=0.1)
    assert cancelled.is_set()
    assert not supervisor.failed.is_set()


async def test_a_dying_loop_trips_failed() -> None:
    supervisor = Supervisor()

    async def fine() -> None:
        return None

    loop = supervisor.add("fine", fine, period=0.01)

    def broken_sleep(_loop: object) -> None:
        raise SystemError("loop machinery broke")

    supervisor._sleep = broken_sleep  # type: ignore[assignment,method-assign]
    supervisor.start()
    await asyncio.wait_for(supervisor.failed.wait(), timeout=1)
    assert loop.passes == 1
    await supervisor.stop()
