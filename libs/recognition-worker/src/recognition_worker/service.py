"""The command line of a recognition service: settings, checks, run until a signal.

SIGTERM or SIGINT stops the service gracefully (``Worker.stop``: no new requests, the jobs in
flight get ``SHUTDOWN_GRACE_SECONDS``, the rest are abandoned), then it exits 0. A second signal
during that stop exits at once (128 + the signal), naming the jobs it abandons; so does a stop
that overruns its bound (exit 1), which only a hung connection can cause.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import TypeVar

from arm_ka_platform.logging import configure_logging, get_logger
from arm_ka_platform.settings import SettingsError, load_settings
from recognition_worker.settings import WorkerSettings
from recognition_worker.worker import Worker, stop_bound

S = TypeVar("S", bound=WorkerSettings)


def package_version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:  # running from a source tree
        return "0.0.0"


async def serve(worker: Worker) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully; a second signal stops at once."""
    log = get_logger(worker.recognizer.name)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        name = signal.Signals(signum).name
        if stop.is_set():
            # Whoever signals twice wants the process gone now; the jobs' children die with
            # it (the fork server kills them when this process's socket closes).
            worker.abandon(reason=f"{name} during the stop")
            log.warning("service_stop_forced", signal=name)
            os._exit(128 + signum)
        log.info("service_stopping", signal=name)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, on_signal, signum)
    await worker.start()
    try:
        await stop.wait()
    finally:
        grace = worker.settings.shutdown_grace_seconds
        try:
            await asyncio.wait_for(worker.stop(grace), stop_bound(grace))
        except TimeoutError:
            worker.abandon(reason="the stop overran its bound")
            log.error("service_stop_overran", bound_seconds=stop_bound(grace))
            os._exit(1)


def run_service(
    name: str,
    settings_cls: type[S],
    create_worker: Callable[[S], Worker],
    *,
    description: str | None = None,
    check: Callable[[S], str | None] | None = None,
    argv: list[str] | None = None,
) -> int:
    """``main()`` of a service: exit code 2 with a message naming the key (never a secret)
    when the settings or ``check`` refuse to start, else serve until stopped."""
    argparse.ArgumentParser(prog=name, description=description).parse_args(argv)
    try:
        settings = load_settings(settings_cls)
    except SettingsError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    problem = "NATS_ENABLED is false; it has nothing to do" if not settings.nats_enabled else None
    if problem is None and check is not None:
        problem = check(settings)
    if problem is not None:
        print(f"{name}: {problem}", file=sys.stderr)
        return 2
    configure_logging(debug=settings.debug, json=settings.log_json)
    get_logger(name).info("service_starting", service=name)
    asyncio.run(serve(create_worker(settings)))
    return 0
