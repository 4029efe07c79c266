"""Checks of an XLSX / XLSB package before any reader unpacks it: a zip bomb is refused from
its central directory, by declared sizes. Declared sizes can lie, so the XML scan of the
sheets (``xlsx_meta``) counts the bytes it really unpacks against the same cap, and the
recognition child's memory limit and timeout stand behind both."""

from __future__ import annotations

import zipfile
from typing import Final

from recognition_contract import ErrorCode
from recognition_worker import RecognitionError
from tabular_parser.limits import WorkbookLimits

# Small members (styles, rels) can compress far better than sheets without being a threat.
RATIO_CHECK_FROM_BYTES: Final = 1024**2


def _mib(size: int) -> str:
    return f"{size / 1024**2:.0f} МиБ"


def check_package(archive: zipfile.ZipFile, limits: WorkbookLimits) -> None:
    """``RecognitionError(UNREADABLE)`` when the package is too large unpacked, has too many
    members or a member compressed beyond any real workbook."""
    members = archive.infolist()
    if len(members) > limits.max_zip_members:
        raise RecognitionError(
            ErrorCode.UNREADABLE,
            f"Книга содержит {len(members)} частей, допустимо не больше {limits.max_zip_members}",
        )
    total = 0
    for member in members:
        total += member.file_size
        if total > limits.max_uncompressed_bytes:
            raise RecognitionError(
                ErrorCode.UNREADABLE,
                f"Книга в распакованном виде больше {_mib(limits.max_uncompressed_bytes)}",
            )
        if member.file_size >= RATIO_CHECK_FROM_BYTES:
            ratio = member.file_size / max(member.compress_size, 1)
            if ratio > limits.max_compression_ratio:
                raise RecognitionError(
                    ErrorCode.UNREADABLE,
                    f"Часть книги {member.filename!r} сжата в {ratio:.0f} раз "
                    f"(допустимо {limits.max_compression_ratio}): похоже на zip-бомбу",
                )
