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
from document_extraction.layouts.account_analysis.build import build_analysis, find_analysis_header
from document_extraction.layouts.statement.build import build_statement
from document_extraction.layouts.statement.header import StatementHeader, find_statement_header
from document_extraction.layouts.statement.parts import (
    find_statement_without_table,
    statement_parts,
)
from document_extraction.layouts.trial_balance.build import build_osv
from document_extraction.layouts.trial_balance.header import find_osv_header
from document_extraction.layouts.trial_balance.parts import osv_parts
from document_extraction.text import is_empty
from document_extraction.titles import read_titles
from recognition_contract import Document, Warning


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


def _statement_header(grid: Grid) -> StatementHeader | None:
    return find_statement_header(grid.rows) or find_statement_without_table(grid.rows)


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
        if find_osv_header(grid.rows) is not None:
            for part in osv_parts(grid):
                osv_header = find_osv_header(part.rows)
                if osv_header is None:  # osv_parts keeps only parts with a header
                    continue
                titles = read_titles(part.rows, osv_header.first_row)
                document = build_osv(part, osv_header, titles)
                documents.append(document)
                # (code, name) of the rows whose code can tell the charts apart, picked out
                # without a Python-level loop over the rows.
                rows = document.rows
                evidence = compress(
                    rows, map(CHART_EVIDENCE.__contains__, map(attrgetter("code"), rows))
                )
                charts.add(detect_chart(map(attrgetter("code", "name"), evidence)))
            continue
        analysis_header = find_analysis_header(grid.rows)
        if analysis_header is not None:
            titles = read_titles(grid.rows, analysis_header.first_row)
            documents.append(build_analysis(grid, analysis_header, titles))
            continue
        if _statement_header(grid) is not None:
            for part in statement_parts(grid):
                header = _statement_header(part)
                if header is not None:
                    documents.append(build_statement(part, header))
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
