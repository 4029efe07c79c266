"""The command line of a recognition service: settings, checks, run until a signal."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import TypeVar

from arm_ka_platform.logging import configure_logging, get_logger
from arm_ka_platform.settings import SettingsError, load_settings
from recognition_worker.settings import WorkerSettings
from recognition_worker.worker import Worker

S = TypeVar("S", bound=WorkerSettings)


def package_version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:  # running from a source tree
        return "0.0.0"


async def serve(worker: Worker) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await worker.start()
    try:
        await stop.wait()
    finally:
        await worker.stop()


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
