"""A workbook (XLS, XLSX, XLSB) into grids of cells with python-calamine, within limits."""

from __future__ import annotations

import datetime
import gc
import io
import os
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Final

from python_calamine import CalamineSheet, CalamineWorkbook, PasswordError, SheetTypeEnum
from python_calamine import SheetVisibleEnum as Visible

from document_extraction import CellValue, Grid
from recognition_contract import ErrorCode, Locator, Severity, Warning
from recognition_worker import RecognitionError
from tabular_parser.limits import WorkbookLimits
from tabular_parser.sniff import PROTECTED_MESSAGE, Container
from tabular_parser.xls_meta import read_xls_meta
from tabular_parser.xlsx_meta import SheetMeta, SheetScanner
from tabular_parser.zipguard import check_package

_MAX_DETAIL_CHARS: Final = 200


Merge = tuple[int, int, int, int]
"""A merged range: first row, first column, last row, last column (0-based, as read)."""

# A sheet with more merged ranges is shown without them: its captions are not merges.
MAX_MERGES = 10_000


@dataclass
class WorkbookRead:
    grids: list[Grid] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    """File-level warnings of the reader."""
    sheets: int = 0
    merges: dict[str, list[Merge]] = field(default_factory=dict)
    """Each read sheet's merged ranges, as the workbook has them (XLSX, XLS)."""

    def warn(self, code: str, message: str, sheet: str | None) -> None:
        """Part of the workbook was not read: a person must look."""
        locator = Locator(sheet=sheet) if sheet else None
        self.warnings.append(Warning(code, Severity.WARNING, message, locator))


def _detail(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:_MAX_DETAIL_CHARS]


def _open(source: bytes, container: Container) -> CalamineWorkbook:
    try:
        return CalamineWorkbook.from_filelike(io.BytesIO(source))
    except PasswordError:
        raise RecognitionError(ErrorCode.PASSWORD_PROTECTED, PROTECTED_MESSAGE) from None
    except Exception:
        # From a stream calamine tries every format and says only "Cannot detect file
        # format"; opened by name it uses the reader of the extension and tells the real
        # cause (a password, a broken archive, a missing part).
        return _open_as_file(source, container)


def _open_as_file(source: bytes, container: Container) -> CalamineWorkbook:
    with tempfile.TemporaryDirectory(prefix="tabular-") as directory:
        path = os.path.join(directory, f"book.{container.value.lower()}")
        with open(path, "wb") as file:
            file.write(source)
        try:
            return CalamineWorkbook.from_path(path)
        except PasswordError:
            raise RecognitionError(ErrorCode.PASSWORD_PROTECTED, PROTECTED_MESSAGE) from None
        except Exception as exc:
            # calamine reports damage as CalamineError, ZipError, XmlError or ValueError.
            raise RecognitionError(
                ErrorCode.UNREADABLE, f"Книга повреждена и не читается: {_detail(exc)}"
            ) from None


def _package(source: bytes, limits: WorkbookLimits) -> zipfile.ZipFile:
    """The XLSX / XLSB package, refused as a zip bomb before any part is unpacked."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(source))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise RecognitionError(
            ErrorCode.UNREADABLE, f"Книга повреждена: архив не читается ({_detail(exc)})"
        ) from None
    check_package(archive, limits)
    return archive


def _worksheets(workbook: CalamineWorkbook) -> list[str]:
    """Worksheet names in order: the visible ones, or all when every one is hidden."""
    sheets = [m for m in workbook.sheets_metadata if m.typ == SheetTypeEnum.WorkSheet]
    visible = [m.name for m in sheets if m.visible == Visible.Visible]
    return visible or [m.name for m in sheets]


def _cell(value: object) -> CellValue:
    if isinstance(value, datetime.time | datetime.timedelta):
        return str(value)
    return value  # type: ignore[return-value]  # the other calamine types are cell values


_ODD: Final = (datetime.time, datetime.timedelta)


def _any_of_types(rows: list[Any], types: tuple[type, ...], /) -> bool:
    """Whether a cell is exactly of one of ``types`` (calamine makes no subclasses)."""
    return not frozenset(types).isdisjoint(map(type, chain.from_iterable(rows)))


def _rows(sheet: CalamineSheet, nrows: int, ncols: int) -> list[Sequence[CellValue]]:
    with _collector_paused():
        rows: list[Any] = sheet.to_python(skip_empty_area=False, nrows=nrows)
    if max(map(len, rows), default=0) > ncols:
        for index, row in enumerate(rows):
            if len(row) > ncols:
                rows[index] = row[:ncols]
    # One pass over all cells; rows are looked at one by one only when a time or a duration
    # is somewhere in the sheet.
    if _any_of_types(rows, _ODD):
        for index, row in enumerate(rows):
            if _any_of_types([row], _ODD):
                rows[index] = [_cell(value) for value in row]
    return rows


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Without the cyclic garbage collector while calamine makes a list per row: the
    collections those allocations trigger find no garbage but walk every row made so far."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def read_workbook(source: bytes, container: Container, limits: WorkbookLimits) -> WorkbookRead:
    """Every worksheet as a grid (rows from sheet row 1, columns from A), with the outline
    levels and code formats of XLSX and XLS sheets. Oversized sheets are skipped or cut, with a
    warning; ``RecognitionError`` when the workbook as a whole cannot be read."""
    archive = _package(source, limits) if container is not Container.XLS else None
    try:
        return _read(source, container, limits, archive)
    finally:
        if archive is not None:
            archive.close()


def _read(
    source: bytes, container: Container, limits: WorkbookLimits, archive: zipfile.ZipFile | None
) -> WorkbookRead:
    # The XLSX scan starts now and runs beside calamine, which opens the book and loads
    # sheets without holding the GIL.
    scanner = (
        SheetScanner(archive, limits)
        if container is Container.XLSX and archive is not None
        else None
    )
    try:
        return _read_sheets(source, container, limits, scanner)
    finally:
        if scanner is not None:
            scanner.close()


def _read_sheets(
    source: bytes, container: Container, limits: WorkbookLimits, scanner: SheetScanner | None
) -> WorkbookRead:
    read = WorkbookRead()
    with _open(source, container) as workbook:
        names = _worksheets(workbook)
        if len(names) > limits.max_sheets:
            read.warn(
                "SHEETS_SKIPPED",
                f"В книге {len(names)} листов; прочитаны первые {limits.max_sheets}",
                None,
            )
            names = names[: limits.max_sheets]
        # Sheets load lazily: their extent is known before calamine allocates them.
        meta: dict[str, SheetMeta] = {}
        if scanner is not None:
            scanner.want(names)
        elif container is Container.XLS:
            meta = read_xls_meta(source, names)
        failures: list[str] = []
        for name in names:
            sheet_meta = scanner.extent(name) if scanner is not None else meta.get(name)
            if sheet_meta is not None and not sheet_meta.fits(limits):
                read.warn("SHEET_TOO_LARGE", _too_large(sheet_meta, limits), name)
                failures.append(name)
                continue
            rows = _read_sheet(workbook, name, limits, read)
            if scanner is not None:
                sheet_meta = scanner.hints(name)
            if rows is None:
                failures.append(name)
            elif sheet_meta is None:
                read.grids.append(Grid(name=name, rows=rows))
            else:
                read.grids.append(
                    Grid(
                        name=name,
                        rows=rows,
                        outline_levels=sheet_meta.outline_levels,
                        number_formats=sheet_meta.number_formats,
                    )
                )
        read.sheets = len(read.grids)
    if names and len(failures) == len(names):
        reasons = "; ".join(w.message for w in read.warnings if w.code != "SHEETS_SKIPPED")
        raise RecognitionError(ErrorCode.UNREADABLE, f"Ни один лист не прочитан: {reasons}")
    return read


def _merges(sheet: CalamineSheet) -> list[Merge]:
    """The sheet's merged ranges; none where the reader knows none (XLSB) or too many."""
    ranges = sheet.merged_cell_ranges or []
    if len(ranges) > MAX_MERGES:
        return []
    return [(r0, c0, r1, c1) for (r0, c0), (r1, c1) in ranges]


def _too_large(meta: SheetMeta, limits: WorkbookLimits) -> str:
    if meta.unbounded is not None:
        # Refused as too large: the reader might allocate any size for it.
        return (
            f"Лист «{meta.name}» не прочитан: его размер не определить до чтения ({meta.unbounded})"
        )
    return (
        f"Лист «{meta.name}» занимает {meta.max_row} строк × {meta.max_column} столбцов "
        f"(больше {limits.max_cells} ячеек) и не прочитан"
    )


def _read_sheet(
    workbook: CalamineWorkbook, name: str, limits: WorkbookLimits, read: WorkbookRead
) -> list[Sequence[CellValue]] | None:
    """The sheet's rows, or None (with a warning) when it cannot or may not be read."""
    try:
        sheet = workbook.get_sheet_by_name(name)
        end = sheet.end
        height, width = (end[0] + 1, end[1] + 1) if end is not None else (0, 0)
        # What becomes Python objects: the rows and columns within the limits.
        if min(height, limits.max_rows) * min(width, limits.max_columns) > limits.max_cells:
            read.warn(
                "SHEET_TOO_LARGE",
                f"Лист «{name}» занимает {height} строк × {width} столбцов "
                f"(больше {limits.max_cells} ячеек) и не прочитан",
                name,
            )
            return None
        rows = _rows(sheet, min(height, limits.max_rows), limits.max_columns)
        read.merges[name] = _merges(sheet)
    except PasswordError:
        raise RecognitionError(ErrorCode.PASSWORD_PROTECTED, PROTECTED_MESSAGE) from None
    except (RecognitionError, MemoryError):
        raise
    except Exception as exc:
        read.warn("SHEET_UNREADABLE", f"Лист «{name}» не читается: {_detail(exc)}", name)
        return None
    if height > limits.max_rows:
        read.warn(
            "SHEET_TRUNCATED",
            f"На листе «{name}» {height} строк; прочитаны первые {limits.max_rows}",
            name,
        )
    if width > limits.max_columns:
        read.warn(
            "SHEET_TRUNCATED",
            f"На листе «{name}» {width} столбцов; прочитаны первые {limits.max_columns}",
            name,
        )
    return rows
