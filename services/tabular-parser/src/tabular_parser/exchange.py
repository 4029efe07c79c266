"""The recognizer's path for the statements banks export as text or XML (1CClientBankExchange,
MT940, camt.053): the file's own keys name every value, so there is no layout to find; the
lines are kept beside the result for the source view."""

from __future__ import annotations

from typing import Final

from document_extraction import Grid
from document_extraction.exchange import FILE_TYPES, TEXT_SHEET, Refused, read_exchange
from recognition_contract import FileType, Severity, Warning
from recognition_worker import Recognition, RecognitionError
from tabular_parser.source import source_files

EXCHANGE_TYPES: Final = frozenset({FileType.TXT, FileType.XML})
# A text line is a few dozen bytes: a chunk of this many is about as large as a sheet's.
TEXT_CHUNK_LINES: Final = 20_000


def recognize_exchange(file_type: FileType, source: bytes, original_name: str) -> Recognition:
    """``RecognitionError`` codes: INVALID_FORMAT (none of the formats), UNREADABLE (damaged,
    a DTD in the XML), INVALID_DOCUMENT (no account and no operation)."""
    try:
        read = read_exchange(source)
    except Refused as exc:
        raise RecognitionError(exc.code, exc.reason) from None
    warnings: list[Warning] = []
    if FILE_TYPES[read.format] is not file_type:
        warnings.append(
            Warning(
                code="FILE_TYPE_MISMATCH",
                severity=Severity.INFO,
                message=f"Файл «{original_name}» объявлен как {file_type.value}, "
                f"а по содержимому это {read.format.value}",
            )
        )
    extraction = read.extraction
    lines = Grid(TEXT_SHEET, [[line] for line in read.lines])
    return Recognition(
        documents=extraction.documents,
        group_schema=extraction.group_schema,
        status=extraction.status,
        warnings=warnings + extraction.warnings,
        metrics={"lines": len(read.lines)},
        raw=source_files([lines], chunk_rows=TEXT_CHUNK_LINES),
    )
