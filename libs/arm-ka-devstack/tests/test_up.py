"""``arm-ka up`` brings the system up healthy and Ctrl-C stops everything it started."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import psutil

from arm_ka_devstack.processes import free_port, venv_command


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENBAO__", "DATABASE_URL", "NATS_", "STORAGE_", "S3_", "HTTP_"))
    }
    env.update(extra)
    return env


def _descendants(pid: int) -> list[int]:
    return [child.pid for child in psutil.Process(pid).children(recursive=True)]


def _alive(pid: int) -> bool:
    return psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE


def test_up_serves_healthcheck_and_ctrl_c_stops_everything(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [venv_command("arm-ka"), "up", "--home", str(tmp_path / "home"), "--core-only"],
        env=_env(HTTP_PORT=str(port)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        # An empty line means it exited: what it said on stderr tells why.
        assert url == f"http://127.0.0.1:{port}", url or process.stderr.read()
        body = httpx.get(f"{url}/healthcheck", timeout=5).json()
        assert body["db"] == "ok"
        assert body["nats"] == "ok"
        assert body["subjects"]["result"] == "files.tabular_parsed"
        started = _descendants(process.pid)
        postmaster = (tmp_path / "home" / "postgres" / "postmaster.pid").read_text().split()[0]
        started.append(int(postmaster))
        assert len(started) >= 3  # arm-core, nats-server, postgres
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=60)
        assert code == 0, (process.stderr.read() if process.stderr else "")[-4000:]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(psutil.pid_exists(p) for p in started):
            time.sleep(0.1)
        alive = [
            p for p in started if psutil.pid_exists(p) and psutil.Process(p).status() != "zombie"
        ]
        assert alive == []
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_up_refuses_a_wildcard_result_subject(tmp_path: Path) -> None:
    result = subprocess.run(
        [venv_command("arm-ka"), "up", "--home", str(tmp_path / "home")],
        env=_env(OPENBAO__NATS__NATS_RESULT_SUBJECT="files.>"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "OPENBAO__NATS__NATS_RESULT_SUBJECT" in result.stderr
    assert not (tmp_path / "home").exists()
