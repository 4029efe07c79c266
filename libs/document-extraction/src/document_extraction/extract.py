"""Every grid of a file into documents; the file's status, warnings and chart of accounts."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import compress
from operator import attrgetter
from typing import Literal

from document_extraction.accounts import CHART_EVIDENCE, UNKNOWN_CHART, detect_chart
from document_extraction.findings import INFO, Locate, needs_check, warning
from document_extraction.grid import Grid
from document_extraction.layouts.registry import find_layout
from document_extraction.text import is_empty
from recognition_contract import Document, TrialBalance, Warning


class NoDocumentFound(Exception):
    """No grid of the file holds a trial balance or a bank statement."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Extraction:
    documents: list[Document]
    warnings: list[Warning] = field(default_factory=list)
    group_schema: str = UNKNOWN_CHART
    status: Literal["done", "needs_check"] = "done"


def _describe(grid: Grid) -> str:
    return f"страница {grid.page or 1}" if grid.kind == "page" else f"лист «{grid.name}»"


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Without the cyclic garbage collector for the duration. Extraction allocates a few objects
    per row and keeps them all (no cycles among them), so every collection the
    allocations trigger finds nothing, yet the older generations walk the whole grid and the
    growing documents again and again: over a third of the time on a large sheet."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def extract(grids: Sequence[Grid]) -> Extraction:
    """Recognise each grid on its own: a trial balance, a statement, or nothing (skipped)."""
    with _collector_paused():
        return _extract(grids)


def _extract(grids: Sequence[Grid]) -> Extraction:
    documents: list[Document] = []
    file_warnings: list[Warning] = []
    charts: set[str] = set()
    empty = 0
    for grid in grids:
        if not any(any(not is_empty(c) for c in row) for row in grid.rows[:1000]) and not any(
            any(not is_empty(c) for c in row) for row in grid.rows[1000:]
        ):
            empty += 1
            file_warnings.append(
                warning("SHEET_SKIPPED", f"{_describe(grid)} пуст", Locate(grid).where(), INFO)
            )
            continue
        located = find_layout(grid.rows)
        if located is not None:
            layout, found = located
            found_here = layout.documents(grid, found)
            documents.extend(found_here)
            charts.update(_charts(found_here))
            continue
        file_warnings.append(
            warning(
                "SHEET_SKIPPED",
                f"{_describe(grid)}: не найдено ни ОСВ, ни выписки",
                Locate(grid).where(),
                INFO,
            )
        )
    if not documents:
        if not grids or empty == len(grids):
            raise NoDocumentFound("Файл не содержит данных")
        raise NoDocumentFound("В файле не найдено ни ОСВ, ни выписки")
    known = charts - {UNKNOWN_CHART}
    group_schema = known.pop() if len(known) == 1 else UNKNOWN_CHART
    flagged = needs_check(file_warnings) or any(needs_check(d.warnings) for d in documents)
    return Extraction(
        documents=documents,
        warnings=file_warnings,
        group_schema=group_schema,
        status="needs_check" if flagged else "done",
    )


def _charts(documents: Sequence[Document]) -> Iterator[str]:
    """The chart of accounts each trial balance's codes tell, from the rows whose code can tell
    the charts apart (picked out without a Python-level loop over the rows)."""
    for document in documents:
        if isinstance(document, TrialBalance):
            rows = document.rows
            evidence = compress(
                rows, map(CHART_EVIDENCE.__contains__, map(attrgetter("code"), rows))
            )
            yield detect_chart(map(attrgetter("code", "name"), evidence))
