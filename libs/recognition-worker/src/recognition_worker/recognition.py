"""What a service plugs into the worker: a pure function from source bytes to documents."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from recognition_contract import Document, ErrorCode, FileType, Pipeline, Warning


@dataclass(frozen=True)
class Recognition:
    """Documents recognised in one source file, as the contract's typed values.

    ``warnings`` are the file-level warnings; document-level ones stay inside each document.
    The worker writes both in the contract version it speaks (text in 1.x).
    """

    documents: Sequence[Document]
    group_schema: str = "unknown"
    status: Literal["done", "needs_check"] = "done"
    warnings: Sequence[Warning] = ()
    metrics: Mapping[str, int] = field(default_factory=dict)
    """Counters for the envelope (``sheets``, ``pages``, ...); the worker adds ``duration_ms``,
    ``documents`` and ``rows``."""
    raw: Mapping[str, bytes] = field(default_factory=dict)
    """Raw recognition output (OCR words, ...) by file name. The worker stores each under
    ``raw/{file_id}/{job_id}/<name>`` before the result file and names it in the envelope's
    ``raw_s3_key`` (the key of a single file, the prefix of several)."""


class RecognitionError(Exception):
    """The file cannot be recognised; ``code`` goes to ``error.code`` of the envelope."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[type[RecognitionError], tuple[ErrorCode, str]]:
        # Crosses the process boundary; the default reduce would pass only the joined text.
        return (RecognitionError, (self.code, self.message))


RecognizeFn = Callable[[FileType, bytes, str], Recognition]
"""``recognize(file_type, source, original_name) -> Recognition`` or ``RecognitionError``.

Runs in a child process: it must be picklable (a module-level function, or a
``functools.partial`` of one) and must not rely on state of the parent.
"""


@dataclass(frozen=True)
class Recognizer:
    """A recognition service as the worker sees it."""

    name: str
    """Service name: the queue group and ``service.name`` of every envelope."""
    version: str
    pipeline: Pipeline
    """Picks the request subject (tabular or image)."""
    file_types: frozenset[FileType]
    recognize: RecognizeFn
    statements_version: str | None = None
    preload: tuple[str, ...] = ()
    """Modules imported once by the process children are forked from, so that a job does not
    pay for importing them."""
    cyclic_gc: bool = True
    """Whether the job's child runs Python's cyclic garbage collector. A recognizer whose work
    builds no reference cycles turns it off: the child exists for one job under a memory
    limit, and each collection only walks the grids and documents again, freeing nothing."""
