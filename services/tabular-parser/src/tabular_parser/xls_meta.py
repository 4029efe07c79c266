"""Row outline levels and code display formats of XLS sheets, which calamine does not expose,
from the BIFF8 records of the ``Workbook`` stream (olefile finds the stream in the OLE2 file).

Best effort: these are hints for the extraction. Anything unexpected (a truncated record, an
encrypted book, a BIFF5 file) yields no hints, never an error; calamine is the reader that
decides whether the book can be read.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Collection, Iterator
from typing import Final

import olefile  # type: ignore[import-untyped]

from tabular_parser.xlsx_meta import SheetMeta, is_code_format

_BOF: Final = 0x0809
_EOF: Final = 0x000A
_FILEPASS: Final = 0x002F
_FORMAT: Final = 0x041E
_XF: Final = 0x00E0
_BOUNDSHEET: Final = 0x0085
_ROW: Final = 0x0208
# Records of one numeric cell that start with rw, col, ixfe.
_NUMERIC_CELLS: Final = frozenset({0x0203, 0x027E, 0x0006})
_MULRK: Final = 0x00BD
_HEADER: Final = struct.Struct("<HH")
_U16X3: Final = struct.Struct("<HHH")


def _records(stream: bytes, start: int) -> Iterator[tuple[int, int, int]]:
    """(type, offset of the body, length) from ``start`` to the substream's EOF."""
    pos = start
    end = len(stream)
    while pos + 4 <= end:
        kind, length = _HEADER.unpack_from(stream, pos)
        body = pos + 4
        if body + length > end:
            return
        yield kind, body, length
        if kind == _EOF:
            return
        pos = body + length


def _string(stream: bytes, offset: int, count: int) -> str:
    """XLUnicodeString characters after their flags byte at ``offset``."""
    flags = stream[offset]
    start = offset + 1
    if flags & 0x08:  # rich text runs
        start += 2
    if flags & 0x04:  # phonetic extension
        start += 4
    if flags & 0x01:
        return stream[start : start + 2 * count].decode("utf-16-le")
    return stream[start : start + count].decode("latin-1")


def _globals(stream: bytes) -> tuple[dict[int, str], list[int], list[tuple[str, int]]] | None:
    """Custom formats, the format of each XF, and (sheet name, offset) of worksheets."""
    formats: dict[int, str] = {}
    xf_formats: list[int] = []
    sheets: list[tuple[str, int]] = []
    for kind, body, length in _records(stream, 0):
        if kind == _FILEPASS:
            return None
        if kind == _FORMAT and length >= 5:
            ifmt, count = struct.unpack_from("<HH", stream, body)
            formats[ifmt] = _string(stream, body + 4, count)
        elif kind == _XF and length >= 4:
            xf_formats.append(struct.unpack_from("<H", stream, body + 2)[0])
        elif kind == _BOUNDSHEET and length >= 8:
            offset, _, sheet_type, count = struct.unpack_from("<IBBB", stream, body)
            if sheet_type == 0:  # worksheet
                sheets.append((_string(stream, body + 7, count), offset))
    return formats, xf_formats, sheets


def _scan_sheet(stream: bytes, meta: SheetMeta, start: int, code_xfs: dict[int, str]) -> None:
    levels, formats = meta.outline_levels, meta.number_formats
    for kind, body, length in _records(stream, start):
        if kind == _ROW and length >= 14:
            row = struct.unpack_from("<H", stream, body)[0]
            level = struct.unpack_from("<H", stream, body + 12)[0] & 0x7
            if level:
                levels[row] = level
        elif not code_xfs:
            continue
        elif kind in _NUMERIC_CELLS and length >= 6:
            row, column, xf = _U16X3.unpack_from(stream, body)
            if xf in code_xfs:
                formats[(row, column)] = code_xfs[xf]
        elif kind == _MULRK and length >= 12:
            row, first = struct.unpack_from("<HH", stream, body)
            for index in range((length - 6) // 6):
                xf = struct.unpack_from("<H", stream, body + 4 + 6 * index)[0]
                if xf in code_xfs:
                    formats[(row, first + index)] = code_xfs[xf]


def read_xls_meta(source: bytes, names: Collection[str]) -> dict[str, SheetMeta]:
    """Per sheet name in ``names``: outline levels and code formats (0-based indices)."""
    try:
        with olefile.OleFileIO(io.BytesIO(source)) as ole:
            stream_name = next((n for n in ("Workbook", "Book") if ole.exists(n)), None)
            if stream_name is None:
                return {}
            stream = ole.openstream(stream_name).read()
        if len(stream) < 8 or _HEADER.unpack_from(stream, 0)[0] != _BOF:
            return {}
        found = _globals(stream)
        if found is None:
            return {}
        custom, xf_formats, sheets = found
        code_xfs = {
            index: custom[ifmt]
            for index, ifmt in enumerate(xf_formats)
            if ifmt in custom and is_code_format(custom[ifmt])
        }
        wanted = set(names)
        out: dict[str, SheetMeta] = {}
        for name, offset in sheets:
            if name in wanted and offset < len(stream):
                meta = out[name] = SheetMeta(name=name, part=stream_name)
                _scan_sheet(stream, meta, offset, code_xfs)
        return out
    except Exception:
        # Hints only: a book this parser does not follow is still read by calamine.
        return {}
