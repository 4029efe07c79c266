"""Recognition of one file in a child process with a hard timeout and a memory limit.

A hostile workbook can make a parser loop, allocate without bound or crash inside native
code. None of that may reach the service: each job runs in its own child, forked from a fork
server (a clean single-threaded interpreter started once per process that has imported the
recognizer, so a fork costs milliseconds and inherits no threads or sockets of the service).
The child gets ``RLIMIT_AS`` before it reads the task, is killed when its time is up, and
whatever it dies of becomes an error code.

The fork server is this module run by a fresh interpreter (``subprocess``), talking to the
service over a Unix socket: the service sends one end of a socket pair per job, the server
forks a child (multiprocessing's ``fork`` start method, safe in a single-threaded process)
that reads the pickled task from it and writes the pickled outcome back, and the server
reports each child's exit status. Nothing of the service's ``__main__`` is re-run anywhere,
so services run as console scripts, pytest or ``python -`` alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import itertools
import multiprocessing
import multiprocessing.connection
import os
import pickle
import resource
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Any, Final, TypeVar

from recognition_contract import ErrorCode
from recognition_worker.recognition import RecognitionError

T = TypeVar("T")

# How often a waiting thread looks at its cancel flag; bounds the delay of a kill on shutdown.
_POLL_SECONDS: Final = 0.05
# A killed child is reaped within this; SIGKILL cannot be ignored, so it is only a safeguard.
REAP_SECONDS: Final = 5.0
_MAX_MESSAGE_CHARS: Final = 500
_WARM_UP_SECONDS: Final = 60.0
_READ_BYTES: Final = 1 << 20

# Messages on the server's socket (SOCK_SEQPACKET keeps them whole): to the server, start a
# job (with the child's end of its socket attached) or kill it; from the server, ready, a job's
# child started (its pid) or exited (its exit code, negative for a signal; NO_CODE when it
# could not be started).
_REQUEST: Final = struct.Struct("=cQQ?")
_REPORT: Final = struct.Struct("=cQq")
_START, _KILL, _READY, _STARTED, _EXITED = b"S", b"K", b"R", b"P", b"X"
_NO_CODE: Final = -(1 << 62)
_SERVE: Final = "from recognition_worker.sandbox import _serve; _serve()"


def _limit_memory(memory_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    # An abort in native code would otherwise write a core file of up to memory_bytes.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _child(channel_fd: int, control_fd: int, memory_bytes: int, cyclic_gc: bool) -> None:
    """Body of the child: limits first, then the task read from the channel; the outcome goes
    back pickled."""
    os.close(control_fd)  # the server's socket is the server's alone
    # SIGINT and SIGTERM stay ignored, as in the server: a stopping service lets its running
    # recognitions finish, and kills them itself (SIGKILL) when it gives up on them.
    if not cyclic_gc:
        gc.disable()
    with socket.socket(fileno=channel_fd) as channel:
        outcome: tuple[str, Any]
        task: Callable[[], Any] | None = None
        try:
            _limit_memory(memory_bytes)
            with channel.makefile("rb") as reader:
                task = pickle.load(reader)  # noqa: S301 (sent by the service that forked us)
            outcome = ("ok", task())
        except RecognitionError as exc:
            outcome = ("error", (exc.code.value, exc.message))
        except MemoryError:
            outcome = ("error", (ErrorCode.UNREADABLE.value, _over_memory(memory_bytes)))
        except RecursionError:
            message = "the file is nested too deeply to read"
            outcome = ("error", (ErrorCode.UNREADABLE.value, message))
        except Exception as exc:
            # A recognizer bug, not a property of the file: say what broke, for the operator.
            text = f"recognizer failed: {type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
            outcome = ("error", (ErrorCode.UNKNOWN_ERROR.value, text))
        task = None  # the source it holds can be large; free it before pickling the outcome
        try:
            body = pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            failure = ("error", (ErrorCode.UNREADABLE.value, _over_memory(memory_bytes)))
            body = pickle.dumps(failure, pickle.HIGHEST_PROTOCOL)
        del outcome
        channel.sendall(body)


def _over_memory(memory_bytes: int) -> str:
    return f"reading the file needs more than the {memory_bytes // 1024**2} MiB allowed"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _serve() -> None:
    """The fork server: imports what the service asks for, then forks a child per job until
    the service closes its end (then it kills what still runs)."""
    # Ctrl-C at a terminal, and a supervisor such as systemd, signal the whole process group;
    # the service decides what stops, and when (its grace period), so the server and the
    # children it forks ignore both. When the service is gone, the closed socket stops them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    control = socket.socket(fileno=int(sys.argv[1]))
    # Sent by the service that started us, over the socket pair it made.
    path, preload = pickle.loads(control.recv(_READ_BYTES))  # noqa: S301
    sys.path[:] = path
    for name in preload:
        importlib.import_module(name)
    control.send(_REPORT.pack(_READY, 0, 0))
    fork = multiprocessing.get_context("fork")
    children: dict[int, tuple[int, BaseProcess]] = {}  # sentinel -> job, child
    jobs: dict[int, BaseProcess] = {}
    while True:
        for ready in multiprocessing.connection.wait([control, *children]):
            if ready is control:
                message, fds, _, _ = socket.recv_fds(control, _REQUEST.size, 1)
                if not message:  # the service is gone, and so are the jobs' answers
                    for _, child in children.values():
                        child.kill()
                    return
                kind, job, memory_bytes, cyclic_gc = _REQUEST.unpack(message)
                if kind == _START:
                    child = fork.Process(
                        target=_child,
                        args=(fds[0], control.fileno(), memory_bytes, cyclic_gc),
                        name="recognition",
                        daemon=True,
                    )
                    try:
                        child.start()
                    except OSError:
                        control.send(_REPORT.pack(_EXITED, job, _NO_CODE))
                        continue
                    finally:
                        os.close(fds[0])  # only the child holds it: its death reads as EOF
                    children[child.sentinel] = (job, child)
                    jobs[job] = child
                    control.send(_REPORT.pack(_STARTED, job, child.pid or 0))
                elif kind == _KILL and job in jobs:
                    jobs[job].kill()
            else:
                assert isinstance(ready, int)
                job, child = children.pop(ready)
                del jobs[job]
                child.join()
                code = child.exitcode
                child.close()
                control.send(_REPORT.pack(_EXITED, job, _NO_CODE if code is None else code))


@dataclass
class _Job:
    server: socket.socket
    """The socket of the fork server that runs the job."""
    exited: Future[int | None] = field(default_factory=Future)
    """The child's exit code (negative: the signal that ended it), None if it is unknown."""
    pid: int | None = None


class _ForkServer:
    """The process's fork server, started by the first sandbox and again if it dies. The
    preload list is read when it starts, so the first sandbox of a process decides it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._control: socket.socket | None = None
        self._jobs: dict[int, _Job] = {}
        self._ids = itertools.count()

    def ensure_running(self, preload: Sequence[str]) -> None:
        with self._lock:
            if self._control is None:
                self._start(preload)

    def launch(
        self, channel: socket.socket, memory_bytes: int, cyclic_gc: bool, preload: Sequence[str]
    ) -> int:
        """Starts a child on ``channel`` (the child's end, which the caller then closes), on
        a new server if the last one died."""
        with self._lock:
            number = next(self._ids)
            request = _REQUEST.pack(_START, number, memory_bytes, cyclic_gc)
            for _ in range(2):
                if self._control is None:
                    self._start(preload)
                assert self._control is not None
                self._jobs[number] = _Job(self._control)
                try:
                    socket.send_fds(self._control, [request], [channel.fileno()])
                    return number
                except OSError:  # it died before its reader noticed
                    self._control.close()
                    self._control = None
            del self._jobs[number]
            raise RecognitionError(ErrorCode.UNKNOWN_ERROR, "the recognition server is gone")

    def finish(self, number: int) -> int | None:
        """Kills the job's child if it still runs and waits for its exit code (None when the
        server cannot tell)."""
        with self._lock:
            job = self._jobs[number]
            if not job.exited.done():
                self._kill(number, job)
        try:
            return job.exited.result(REAP_SECONDS)
        except TimeoutError:
            return None
        finally:
            with self._lock:
                del self._jobs[number]

    @staticmethod
    def _kill(number: int, job: _Job) -> None:
        try:
            job.server.send(_REQUEST.pack(_KILL, number, 0, False))
        except OSError:
            # The server died and its children were left to init: no exit code will come.
            if job.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(job.pid, signal.SIGKILL)
            job.exited.set_result(None)

    def _start(self, preload: Sequence[str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            process = subprocess.Popen(
                [sys.executable, "-c", _SERVE, str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                pass_fds=[theirs.fileno()],
            )
        try:
            ours.send(pickle.dumps((list(sys.path), list(preload))))
            ours.settimeout(_WARM_UP_SECONDS)
            ready = ours.recv(_REPORT.size)
            ours.settimeout(None)
        except OSError:
            ready = b""
        if not ready or _REPORT.unpack(ready)[0] != _READY:
            ours.close()
            process.kill()
            code = process.wait()
            raise RuntimeError(f"the recognition server did not start (exit code {code})")
        self._control = ours
        threading.Thread(
            target=self._dispatch, args=(process, ours), name="recognition-server", daemon=True
        ).start()

    def _dispatch(self, process: subprocess.Popen[bytes], control: socket.socket) -> None:
        """Hands the server's reports to its jobs; when the server is gone, tells those that
        never started that no exit code will come (the others are killed by pid)."""
        with contextlib.suppress(OSError):  # closed by launch, which found the server dead
            while report := control.recv(_REPORT.size):
                kind, number, value = _REPORT.unpack(report)
                with self._lock:
                    job = self._jobs.get(number)
                    if job is None:
                        continue
                    if kind == _STARTED:
                        job.pid = value
                    elif kind == _EXITED and not job.exited.done():
                        job.exited.set_result(None if value == _NO_CODE else value)
        process.wait()
        with self._lock:
            if self._control is control:
                self._control = None
            control.close()
            for job in self._jobs.values():
                if job.server is control and job.pid is None and not job.exited.done():
                    job.exited.set_result(None)


_SERVER: Final = _ForkServer()


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
        self._preload = ["recognition_worker.sandbox", *preload]
        self._executor = ThreadPoolExecutor(
            max_workers=concurrency, thread_name_prefix="recognition"
        )

    def start(self) -> None:
        """Start the fork server now rather than on the first job (it imports the recognizer,
        and is ready once it has)."""
        _SERVER.ensure_running(self._preload)

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
                await asyncio.wait_for(asyncio.wrap_future(future), REAP_SECONDS)
            raise

    def _run_blocking(self, task: Callable[[], T], timeout: float, cancel: threading.Event) -> T:
        if cancel.is_set():
            raise RecognitionError(ErrorCode.UNKNOWN_ERROR, "cancelled before start")
        deadline = time.monotonic() + timeout
        ours, theirs = socket.socketpair()
        with theirs:
            try:
                number = _SERVER.launch(theirs, self._memory_bytes, self._cyclic_gc, self._preload)
            except BaseException:
                ours.close()
                raise
        try:
            with ours:
                answer = self._exchange(ours, task, deadline, timeout, cancel)
        finally:
            code = _SERVER.finish(number)
        try:
            # Written by our own child, as multiprocessing's pipes would carry it.
            kind, value = pickle.loads(answer)  # noqa: S301
        except Exception:  # nothing or a cut answer: the child died before it was sent
            raise RecognitionError(ErrorCode.UNREADABLE, self._death(code)) from None
        if kind == "ok":
            result: T = value
            return result
        error_code, message = value
        raise RecognitionError(ErrorCode(error_code), message)

    def _exchange(
        self,
        channel: socket.socket,
        task: Callable[[], T],
        deadline: float,
        timeout: float,
        cancel: threading.Event,
    ) -> bytearray:
        """Sends the task, then reads the answer until the child closes its end (kept as it
        came: unpickled from there, a result file of tens of megabytes is not copied)."""

        def remaining() -> float:
            if cancel.is_set():
                raise RecognitionError(
                    ErrorCode.UNKNOWN_ERROR, "recognition cancelled: the service is stopping"
                )
            left = deadline - time.monotonic()
            if left <= 0:
                raise RecognitionError(
                    ErrorCode.TIMEOUT, f"recognition did not finish within {timeout:g} s"
                )
            return left

        request = pickle.dumps(task, pickle.HIGHEST_PROTOCOL)
        answer = bytearray()
        try:
            channel.settimeout(remaining())
            channel.sendall(request)
            del request
            channel.shutdown(socket.SHUT_WR)
            while True:
                channel.settimeout(min(_POLL_SECONDS, remaining()))
                try:
                    chunk = channel.recv(_READ_BYTES)
                except TimeoutError:
                    continue
                if not chunk:
                    return answer
                answer += chunk
        except TimeoutError:
            remaining()  # the deadline passed while the task was being sent
            raise
        except (BrokenPipeError, ConnectionResetError):
            return bytearray()  # the child died before it read the whole task

    def _death(self, code: int | None) -> str:
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
