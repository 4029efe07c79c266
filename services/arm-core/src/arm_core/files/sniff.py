"""What a file is, from its bytes: the extension only has to agree.

OLE2 is XLS, a ZIP with ``xl/workbook.xml`` is XLSX and with ``xl/workbook.bin`` XLSB,
``%PDF`` is PDF, then the PNG and JPEG signatures; a bank's export is TXT (1CClientBankExchange
or MT940) or XML (camt.053) by its first kilobyte, whichever of .txt, .sta, .mt940 or .xml it
is named. ZIP entries are recognised from their local file headers while the bytes stream past,
so nothing is buffered.
"""

from __future__ import annotations

import re
import struct
from pathlib import PurePosixPath

from document_extraction.exchange import FILE_TYPES, exchange_format

EXTENSIONS = {
    ".xls": "XLS",
    ".xlsx": "XLSX",
    ".xlsb": "XLSB",
    ".pdf": "PDF",
    ".png": "PNG",
    ".jpg": "JPG",
    ".jpeg": "JPG",
    ".txt": "TXT",
    ".sta": "TXT",
    ".mt940": "TXT",
    ".xml": "XML",
}
# A bank's export is the type its content says, whichever of these names it has.
EXPORT_TYPES = ("TXT", "XML")

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP = b"PK\x03\x04"
_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG = b"\xff\xd8\xff"
_LOCAL_HEADER = re.compile(re.escape(_ZIP))
# PDF readers accept junk before the header within the first kilobyte; so do we.
_PDF_WINDOW = 1024
HEAD_BYTES = _PDF_WINDOW


def type_from_name(name: str) -> str | None:
    return EXTENSIONS.get(PurePosixPath(name.replace("\\", "/")).suffix.lower())


def family_of(head: bytes) -> str | None:
    """The container the first bytes announce: OLE2, ZIP, PDF, PNG or JPG, or the bank export
    they begin: TXT or XML."""
    if head.startswith(_OLE2):
        return "OLE2"
    if head.startswith(_ZIP):
        return "ZIP"
    if head.startswith(_PNG):
        return "PNG"
    if head.startswith(_JPEG):
        return "JPG"
    if b"%PDF-" in head[:_PDF_WINDOW]:
        return "PDF"
    export = exchange_format(head)
    return FILE_TYPES[export].value if export is not None else None


_FAMILY = {"XLS": "OLE2", "XLSX": "ZIP", "XLSB": "ZIP", "PDF": "PDF", "PNG": "PNG", "JPG": "JPG"}


def family_agrees(file_type: str, family: str | None) -> bool:
    """Whether a workbook's, PDF's or image's extension agrees with its bytes (a bank's export
    is whichever of EXPORT_TYPES its bytes say)."""
    return _FAMILY[file_type] == family


# Streams of an OLE2 file that hold a password-protected XLSX or XLSB (MS-OFFCRYPTO), named
# in UTF-16LE in its directory sectors.
ENCRYPTED_PACKAGE = tuple(
    name.encode("utf-16-le") for name in ("EncryptedPackage", "EncryptionInfo")
)


class NameScanner:
    """Whether any of ``names`` passes in a stream of chunks, holding only a short tail."""

    def __init__(self, names: tuple[bytes, ...]) -> None:
        self.names = names
        self.found = False
        self._keep = max(len(name) for name in names) - 1
        self._tail = b""

    def feed(self, chunk: bytes) -> None:
        buffer = self._tail + chunk
        self.found = self.found or any(name in buffer for name in self.names)
        self._tail = buffer[-self._keep :]


class ZipEntryScanner:
    """Collects the entry names of a ZIP from its local headers as chunks pass."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self._tail = b""

    def feed(self, chunk: bytes) -> None:
        buffer = self._tail + chunk
        for match in _LOCAL_HEADER.finditer(buffer):
            start = match.start()
            if start + 30 > len(buffer):
                break
            name_length = struct.unpack_from("<H", buffer, start + 26)[0]
            end = start + 30 + name_length
            if end > len(buffer):
                break
            self.names.add(buffer[start + 30 : end].decode("utf-8", "replace"))
        # Keep enough to finish a header split across chunks (30 bytes + a long name).
        self._tail = buffer[-(30 + 512) :]

    def workbook_type(self) -> str | None:
        if "xl/workbook.xml" in self.names:
            return "XLSX"
        if "xl/workbook.bin" in self.names:
            return "XLSB"
        return None
