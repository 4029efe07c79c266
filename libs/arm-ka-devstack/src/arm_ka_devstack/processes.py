"""Child processes that are stopped when their owner stops, whatever the reason."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # Servers bind with SO_REUSEADDR, so a port in TIME_WAIT is free for them too.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def wait_for_port(port: int, host: str = "127.0.0.1", timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.2)
            if sock.connect_ex((host, port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout}s")


def venv_command(name: str) -> str:
    """A console script of this environment, found beside the running interpreter."""
    here = Path(sys.executable).parent
    found = shutil.which(name, path=str(here)) or shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"command {name!r} is not installed in {here}")
    return found


class Child:
    """A process in its own session, so a terminal's Ctrl-C reaches only the launcher, which
    then stops children in order instead of all at once."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        log_path: Path | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self._log = open(log_path, "ab") if log_path else None  # noqa: SIM115
        self.process = subprocess.Popen(
            self.argv,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=self._log if self._log else None,
            stderr=subprocess.STDOUT if self._log else None,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 10.0, sig: int = signal.SIGTERM) -> int:
        if self.running():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        if self._log:
            self._log.close()
        return int(self.process.returncode)

    def kill(self) -> None:
        self.stop(timeout=0.1, sig=signal.SIGKILL)
