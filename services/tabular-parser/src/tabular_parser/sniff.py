"""What a file really is, from its first bytes and its container, whatever its name says."""

from __future__ import annotations

import io
import zipfile
from enum import StrEnum
from typing import Final

from recognition_contract import ErrorCode
from recognition_worker import RecognitionError

OLE2_MAGIC: Final = bytes.fromhex("D0CF11E0A1B11AE1")
ZIP_MAGICS: Final = (b"PK\x03\x04", b"PK\x05\x06")
# Stream names of an OLE2 file, as UTF-16LE in its directory sectors.
_ENCRYPTED_STREAMS: Final = tuple(
    name.encode("utf-16-le") for name in ("EncryptionInfo", "EncryptedPackage")
)
_XLS_STREAMS: Final = tuple(name.encode("utf-16-le") for name in ("Workbook", "Book"))
_OTHER_OLE2: Final = (
    ("WordDocument".encode("utf-16-le"), "документ Word"),
    ("PowerPoint Document".encode("utf-16-le"), "презентация PowerPoint"),
)

PROTECTED_MESSAGE: Final = "Книга защищена паролем"

_OTHER_FORMATS: Final = (
    (b"%PDF", "PDF-документ"),
    (b"\x89PNG", "изображение PNG"),
    (b"\xff\xd8\xff", "изображение JPEG"),
    (b"{\\rtf", "документ RTF"),
)


class Container(StrEnum):
    XLSX = "XLSX"
    XLSB = "XLSB"
    XLS = "XLS"


def sniff(source: bytes) -> Container:
    """The workbook format of ``source``; ``RecognitionError`` when it is no workbook we read
    (INVALID_FORMAT) or an encrypted one (UNREADABLE)."""
    if not source:
        raise RecognitionError(ErrorCode.INVALID_FORMAT, "Файл пуст")
    if source.startswith(ZIP_MAGICS):
        return _zip_kind(source)
    if source.startswith(OLE2_MAGIC):
        if any(name in source for name in _ENCRYPTED_STREAMS):
            # Password-protected XLSX / XLSB: an encrypted package inside an OLE2 file.
            raise RecognitionError(ErrorCode.PASSWORD_PROTECTED, PROTECTED_MESSAGE)
        for stream, what in _OTHER_OLE2:
            if stream in source and not any(name in source for name in _XLS_STREAMS):
                raise RecognitionError(
                    ErrorCode.INVALID_FORMAT, f"Файл не является книгой Excel: {what}"
                )
        # An XLS, or an OLE2 file too damaged to tell: the XLS reader says which.
        return Container.XLS
    raise RecognitionError(
        ErrorCode.INVALID_FORMAT, f"Файл не является книгой Excel: {_what(source)}"
    )


def _zip_kind(source: bytes) -> Container:
    try:
        with zipfile.ZipFile(io.BytesIO(source)) as archive:
            names = {name.lower() for name in archive.namelist()}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise RecognitionError(
            ErrorCode.UNREADABLE, f"Книга повреждена: архив не читается ({exc})"
        ) from None
    if "xl/workbook.xml" in names:
        return Container.XLSX
    if "xl/workbook.bin" in names:
        return Container.XLSB
    if "word/document.xml" in names:
        what = "документ Word"
    elif "content.xml" in names:
        what = "документ OpenDocument"
    else:
        what = "ZIP-архив"
    raise RecognitionError(ErrorCode.INVALID_FORMAT, f"Файл не является книгой Excel: {what}")


def _what(source: bytes) -> str:
    for magic, what in _OTHER_FORMATS:
        if source.startswith(magic):
            return what
    head = source[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<html", b"<!doctype html", b"<table")) or b"<html" in head:
        return "HTML-страница (сохраните её как XLSX)"
    if head.startswith(b"<?xml"):
        return "XML-документ (сохраните его как XLSX)"
    try:
        source[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return "неизвестный двоичный формат"
    return "текстовый файл (сохраните его как XLSX)"
