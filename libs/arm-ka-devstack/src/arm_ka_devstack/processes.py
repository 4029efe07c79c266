"""Child processes that are stopped when their owner stops, whatever the reason."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, Final

# How long a process may take to become ready (imports, a fork server's warm-up, connecting)
# before a test gives up on it: a bound for failing, never a time anything waits for.
READY_SECONDS: Final = 90.0
# A log line with a traceback in it can be long; longer ones are read in pieces.
_LINE_BYTES: Final = 1 << 20


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


class WatchedProcess:
    """A command in its own session whose stderr carries its log, one JSON event per line
    (``LOG_JSON=true``), read as it comes: a test waits for an event (``worker_ready``, a job's
    outcome, a stop) rather than for a time, and a failure shows the process's last lines."""

    def __init__(self, name: str, process: asyncio.subprocess.Process) -> None:
        self.name = name
        self.process = process
        self.lines: list[str] = []
        self.events: list[dict[str, Any]] = []
        self._changed = asyncio.Condition()
        self._ended = False
        self._reader = asyncio.create_task(self._read(), name=f"stderr:{name}")

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def _read(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        while True:
            try:
                line = await stream.readline()
            except ValueError:  # a line over the stream's limit: keep what fits
                line = await stream.read(_LINE_BYTES)
            if not line:
                break
            text = line.decode("utf-8", "replace").rstrip("\n")
            self.lines.append(text)
            with contextlib.suppress(ValueError):
                event = json.loads(text)
                if isinstance(event, dict):
                    self.events.append(event)
            async with self._changed:
                self._changed.notify_all()
        async with self._changed:
            self._ended = True
            self._changed.notify_all()

    def find(self, event: str, **fields: Any) -> list[dict[str, Any]]:
        """The events named ``event`` (the log line's ``event``) whose fields include
        ``fields``."""
        return [
            e
            for e in self.events
            if e.get("event") == event and all(e.get(k) == v for k, v in fields.items())
        ]

    async def wait_for_event(
        self, event: str, *, timeout: float = READY_SECONDS, **fields: Any
    ) -> dict[str, Any]:
        """The first ``event`` with ``fields``, waiting for it; fails when the process ends
        without it or ``timeout`` passes first."""

        def seen() -> bool:
            return bool(self.find(event, **fields)) or self._ended

        async def arrival() -> None:
            async with self._changed:
                await self._changed.wait_for(seen)

        try:
            await asyncio.wait_for(arrival(), timeout)
        except TimeoutError:
            raise AssertionError(
                f"{self.name} logged no {event} {fields or ''} within {timeout:g} s\n{self.tail()}"
            ) from None
        found = self.find(event, **fields)
        if not found:
            await self.process.wait()
            raise AssertionError(
                f"{self.name} exited with code {self.returncode} before it logged {event} "
                f"{fields or ''}\n{self.tail()}"
            )
        return found[0]

    def send_signal(self, sig: int, *, group: bool = False) -> None:
        """To the process, or to its whole process group as a terminal or systemd would."""
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(self.pid, sig)
            else:
                self.process.send_signal(sig)

    async def wait(self, timeout: float) -> int:
        """The exit code, once its output is read to the end; fails, killing the process
        group, when it still runs after ``timeout``."""
        try:
            code = await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            self.kill()
            await self.process.wait()
            raise AssertionError(
                f"{self.name} still ran {timeout:g} s later; killed\n{self.tail()}"
            ) from None
        await self._reader
        return code

    def group_alive(self) -> bool:
        """Whether any process of its group (a fork server, its children) still runs."""
        try:
            os.killpg(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL, group=True)

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.lines[-lines:])


@contextlib.asynccontextmanager
async def watched(
    argv: Sequence[str], *, env: dict[str, str], name: str | None = None
) -> AsyncIterator[WatchedProcess]:
    """Start ``argv`` as a ``WatchedProcess``; whatever of its group still runs at the end
    of the block is killed."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        limit=_LINE_BYTES,
    )
    child = WatchedProcess(name or Path(argv[0]).name, process)
    try:
        yield child
    finally:
        child.kill()
        await process.wait()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(child._reader, 5)
