"""The closed vocabularies of the contract, mirroring the enums of the schemas."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class ErrorCode(StrEnum):
    """``error.code`` of an error envelope or result file."""

    UNSUPPORTED_FORMAT = "UNSUPPORTED_FORMAT"
    UNREADABLE = "UNREADABLE"
    TIMEOUT = "TIMEOUT"
    SCHEMA_MISMATCH = "SCHEMA_MISMATCH"
    NOT_IMPLEMENTED = "NOT_IMPLEMENTED"
    FILE_READ_ERROR = "FILE_READ_ERROR"
    INVALID_FORMAT = "INVALID_FORMAT"
    INVALID_DOCUMENT = "INVALID_DOCUMENT"
    RECOGNITION_FAILED = "RECOGNITION_FAILED"
    UNKNOWN_ERROR = "UNKNOWN_ERROR"
    # From 2.2; MAJOR 1 has no such code (``error_code_in``).
    PASSWORD_PROTECTED = "PASSWORD_PROTECTED"  # noqa: S105 (a code, not a password)


def error_code_in(code: ErrorCode, major: int) -> ErrorCode:
    """``code`` as a message of ``major`` can say it: MAJOR 1 knows no PASSWORD_PROTECTED and
    says UNREADABLE (the file cannot be read) instead."""
    if major < 2 and code is ErrorCode.PASSWORD_PROTECTED:
        return ErrorCode.UNREADABLE
    return code


class FileType(StrEnum):
    XLS = "XLS"
    XLSX = "XLSX"
    XLSB = "XLSB"
    PDF = "PDF"
    PNG = "PNG"
    JPG = "JPG"
    TXT = "TXT"
    """Since 2.3: a bank's text export, 1CClientBankExchange or SWIFT MT940."""
    XML = "XML"
    """Since 2.3: an ISO 20022 camt.053 statement."""


class Pipeline(StrEnum):
    TABULAR = "tabular"
    IMAGE = "image"


class Status(StrEnum):
    """``status`` of an envelope; a result file never says ``processing``."""

    PROCESSING = "processing"
    DONE = "done"
    NEEDS_CHECK = "needs_check"
    ERROR = "error"


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


LEGACY_WARNING: Final = "LEGACY_WARNING"
"""Code given to a 1.x free-text warning when it is turned into a structured one."""

_PIPELINES: Final[dict[FileType, Pipeline]] = {
    FileType.XLS: Pipeline.TABULAR,
    FileType.XLSX: Pipeline.TABULAR,
    FileType.XLSB: Pipeline.TABULAR,
    FileType.PDF: Pipeline.IMAGE,
    FileType.PNG: Pipeline.IMAGE,
    FileType.JPG: Pipeline.IMAGE,
    FileType.TXT: Pipeline.TABULAR,
    FileType.XML: Pipeline.TABULAR,
}


FIRST_VERSION: Final[dict[FileType, str]] = {FileType.TXT: "2.3", FileType.XML: "2.3"}
"""The first ``schema_version`` whose request has a file type, for those MAJOR 1 lacks: a
request for one is published at least at that version."""


def file_types_of(major: int) -> list[FileType]:
    """The file types a request of ``major`` can carry, in the schema's order."""
    return [t for t in FileType if int(FIRST_VERSION.get(t, "1.0").split(".")[0]) <= major]


def pipeline_for(file_type: FileType | str) -> Pipeline:
    """The pipeline (and so the request subject) that handles ``file_type``.

    Raises ``ValueError`` for a file type outside the contract.
    """
    return _PIPELINES[FileType(file_type)]
