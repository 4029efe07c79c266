"""``arm-ka up``: the whole system on one machine.

Starts PostgreSQL (unless ``DATABASE_URL`` is set), nats-server (unless ``NATS_URL`` is set) and
local object storage (unless ``STORAGE_URL`` is set), applies migrations, starts arm-core and
every recognition service installed, prints the URL, and on Ctrl-C stops all it started, in
reverse order.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from arm_ka_devstack.nats_server import NatsServer
from arm_ka_devstack.postgres import EmbeddedPostgres
from arm_ka_devstack.processes import Child, port_is_free, venv_command
from arm_ka_platform.settings import PlatformSettings, SettingsError, load_settings

SERVICES = ("tabular-parser", "scan-gateway")


def _say(message: str) -> None:
    print(f"arm-ka: {message}", file=sys.stderr, flush=True)


# A service may finish its jobs in flight for SHUTDOWN_GRACE_SECONDS (25) and bounds its
# whole stop at 15 s past that; arm-core bounds its own at 30 s. Killing earlier would cut
# short what the stop is for.
CHILD_STOP_SECONDS = 45.0


def _wait_healthy(url: str, children: list[Child], timeout: float) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    last: dict[str, object] = {}
    while time.monotonic() < deadline:
        for child in children:
            if not child.running():
                raise RuntimeError(f"{child.name} exited with code {child.process.returncode}")
        try:
            response = httpx.get(f"{url}/healthcheck", timeout=2)
            last = response.json()
            if (
                response.status_code == 200
                and last.get("db") == "ok"
                and last.get("nats") != "down"
            ):
                return last
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"arm-core not healthy after {timeout}s: {last}")


def up(home: Path, services: bool) -> int:
    try:
        load_settings(PlatformSettings)
    except SettingsError as exc:
        _say(str(exc))
        return 2
    env = dict(os.environ)
    env.setdefault("LOG_JSON", "false")
    if not env.get("OIDC_ISSUER") and not env.get("AUTH_USER_HEADER"):
        # No sign-in configured: the core serves only in development mode, on loopback.
        env["DEBUG"] = "true"
        _say(
            "development mode: no sign-in configured (OIDC_ISSUER or AUTH_USER_HEADER); "
            f"everything is done as {env.get('DEV_USER', 'dev')!r}, on loopback only"
        )
    stops: list[Callable[[], None]] = []
    children: list[Child] = []
    stop_requested = threading.Event()

    def request_stop(signum: int, _frame: object) -> None:
        stop_requested.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    try:
        if "DATABASE_URL" not in env:
            pg = EmbeddedPostgres(home / "postgres", port=54329 if port_is_free(54329) else None)
            _say(f"starting PostgreSQL in {pg.datadir} on port {pg.port}")
            pg.start()
            stops.append(pg.stop)
            env["DATABASE_URL"] = pg.ensure_database("arm_ka")
        if "NATS_URL" not in env:
            nats = NatsServer(port=4222 if port_is_free(4222) else None, workdir=home / "nats")
            _say(f"starting nats-server on port {nats.port}")
            nats.start()
            stops.append(nats.stop)
            env["NATS_URL"] = nats.url
        if "STORAGE_URL" not in env and "S3_ENDPOINT_URL" not in env:
            env["STORAGE_URL"] = f"file://{home / 'storage'}"
        _say("applying migrations")
        subprocess.run([venv_command("arm-core"), "migrate"], env=env, check=True)
        host = env.get("HTTP_HOST", "127.0.0.1")
        port = env.get("HTTP_PORT", "8000")
        children.append(Child("arm-core", [venv_command("arm-core")], env=env))
        if services:
            for name in SERVICES:
                if shutil.which(name, path=str(Path(sys.executable).parent)):
                    children.append(Child(name, [venv_command(name)], env=env))
        url = f"http://{host}:{port}"
        health = _wait_healthy(url, children, timeout=90)
        _say(f"ready: {url}  (db={health['db']}, nats={health['nats']}); Ctrl-C stops everything")
        print(url, flush=True)
        while not stop_requested.wait(0.5):
            for child in children:
                if not child.running():
                    _say(f"{child.name} exited with code {child.process.returncode}; stopping")
                    return 1
        return 0
    except (RuntimeError, TimeoutError, subprocess.CalledProcessError) as exc:
        _say(f"failed: {exc}")
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for child in reversed(children):
            child.stop(timeout=CHILD_STOP_SECONDS)
        for stop in reversed(stops):
            stop()
        _say("stopped")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arm-ka", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    up_parser = sub.add_parser("up", help="run the whole system on this machine")
    up_parser.add_argument(
        "--home",
        type=Path,
        default=Path(os.environ.get("ARM_KA_HOME", ".var")),
        help="where embedded PostgreSQL, NATS and storage keep their data (default .var)",
    )
    up_parser.add_argument(
        "--core-only", action="store_true", help="do not start the recognition services"
    )
    args = parser.parse_args(argv)
    return up(args.home.resolve(), services=not args.core_only)


if __name__ == "__main__":
    sys.exit(main())
