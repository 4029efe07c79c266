"""``arm-core`` serves the API and runs the exchange loops; ``arm-core migrate`` upgrades the
database schema to the newest revision."""

from __future__ import annotations

import argparse
import os
import signal
import sys

from arm_core.settings import CoreSettings
from arm_ka_platform.logging import configure_logging, get_logger
from arm_ka_platform.settings import SettingsError, load_settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arm-core", description=__doc__)
    parser.add_argument("command", nargs="?", default="serve", choices=["serve", "migrate"])
    args = parser.parse_args(argv)
    try:
        settings = load_settings(CoreSettings)
    except SettingsError as exc:
        print(f"arm-core: {exc}", file=sys.stderr)
        return 2
    configure_logging(debug=settings.debug, json=settings.log_json)
    log = get_logger("arm_core")
    if args.command == "migrate":
        from arm_core.db.migrate import upgrade

        upgrade(settings.database_dsn)
        log.info("migrated", database=settings.database_display)
        return 0

    import uvicorn

    from arm_core.app import create_app

    def stop_process() -> None:
        os.kill(os.getpid(), signal.SIGTERM)

    uvicorn.run(
        create_app(settings, on_fatal=stop_process),
        host=settings.http_host,
        port=settings.http_port,
        log_config=None,
        access_log=False,
        # Open event streams would otherwise hold a stopping server until they end.
        timeout_graceful_shutdown=5,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
