"""``tabular-parser`` recognises XLS, XLSX and XLSB workbooks sent by arm-core over NATS."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from arm_ka_platform.logging import configure_logging, get_logger
from arm_ka_platform.settings import SettingsError, load_settings
from tabular_parser.settings import TabularSettings


async def serve(settings: TabularSettings) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully."""
    from tabular_parser.app import create_worker

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    worker = create_worker(settings)
    await worker.start()
    try:
        await stop.wait()
    finally:
        await worker.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tabular-parser", description=__doc__)
    parser.parse_args(argv)
    try:
        settings = load_settings(TabularSettings)
    except SettingsError as exc:
        print(f"tabular-parser: {exc}", file=sys.stderr)
        return 2
    if not settings.nats_enabled:
        print("tabular-parser: NATS_ENABLED is false; it has nothing to do", file=sys.stderr)
        return 2
    configure_logging(debug=settings.debug, json=settings.log_json)
    get_logger("tabular_parser").info("tabular_parser_starting")
    asyncio.run(serve(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
