"""The recognizer of tabular-parser: workbook bytes -> documents. Runs in the worker's
sandboxed child process, so it is a pure module-level function of picklable arguments."""

from __future__ import annotations

from document_extraction import NoDocumentFound, extract
from recognition_contract import ErrorCode, FileType, Severity, Warning
from recognition_worker import Recognition, RecognitionError
from tabular_parser.exchange import EXCHANGE_TYPES, recognize_exchange
from tabular_parser.limits import WorkbookLimits
from tabular_parser.sniff import Container, sniff
from tabular_parser.source import source_files
from tabular_parser.workbook import WorkbookRead, read_workbook

TYPE_NAMES = {Container.XLSX: "XLSX", Container.XLSB: "XLSB", Container.XLS: "XLS"}


def recognize(
    limits: WorkbookLimits, file_type: FileType, source: bytes, original_name: str
) -> Recognition:
    """``RecognitionError`` codes: INVALID_FORMAT (not a workbook), UNREADABLE (damaged,
    password-protected, over the limits), INVALID_DOCUMENT (no data at all),
    RECOGNITION_FAILED (data, but neither a trial balance nor a statement)."""
    if file_type in EXCHANGE_TYPES:
        return recognize_exchange(file_type, source, original_name)
    container = sniff(source)
    warnings: list[Warning] = []
    if container.value != file_type.value:
        # Renamed files are common (an .xls saved as .xlsx): read what the file really is.
        warnings.append(
            Warning(
                code="FILE_TYPE_MISMATCH",
                severity=Severity.INFO,
                message=f"Файл «{original_name}» объявлен как {file_type.value}, "
                f"а по содержимому это {TYPE_NAMES[container]}",
            )
        )
    read = read_workbook(source, container, limits)
    if not _has_data(read):
        raise RecognitionError(ErrorCode.INVALID_DOCUMENT, "В книге нет данных: все листы пусты")
    try:
        extraction = extract(read.grids)
    except NoDocumentFound as exc:
        raise RecognitionError(ErrorCode.RECOGNITION_FAILED, exc.reason) from None
    warnings += read.warnings
    warnings += extraction.warnings
    status = extraction.status
    if any(w.severity is not Severity.INFO for w in read.warnings):
        status = "needs_check"  # part of the workbook was not read: a person must look
    return Recognition(
        documents=extraction.documents,
        group_schema=extraction.group_schema,
        status=status,
        warnings=warnings,
        metrics={"sheets": read.sheets},
        raw=source_files(read.grids, read.merges),
    )


def _has_data(read: WorkbookRead) -> bool:
    return any(
        cell is not None and (not isinstance(cell, str) or cell.strip())
        for grid in read.grids
        for row in grid.rows
        for cell in row
    )
