"""Named background loops under one supervisor.

A loop runs one *pass* at a time: on its period, when woken (LISTEN/NOTIFY, a new message), or
never again once stopping. A pass that raises is logged and counted; the loop goes on. A loop
that dies anyway (a bug in the loop itself) trips the supervisor's ``failed`` event so the
process can stop instead of limping on without it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

PassFn = Callable[[], Awaitable[object]]
PassObserver = Callable[[str, float, bool], None]


@dataclass
class Loop:
    name: str
    run_pass: PassFn
    period: float
    # A pass that only waits (a LISTEN connection) has nothing to finish: cancel it at stop.
    cancel_on_stop: bool = False
    wake_event: asyncio.Event = field(default_factory=asyncio.Event)
    passes: int = 0
    errors: int = 0

    def wake(self) -> None:
        self.wake_event.set()


class Supervisor:
    def __init__(self, observer: PassObserver | None = None) -> None:
        self._loops: dict[str, Loop] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._stopping = asyncio.Event()
        self.failed = asyncio.Event()
        self._observer = observer

    def add(
        self, name: str, run_pass: PassFn, period: float, *, cancel_on_stop: bool = False
    ) -> Loop:
        if name in self._loops:
            raise ValueError(f"loop {name!r} already registered")
        loop = Loop(name=name, run_pass=run_pass, period=period, cancel_on_stop=cancel_on_stop)
        self._loops[name] = loop
        return loop

    def __getitem__(self, name: str) -> Loop:
        return self._loops[name]

    @property
    def loops(self) -> list[Loop]:
        return list(self._loops.values())

    def start(self) -> None:
        for loop in self._loops.values():
            task = asyncio.create_task(self._run(loop), name=f"loop:{loop.name}")
            task.add_done_callback(self._on_done)
            self._tasks[loop.name] = task
        log.info("supervisor_started", loops=[loop.name for loop in self._loops.values()])

    def _on_done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled() or self._stopping.is_set():
            return
        log.error("loop_died", task=task.get_name(), error=repr(task.exception()))
        self.failed.set()

    async def _run(self, loop: Loop) -> None:
        while not self._stopping.is_set():
            loop.wake_event.clear()
            started = time.perf_counter()
            ok = True
            try:
                await loop.run_pass()
            except asyncio.CancelledError:
                raise
            except Exception:
                ok = False
                loop.errors += 1
                log.exception("loop_pass_failed", loop=loop.name)
            loop.passes += 1
            if self._observer is not None:
                self._observer(loop.name, time.perf_counter() - started, ok)
            await self._sleep(loop)

    async def _sleep(self, loop: Loop) -> None:
        waiters = {
            asyncio.ensure_future(loop.wake_event.wait()),
            asyncio.ensure_future(self._stopping.wait()),
        }
        try:
            await asyncio.wait(waiters, timeout=loop.period, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()

    async def stop(self, grace: float = 5.0) -> None:
        """Let each loop finish its current pass, then cancel whatever is still running."""
        self._stopping.set()
        if not self._tasks:
            return
        for name, task in self._tasks.items():
            if self._loops[name].cancel_on_stop:
                task.cancel()
        _, pending = await asyncio.wait(self._tasks.values(), timeout=grace)
        for task in pending:
            task.cancel()
        # A loop that died has been reported by _on_done already.
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
        log.info("supervisor_stopped")
