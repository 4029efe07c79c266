"""What a layout is: a kind of document a grid may hold, found by its table header and built
from the grid under it. Every layout is one package under ``layouts`` behind this protocol and
is registered once, in ``registry.LAYOUTS``; the extraction, scan-gateway's page grids and the
print corpus all go through the registry, so a new layout is seen by all of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from document_extraction.grid import CellValue, Grid
from recognition_contract import Document

# A grid's cells, row by row.
Rows = Sequence[Sequence[CellValue]]


@dataclass(frozen=True)
class TableHeader:
    """Where a layout's table header stands and which column holds what: the part of a header
    every reader of a page needs, whatever the layout."""

    first_row: int  # the first caption row
    last_row: int  # the last header row: the body starts below it
    columns: Mapping[str, int]  # role -> column


class Layout(Protocol):
    """One kind of document. ``find`` looks for its header in a grid's first rows (None: the
    grid holds no document of this kind); ``documents`` builds every document of the kind the
    grid holds, given what ``find`` returned."""

    name: str

    def find(self, rows: Rows) -> Found | None: ...

    def documents(self, grid: Grid, found: Found) -> list[Document]: ...


class Found(Protocol):
    """A layout's own header, as its ``find`` returns it."""

    @property
    def table(self) -> TableHeader: ...
