"""``arm-core`` serves the API and runs the exchange loops; ``arm-core migrate`` upgrades the
database schema to the newest revision."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from types import FrameType
from typing import Any, Final

import uvicorn

from arm_core.settings import CoreSettings
from arm_ka_platform.logging import configure_logging, get_logger
from arm_ka_platform.settings import SettingsError, load_settings

# uvicorn waits this long for open connections to finish before the application stops.
HTTP_GRACE_SECONDS: Final = 5
# The longest a stop may take from the first signal: the HTTP grace, then the runtime's own
# bounded steps (results drained, inbox and loops finished, NATS and the pool closed, some
# 20 s at worst). Past it the process exits 1 without finishing the stop.
STOP_BOUND_SECONDS: Final = 30.0

log = get_logger("arm_core")


# How uvicorn serves the core, wherever it does (here and in the tests). Forwarded headers
# are never read: uvicorn would otherwise replace the socket's peer with what
# X-Forwarded-For says (from 127.0.0.1 by default, from anyone with FORWARDED_ALLOW_IPS=*),
# and the trusted-proxy check would believe it. Behind a TLS proxy, PUBLIC_URL says the
# scheme and host the analysts use.
def http_config(app: Any, *, host: str, port: int, **options: Any) -> uvicorn.Config:
    return uvicorn.Config(
        app, host=host, port=port, proxy_headers=False, log_config=None, access_log=False, **options
    )


class _Server(uvicorn.Server):
    """uvicorn's server, stopped the way arm-core wants: the first SIGTERM or SIGINT stops it
    gracefully and the process exits 0, a second one exits at once (128 + the signal), and a
    stop that overruns STOP_BOUND_SECONDS exits 1."""

    exit_code = 0

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # Not uvicorn's handler: it raises the signal again once stopped (so the process dies
        # of it rather than exiting 0), and takes only a second SIGINT as "now".
        name = signal.Signals(sig).name
        if self.should_exit:
            log.warning("arm_core_stop_forced", signal=name)
            os._exit(128 + sig)
        # The stop is marked before anything is logged: a second signal may run its handler
        # in the middle of this one, and must find the first already under way.
        self.begin_stop()
        log.info("arm_core_signalled", signal=name)

    def begin_stop(self, exit_code: int = 0) -> None:
        self.exit_code = max(self.exit_code, exit_code)
        first = not self.should_exit
        self.should_exit = True
        if not first:
            return
        deadline = threading.Timer(STOP_BOUND_SECONDS, _overran)
        deadline.daemon = True
        deadline.start()


def _overran() -> None:
    log.error("arm_core_stop_overran", bound_seconds=STOP_BOUND_SECONDS)
    os._exit(1)


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
    if args.command == "migrate":
        from arm_core.db.migrate import upgrade

        upgrade(settings.database_dsn)
        log.info("migrated", database=settings.database_display)
        return 0

    from arm_core.app import create_app

    server: _Server | None = None

    def stop_process() -> None:
        # A background loop died: serving on without the exchange would leave files stuck.
        if server is not None:
            server.begin_stop(exit_code=1)

    try:
        app = create_app(settings, on_fatal=stop_process)
    except SettingsError as exc:
        log.critical("arm_core_refused_to_start", reason=str(exc))
        print(f"arm-core: {exc}", file=sys.stderr)
        return 2
    if settings.auth_mode == "off":
        log.warning("development_identity", user=settings.dev_user, host=settings.http_host)
    server = _Server(
        http_config(
            app,
            host=settings.http_host,
            port=settings.http_port,
            # Open event streams would otherwise hold a stopping server until they end.
            timeout_graceful_shutdown=HTTP_GRACE_SECONDS,
        )
    )
    server.run()
    return server.exit_code


if __name__ == "__main__":
    sys.exit(main())
