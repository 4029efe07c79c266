"""tabular-parser settings: the worker keys plus the limits of what a workbook may hold."""

from __future__ import annotations

from pydantic import Field

from recognition_worker import WorkerSettings
from tabular_parser.limits import WorkbookLimits

_DEFAULTS = WorkbookLimits()


class TabularSettings(WorkerSettings):
    workbook_max_sheets: int = Field(default=_DEFAULTS.max_sheets, ge=1)
    workbook_max_rows: int = Field(default=_DEFAULTS.max_rows, ge=100)
    workbook_max_columns: int = Field(default=_DEFAULTS.max_columns, ge=8, le=16_384)
    workbook_max_cells: int = Field(default=_DEFAULTS.max_cells, ge=10_000)
    workbook_max_uncompressed_bytes: int = Field(
        default=_DEFAULTS.max_uncompressed_bytes, ge=1024**2
    )
    workbook_max_compression_ratio: int = Field(default=_DEFAULTS.max_compression_ratio, ge=10)

    @property
    def workbook_limits(self) -> WorkbookLimits:
        return WorkbookLimits(
            max_sheets=self.workbook_max_sheets,
            max_rows=self.workbook_max_rows,
            max_columns=self.workbook_max_columns,
            max_cells=self.workbook_max_cells,
            max_uncompressed_bytes=self.workbook_max_uncompressed_bytes,
            max_compression_ratio=self.workbook_max_compression_ratio,
        )
