"""The sandbox on its own: children do not depend on the parent's ``__main__``."""

from __future__ import annotations

import functools
import gc
import os
import resource
import subprocess
import sys

import psutil
import pytest

from recognition_contract import ErrorCode
from recognition_worker.recognition import RecognitionError
from recognition_worker.sandbox import Sandbox

SCRIPT = """
import asyncio, functools, os
from recognition_contract import FileType
from recognition_worker.sandbox import Sandbox
from recognition_worker.testing import scripted

async def main():
    sandbox = Sandbox(concurrency=1, memory_bytes=1024**3, preload=["recognition_worker.testing"])
    sandbox.start()
    task = functools.partial(scripted, FileType.XLSX, b"ok", "from-stdin")
    result = await sandbox.run(task, timeout=30)
    sandbox.close()
    print("sheet", result.documents[0].locator.sheet)

asyncio.run(main())
"""


def test_a_parent_run_from_stdin_can_use_the_sandbox() -> None:
    # multiprocessing would re-run "<stdin>" as the child's main module and fail.
    result = subprocess.run(
        [sys.executable, "-"], input=SCRIPT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "sheet from-stdin"


@pytest.mark.parametrize("cyclic_gc", [True, False])
async def test_the_child_runs_the_cyclic_collector_as_configured(cyclic_gc: bool) -> None:
    sandbox = Sandbox(concurrency=1, memory_bytes=1024**3, cyclic_gc=cyclic_gc)
    sandbox.start()
    try:
        assert await sandbox.run(gc.isenabled, timeout=30) is cyclic_gc
    finally:
        sandbox.close()
    assert gc.isenabled()  # the parent's collector is not touched


def fork_server() -> psutil.Process:
    """The sandbox's fork server: the child of this process that runs the sandbox module."""
    (server,) = [
        process
        for process in psutil.Process().children()
        if "recognition_worker.sandbox" in " ".join(process.cmdline())
    ]
    return server


async def test_a_fork_server_that_died_is_started_again_for_the_next_job() -> None:
    sandbox = Sandbox(concurrency=1, memory_bytes=1024**3)
    sandbox.start()
    try:
        dead = fork_server()
        dead.kill()
        dead.wait(5)
        assert await sandbox.run(os.getpid, timeout=30) != os.getpid()
        assert fork_server().pid != dead.pid
    finally:
        sandbox.close()


async def test_the_child_runs_under_the_memory_limit_and_its_death_is_reported() -> None:
    sandbox = Sandbox(concurrency=1, memory_bytes=512 * 1024**2)
    sandbox.start()
    try:
        limit = functools.partial(resource.getrlimit, resource.RLIMIT_AS)
        assert await sandbox.run(limit, timeout=30) == (512 * 1024**2, 512 * 1024**2)
        with pytest.raises(RecognitionError) as caught:
            await sandbox.run(os.abort, timeout=30)
        assert caught.value.code is ErrorCode.UNREADABLE
        assert "crashed (SIGABRT); the file may need more than 512 MiB" in caught.value.message
    finally:
        sandbox.close()
