"""Recognition of one file in a child process with a hard timeout and a memory limit.

A hostile workbook can make a parser loop, allocate without bound or crash inside native
code. None of that may reach the service: each job runs in its own child, forked from a
forkserver (a clean single-threaded process that has imported the recognizer once, so a fork
costs milliseconds and inherits no threads or sockets of the service). The child gets
``RLIMIT_AS`` before it touches the file, is killed when its time is up, and whatever it dies
of becomes an error code.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import multiprocessing
import multiprocessing.forkserver
import os
import resource
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from multiprocessing import context, popen_forkserver, spawn, util
from multiprocessing.connection import Connection
from typing import Any, Final, TypeVar

from recognition_contract import ErrorCode
from recognition_worker.recognition import RecognitionError

T = TypeVar("T")

# How often a waiting thread looks at its cancel flag; bounds the delay of a kill on shutdown.
_POLL_SECONDS: Final = 0.05
# A killed child is reaped within this; SIGKILL cannot be ignored, so it is only a safeguard.
_REAP_SECONDS: Final = 5.0
_MAX_MESSAGE_CHARS: Final = 500
_WARM_UP_SECONDS: Final = 60.0


# CPython's multiprocessing internals are untyped; they are used as they are, not reshaped.
_context: Any = context
_util: Any = util
_forkserver: Any = multiprocessing.forkserver


class _Popen(popen_forkserver.Popen):
    """The forkserver launch of CPython 3.11 minus the parent's ``__main__``.

    multiprocessing re-runs the parent's main script in every child, for functions defined
    there. Tasks here name everything by module, and re-running a service's console script,
    pytest or ``<stdin>`` in each child costs imports per job or fails outright.
    """

    def _launch(self, process_obj: Any) -> None:
        prep_data = {
            key: value
            for key, value in spawn.get_preparation_data(process_obj._name).items()
            if not key.startswith("init_main_from_")
        }
        buf = io.BytesIO()
        _context.set_spawning_popen(self)
        try:
            _context.reduction.dump(prep_data, buf)
            _context.reduction.dump(process_obj, buf)
        finally:
            _context.set_spawning_popen(None)
        fds: list[int] = self.__dict__["_fds"]
        self.sentinel, w = _forkserver.connect_to_new_process(fds)
        parent_w = os.dup(w)
        self.finalizer = _util.Finalize(self, _util.close_fds, (parent_w, self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = _forkserver.read_signed(self.sentinel)


class _Child(context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> _Popen:
        return _Popen(process_obj)


def _ready() -> bool:
    return True


def _limit_memory(memory_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    # An abort in native code would otherwise write a core file of up to memory_bytes.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _child(conn: Connection, task: Callable[[], Any], memory_bytes: int, cyclic_gc: bool) -> None:
    """Body of the child: limits first, then the task; the outcome goes back pickled."""
    outcome: tuple[str, Any]
    if not cyclic_gc:
        gc.disable()
    try:
        _limit_memory(memory_bytes)
        outcome = ("ok", task())
    except RecognitionError as exc:
        outcome = ("error", (exc.code.value, exc.message))
    except MemoryError:
        outcome = ("error", (ErrorCode.UNREADABLE.value, _over_memory(memory_bytes)))
    except RecursionError:
        outcome = ("error", (ErrorCode.UNREADABLE.value, "the file is nested too deeply to read"))
    except Exception as exc:
        # A recognizer bug, not a property of the file: say what broke, for the operator.
        text = f"recognizer failed: {type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
        outcome = ("error", (ErrorCode.UNKNOWN_ERROR.value, text))
    del task  # the source it holds can be large; free it before pickling the outcome
    try:
        conn.send(outcome)
    except MemoryError:
        conn.send(("error", (ErrorCode.UNREADABLE.value, _over_memory(memory_bytes))))
    conn.close()


def _over_memory(memory_bytes: int) -> str:
    return f"reading the file needs more than the {memory_bytes // 1024**2} MiB allowed"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Sandbox:
    """Runs tasks in children, at most ``concurrency`` at once.

    A task is a picklable zero-argument callable (a ``functools.partial`` of a module-level
    function); its value must be picklable too. ``cyclic_gc=False`` runs the children without
    the cyclic garbage collector (see ``Recognizer.cyclic_gc``).
    """

    def __init__(
        self,
        *,
        concurrency: int,
        memory_bytes: int,
        preload: Sequence[str] = (),
        cyclic_gc: bool = True,
    ) -> None:
        self._memory_bytes = memory_bytes
        self._cyclic_gc = cyclic_gc
        self._preload = list(preload)
        self._ctx = multiprocessing.get_context("forkserver")
        self._executor = ThreadPoolExecutor(
            max_workers=concurrency, thread_name_prefix="recognition"
        )

    def start(self) -> None:
        """Start the forkserver now rather than on the first job (it imports the recognizer).

        The preload list is process-wide and only read when the forkserver starts, so the
        first sandbox of a process decides it.
        """
        if self._preload:
            self._ctx.set_forkserver_preload(["recognition_worker.sandbox", *self._preload])
        multiprocessing.forkserver.ensure_running()
        # The forkserver imports the preload list before it forks anything: one trivial job
        # waits for that here instead of in the first real job.
        self._run_blocking(_ready, _WARM_UP_SECONDS, threading.Event())

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, task: Callable[[], T], *, timeout: float) -> T:
        """The task's value, or ``RecognitionError``: the task's own, TIMEOUT when the child
        ran out of time, UNREADABLE when it died (a native crash, the memory limit),
        UNKNOWN_ERROR when the task failed in an unexpected way."""
        cancel = threading.Event()
        future: Future[T] = self._executor.submit(self._run_blocking, task, timeout, cancel)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            cancel.set()
            # Wait for the kill, so that no child outlives a cancelled job.
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.wrap_future(future), _REAP_SECONDS)
            raise

    def _run_blocking(self, task: Callable[[], T], timeout: float, cancel: threading.Event) -> T:
        if cancel.is_set():
            raise RecognitionError(ErrorCode.UNKNOWN_ERROR, "cancelled before start")
        receiver, sender = self._ctx.Pipe(duplex=False)
        process = _Child(
            target=_child,
            args=(sender, task, self._memory_bytes, self._cyclic_gc),
            name="recognition",
            daemon=True,
        )
        deadline = time.monotonic() + timeout
        try:
            process.start()
            # Only the child may hold the write end, or its death would not read as EOF.
            sender.close()
            while not receiver.poll(_POLL_SECONDS):
                if cancel.is_set():
                    raise RecognitionError(
                        ErrorCode.UNKNOWN_ERROR, "recognition cancelled: the service is stopping"
                    )
                if time.monotonic() >= deadline:
                    raise RecognitionError(
                        ErrorCode.TIMEOUT, f"recognition did not finish within {timeout:g} s"
                    )
            try:
                kind, value = receiver.recv()
            except EOFError:
                process.join(_REAP_SECONDS)
                raise RecognitionError(ErrorCode.UNREADABLE, self._death(process)) from None
        finally:
            receiver.close()
            if process.is_alive():
                process.kill()
            if process.pid is not None:
                process.join(_REAP_SECONDS)
            process.close()
        if kind == "ok":
            result: T = value
            return result
        code, message = value
        raise RecognitionError(ErrorCode(code), message)

    def _death(self, process: multiprocessing.process.BaseProcess) -> str:
        code = process.exitcode
        if code is None:
            return "the recognition process stopped answering"
        if code < 0:
            why = _signal_name(-code)
            if -code in (signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS):
                return (
                    f"the recognition process crashed ({why}); the file may need more than "
                    f"{self._memory_bytes // 1024**2} MiB or be malformed"
                )
            return f"the recognition process was killed ({why})"
        return f"the recognition process exited with code {code} without a result"
