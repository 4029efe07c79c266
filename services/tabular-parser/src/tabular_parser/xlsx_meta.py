"""What calamine does not tell about an XLSX sheet: row outline levels (the account
hierarchy of 1C exports) and the display formats of cells whose format turns a number into a
code (``8`` shown as ``08`` by ``00``, ``94`` as ``94.Н``). Also how far a sheet reaches, so
that a sheet the reader would allocate gigabytes for is skipped before it is loaded.

Sheet XML is scanned as a byte stream with regular expressions, one chunk at a time: the
elements needed are flat and attribute-only, and expressions over whole chunks keep up with
calamine's own read where a Python-level XML parser would double it. Shared strings are never
read (1C writes ``xl/SharedStrings.xml`` with a capital S; nothing here depends on it).

Each sheet is scanned twice: for its extent, which must be known before calamine loads the
sheet, then for levels and formats, which are needed only once it has. ``SheetScanner`` runs
both in a thread, so that they overlap calamine opening the book and loading the sheet
(calamine does that without the GIL); ``read_meta`` runs them in turn.

The extent bounds the rectangle calamine allocates, from A1 to the furthest cell it places.
calamine (quick-xml underneath) matches elements by their local name whatever the prefix,
reads references in either case, takes a tag's last ``r``, places a cell without one after
the previous cell of its row and a row without one after the previous row, and ignores
``<dimension>``. When every cell tag begins ``<c r="``, as every writer seen writes them, the
furthest ``r`` value of the part bounds it, found at the speed of the expressions. Otherwise
the scan follows calamine's reading tag by tag, which holds only for XML that both split into
the same tags: a comment, CDATA, a processing instruction, a tag left open before the next
``<``, or cell content other than values, formulas and text leaves the extent unknown, and the
sheet is refused as too large (``SheetMeta.unbounded``).
"""

from __future__ import annotations

import functools
import posixpath
import re
import threading
import zipfile
import zlib
from collections.abc import Collection, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final
from xml.etree import ElementTree

from recognition_contract import ErrorCode
from recognition_worker import RecognitionError
from tabular_parser.limits import WorkbookLimits

CHUNK_BYTES: Final = 1 << 20
# workbook.xml, its rels and styles.xml of real books are kilobytes.
MAX_PART_BYTES: Final = 16 * 1024**2

# Whether every row says its number (for placing levels): as writers put it, and written
# any other way (either quote, spaces around "=").
_ROW_NUMBER: Final = re.compile(rb'r="([0-9]+)"')
_ROW_NUMBER_ANY: Final = re.compile(rb"(?<![^ \t\r\n])r[ \t\r\n]*=[ \t\r\n]*[\"']([0-9]+)[\"']")
_ROW_TAG: Final = re.compile(rb"<row\b")
# Levels and formats. Every writer seen puts r first ("<row r=", "<c r=" then s=); those
# patterns start with a literal and run at memory speed. A sheet written otherwise is read
# with the order-free patterns, about three times slower.
_FIRST_NOT_R: Final = re.compile(rb'<(?:row|c)\s+(?!r=")')
_LEVELS_R_FIRST: Final = re.compile(rb'<row r="([0-9]+)"[^>]*?\soutlineLevel="([0-9]+)"')
_LEVEL_ANY_ORDER: Final = re.compile(
    rb"<row\b[^>]*?\soutlineLevel[ \t\r\n]*=[ \t\r\n]*[\"']([0-9]+)[\"'][^>]*>"
)
_CELL_REF: Final = re.compile(rb"\sr[ \t\r\n]*=[ \t\r\n]*[\"']([A-Za-z]{1,3})([0-9]+)[\"']")
_CELL_R_THEN_S: Final = re.compile(rb'<c r="([A-Z]{1,3})([0-9]+)"')

# A format renders an integer as a code when, stripped of literal text, it is digit
# placeholders only (no grouping, decimals, dates, percent) and either pads with zeros or adds
# literal text. Anything else reads the same as the bare number and need not be passed on.
_LITERALS: Final = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]')


def is_code_format(code: str) -> bool:
    section = code.split(";", 1)[0]
    bare = _LITERALS.sub("", section).lower()
    if not bare or bare in ("general", "@") or re.search(r"[^0#]", bare):
        return False
    has_literal = bare != section.lower()
    return has_literal or bare.count("0") >= 2


@dataclass
class SheetMeta:
    name: str
    part: str
    max_row: int = 0
    """Rows (from row 1) calamine would allocate at most."""
    max_column: int = 0
    """Columns (from A) calamine would allocate at most; any column up to Z counts as 26."""
    outline_levels: dict[int, int] = field(default_factory=dict)
    """0-based row index -> outline level, rows with a level above 0 only."""
    number_formats: dict[tuple[int, int], str] = field(default_factory=dict)
    """0-based (row, column) -> display format, code formats only."""
    numbered: bool = True
    """Every row of the sheet XML says its number (r=""), so levels and formats can be placed
    (known once ``scan_hints`` has run)."""
    unbounded: str | None = None
    """Why the extent is unknown (the sheet is then taken for too large), or None."""

    @property
    def cells(self) -> int:
        return self.max_row * self.max_column

    def fits(self, limits: WorkbookLimits) -> bool:
        return self.unbounded is None and self.cells <= limits.max_cells


def column_number(letters: bytes | str) -> int:
    number = 0
    for char in letters if isinstance(letters, str) else letters.decode("ascii"):
        number = number * 26 + (ord(char) - 64)
    return number


def _damaged(what: str, exc: BaseException | None = None) -> RecognitionError:
    detail = f" ({type(exc).__name__})" if exc is not None else ""
    return RecognitionError(ErrorCode.UNREADABLE, f"Книга повреждена: {what}{detail}")


class _Package:
    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self.names = {info.filename.lower(): info.filename for info in archive.infolist()}

    def find(self, name: str) -> str | None:
        return self.names.get(name.lower())

    def read_small(self, name: str) -> bytes | None:
        actual = self.find(name)
        if actual is None:
            return None
        if self.archive.getinfo(actual).file_size > MAX_PART_BYTES:
            raise _damaged(f"часть {name} слишком велика")
        with self.archive.open(actual) as member:
            data = member.read(MAX_PART_BYTES + 1)
        if len(data) > MAX_PART_BYTES:
            raise _damaged(f"часть {name} слишком велика")
        return data

    def chunks(self, name: str) -> Iterator[bytes]:
        with self.archive.open(name) as member:
            while chunk := member.read(CHUNK_BYTES):
                yield chunk


def _xml(data: bytes, name: str) -> ElementTree.Element:
    # Entity declarations have no business in a workbook and are how entity bombs start;
    # refusing any DTD is what defusedxml would do, for the few kilobytes parsed here.
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise _damaged(f"{name} содержит DTD")
    try:
        return ElementTree.fromstring(data)  # noqa: S314 (no DTD, see above)
    except ElementTree.ParseError as exc:
        raise _damaged(f"{name} не разбирается", exc) from None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


@dataclass(frozen=True)
class _SheetPart:
    name: str
    member: str
    shown: bool
    """A visible worksheet by workbook.xml (not hidden, not a chart sheet)."""


def _sheet_parts(package: _Package) -> list[_SheetPart]:
    """The sheets of workbook.xml in workbook order, with the zip member each one is in."""
    workbook = package.read_small("xl/workbook.xml")
    rels = package.read_small("xl/_rels/workbook.xml.rels")
    if workbook is None or rels is None:
        raise _damaged("нет описания листов (xl/workbook.xml)")
    targets: dict[str, tuple[str, str]] = {}
    for rel in _xml(rels, "workbook.xml.rels"):
        rel_id, target = rel.get("Id"), rel.get("Target")
        if rel_id and target and rel.get("TargetMode") != "External":
            path = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
            targets[rel_id] = (posixpath.normpath(path), rel.get("Type", ""))
    parts: list[_SheetPart] = []
    for element in _xml(workbook, "workbook.xml").iter():
        if _local(element.tag) != "sheet":
            continue
        name = element.get("name")
        rel_id = next(
            (value for key, value in element.attrib.items() if _local(key) == "id" and "}" in key),
            None,
        )
        target, kind = targets.get(rel_id or "", ("", ""))
        member = package.find(target) if target else None
        if name and member:
            shown = element.get("state", "visible") == "visible" and kind.endswith("/worksheet")
            parts.append(_SheetPart(name, member, shown))
    return parts


_BUILTIN_FORMATS: Final = {0: "General", 1: "0", 49: "@"}


def code_styles(styles: bytes | None) -> dict[int, str]:
    """Cell style index -> format code, for styles whose format renders codes."""
    if styles is None:
        return {}
    root = _xml(styles, "styles.xml")
    formats: dict[int, str] = dict(_BUILTIN_FORMATS)
    out: dict[int, str] = {}
    for element in root:
        tag = _local(element.tag)
        if tag == "numFmts":
            for fmt in element:
                try:
                    formats[int(fmt.get("numFmtId", ""))] = fmt.get("formatCode", "")
                except ValueError:
                    continue
        elif tag == "cellXfs":
            for index, xf in enumerate(element):
                try:
                    code = formats.get(int(xf.get("numFmtId", "0")))
                except ValueError:
                    continue
                if code and is_code_format(code):
                    out[index] = code
    return out


def _cell_patterns(styles: dict[int, str]) -> tuple[re.Pattern[bytes], re.Pattern[bytes]] | None:
    """Cells in one of ``styles``: (the style attribute as r-first writers put it, after a
    single space; any-order pattern giving the style and the whole tag)."""
    if not styles:
        return None
    alternatives = b"|".join(str(index).encode() for index in sorted(styles))
    return (
        re.compile(rb' s="(' + alternatives + rb')"'),
        re.compile(rb"<c\b[^>]*?\ss[ \t\r\n]*=[ \t\r\n]*[\"'](" + alternatives + rb")[\"'][^>]*>"),
    )


class _Hints:
    """Outline levels and code formats, by row number and column."""

    def __init__(self, meta: SheetMeta, styles: dict[int, str]) -> None:
        self.meta = meta
        self.styles = styles
        self.cells = _cell_patterns(styles)
        self.r_first: bool | None = None

    def feed(self, body: bytes) -> None:
        if self.r_first is None:
            self.r_first = _FIRST_NOT_R.search(body) is None
        if self.r_first:
            self._hints_r_first(body)
        else:
            self._hints_any_order(body)

    def _hints_r_first(self, body: bytes) -> None:
        levels = self.meta.outline_levels
        for row, level in _LEVELS_R_FIRST.findall(body):
            if level != b"0":
                levels[int(row) - 1] = int(level)
        if self.cells is not None:
            # Few cells carry a code style: find the style, then look back at its tag, rather
            # than match the reference of every cell of the sheet.
            formats, styles = self.meta.number_formats, self.styles
            for match in self.cells[0].finditer(body):
                end = match.start()
                start = body.rfind(b"<", 0, end)
                ref = _CELL_R_THEN_S.fullmatch(body, start, end) if start >= 0 else None
                if ref is not None:
                    row, column = int(ref.group(2)) - 1, column_number(ref.group(1)) - 1
                    formats[(row, column)] = styles[int(match.group(1))]

    def _hints_any_order(self, body: bytes) -> None:
        for match in _LEVEL_ANY_ORDER.finditer(body):
            number = _ROW_NUMBER_ANY.search(match.group(0))
            if match.group(1) != b"0" and number is not None:
                self.meta.outline_levels[int(number.group(1)) - 1] = int(match.group(1))
        if self.cells is not None:
            for match in self.cells[1].finditer(body):
                ref = _CELL_REF.search(match.group(0))
                if ref is not None:
                    row, column = int(ref.group(2)) - 1, column_number(ref[1].upper()) - 1
                    self.meta.number_formats[(row, column)] = self.styles[int(match.group(1))]


def _bodies(package: _Package, part: str, stop: threading.Event | None = None) -> Iterator[bytes]:
    """The member in chunks cut before the last ``<``, so that no tag is split."""
    tail = b""
    for chunk in package.chunks(part):
        if stop is not None and stop.is_set():
            raise _Stopped
        buffer = tail + chunk
        cut = buffer.rfind(b"<")
        if cut <= 0:
            tail = buffer
            continue
        yield buffer[:cut]
        tail = buffer[cut:]
    if tail:
        yield tail


class _Stopped(Exception):
    """The reader no longer wants the scan."""


class _Unbounded(Exception):
    """The scan cannot bound what calamine would allocate for the sheet; the text says why."""


# The value of any attribute named r, however quoted and spaced: a cell's reference is among
# these wherever it stands in its tag (calamine takes the last r of a tag), and a value that is
# not letters then digits makes calamine refuse the sheet rather than place a cell.
_R_VALUE = rb"r[ \t\r\n]*=[ \t\r\n]*[\"']"
# Any r written otherwise than r=": with none in a chunk, the plain form is the only one to
# search for, and a search that starts with a literal runs much faster.
_UNUSUAL_R: Final = re.compile(rb"r(?:[ \t\r\n]+=|=[ \t\r\n'])")
_REFERENCE: Final = re.compile(_R_VALUE + rb"([A-Za-z]+)0*([0-9]+)[\"']")
# Cell tags calamine reads, plain ones first: unprefixed, and a superset of the prefixed.
_NOT_PLAIN_CELL: Final = re.compile(rb'<c(?! r=")[ \t\r\n/>]')
_PLAIN_PREFIXED_CELL: Final = b':c r="'
_PLAIN_REFERENCE: Final = re.compile(rb'c r="([A-Za-z]+)0*([0-9]+)"')
_PREFIXED_CELL_TAG: Final = re.compile(rb":c[ \t\r\n/>]")
_PREFIXED_CELL_END: Final = re.compile(rb"</[^\s:<>]+:c[ \t\r\n]*>")

# calamine's reading, tag by tag. quick-xml ends a tag at the first ">" outside quotes (either
# quote opens anywhere in it), matches elements by the local name after the first colon and
# takes space, tab, CR and LF for whitespace.
_PREFIX = rb"(?:[^\s:<>]+:)?"
_ATTRIBUTES = rb"(?:[ \t\r\n](?:[^>\"'/]++|/(?!>)|\"[^\"]*+\"|'[^']*+')*+)?"
_NAMES = rb"(row|c|sheetData|v|f|t|is)"
_TOKEN: Final = re.compile(
    # A whole cell of values and formulas with text only, as nearly every cell is: one token.
    rb"<(?!/)" + _PREFIX + rb"c(" + _ATTRIBUTES + rb")(?<!/)>"
    rb"(?:[^<]++|<((?!/)" + _PREFIX + rb"[vf])" + _ATTRIBUTES + rb"(?<!/)>[^<]*+</\2[ \t\r\n]*>"
    rb"|<(?!/)" + _PREFIX + rb"f" + _ATTRIBUTES + rb"/>)*+"
    rb"</" + _PREFIX + rb"c[ \t\r\n]*>"
    # Any other start (or empty) tag of these elements, then any end tag.
    rb"|<(?!/)(" + _PREFIX + _NAMES + rb")(" + _ATTRIBUTES + rb")(/?)>"
    rb"|</(" + _PREFIX + _NAMES + rb")[ \t\r\n]*>"
)
_R_ATTRIBUTE: Final = re.compile(
    rb"\"[^\"]*\"|'[^']*'|(?<![^ \t\r\n])r[ \t\r\n]*=[ \t\r\n]*(?:\"([^\"]*)\"|'([^']*)')"
)
_ROW_REFERENCE: Final = re.compile(rb"[A-Za-z]*([0-9]+)")
_CELL_REFERENCE: Final = re.compile(rb"([A-Za-z]+)([0-9]+)")
_DECLARATION: Final = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*<\?xml(?:[^?]|\?(?!>))*\?>")
# Only what decides where tags end: with it, a tag that does not close before the next "<"
# (a "<" in a value, an unclosed quote) is found at the cost of one pass over few bytes.
_NOT_MARKUP: Final = bytes(set(range(256)) - set(b"<>\"'"))
_UNCLOSED_TAG: Final = re.compile(rb"<(?:\"[>']*+\"|'[>\"]*+')*+(?!>)")


def _plain_cells(body: bytes) -> bool:
    """Every tag of the chunk that calamine takes for a cell begins ``<c r="`` (or, prefixed,
    ``<x:c r="``), so every cell is where one of the chunk's r values says."""
    if _NOT_PLAIN_CELL.search(body) is not None:
        return False
    if b":c" not in body:
        return True
    starts = len(_PREFIXED_CELL_TAG.findall(body)) - len(_PREFIXED_CELL_END.findall(body))
    return starts == body.count(_PLAIN_PREFIXED_CELL)


def _scan_references(
    package: _Package, meta: SheetMeta, limits: WorkbookLimits, stop: threading.Event | None
) -> bool:
    """The extent of a sheet whose cells all carry a reference, as every writer seen writes
    them: the furthest row and column any r value names. False, with ``meta`` untouched, when
    a cell may not."""
    row, letters = 0, b""
    for body in _bodies(package, meta.part, stop):
        if not _plain_cells(body):
            return False
        row, letters = _furthest(body, row, letters)
        if row * column_number(letters) > limits.max_cells:
            break  # too large already; the caller skips the sheet
    meta.max_row, meta.max_column = row, column_number(letters)
    return True


def _furthest(body: bytes, row: int, letters: bytes) -> tuple[int, bytes]:
    """The furthest row and the (upper-case) letters of the furthest column named by an r
    value of the chunk or by those found before."""
    # Writers put cells in order: the last one is usually the furthest, and one search for a
    # value beyond it costs less than collecting them all.
    last = _PLAIN_REFERENCE.match(body, max(body.rfind(b'c r="'), 0))
    if last is not None:
        row, letters = max(row, int(last.group(2))), _wider(letters, last.group(1).upper())
    if _beyond(row, letters, _UNUSUAL_R.search(body) is None).search(body) is None:
        return row, letters
    for found_letters, found_row in _REFERENCE.findall(body):
        row, letters = max(row, int(found_row)), _wider(letters, found_letters.upper())
    return row, letters


def _wider(letters: bytes, other: bytes) -> bytes:
    # Column letters of one length compare like the columns they name; longer is further right.
    return max(letters, other, key=lambda name: (len(name), name))


@functools.lru_cache(maxsize=64)
def _beyond(row: int, letters: bytes, plain: bool) -> re.Pattern[bytes]:
    """r values naming a row after ``row`` or a column right of ``letters``; only those
    written r=" if ``plain``."""
    return re.compile(
        (b'r="' if plain else _R_VALUE)
        + rb"(?:(?i:"
        + _above(letters, b"[A-Z]", b"Z")
        + rb")[0-9]+|[A-Za-z]+0*(?:"
        + _above(str(row).encode(), b"[0-9]", b"9")
        + rb"))[\"']"
    )


def _above(value: bytes, digit: bytes, top: bytes) -> bytes:
    """An expression for numerals (digits or column letters, no leading zero or nothing
    before A) greater than ``value``: of its length, then longer ones."""
    first = b"[1-9]" if digit == b"[0-9]" else digit
    if not value:
        return first + digit + b"*"
    same = _above_of_length(value, digit, top)
    return (same + b"|" if same else b"") + first + digit + b"{%d,}" % len(value)


def _above_of_length(value: bytes, digit: bytes, top: bytes) -> bytes:
    # Nested by common start (5 then 4 of 54321), so a numeral fails at its first differing
    # digit instead of once per alternative.
    head, rest = value[0], value[1:]
    options = []
    if head != top[0]:
        options.append(b"[%c-%c]" % (head + 1, top[0]) + digit + b"{%d}" % len(rest))
    if rest and (inner := _above_of_length(rest, digit, top)):
        options.append(bytes([head]) + b"(?:" + inner + b")")
    return b"|".join(options)


class _Reading:
    """Where calamine puts each cell, followed tag by tag as it reads them: a cell with a
    reference there, one without it after the previous cell of its row, a row without a number
    after the previous row. Anything calamine might read differently raises ``_Unbounded``."""

    def __init__(self, meta: SheetMeta) -> None:
        self.meta = meta
        self.started = False  # inside sheetData, where calamine reads cells
        self.finished = False
        self.row = 0  # calamine's 0-based row and column for a cell without a reference
        self.column = 0
        self.in_cell = False
        self.closing: bytes | None = None
        """Full name of the value, formula or text element calamine reads up to its end."""
        self.inline: bytes | None = None
        """Full name of the inline string calamine reads up to its end."""
        self.first = True

    def feed(self, body: bytes) -> None:
        if self.first:
            self.first = False
            if declaration := _DECLARATION.match(body):
                body = body[declaration.end() :]
        if b"<!" in body or b"<?" in body:
            raise _Unbounded("комментарий, CDATA или инструкция обработки в XML листа")
        if _UNCLOSED_TAG.search(body.translate(None, _NOT_MARKUP)) is not None:
            raise _Unbounded("тег XML листа не закрыт до следующего «<»")
        for token in _TOKEN.finditer(body):
            if self.finished:
                return
            whole, _, start, start_name, attributes, empty, end, end_name = token.groups()
            if whole is not None:
                self._whole_cell(whole)
            elif start is not None:
                self._start(start, start_name, attributes, empty == b"/")
            else:
                self._end(end, end_name)

    def _whole_cell(self, attributes: bytes) -> None:
        if not self.started:
            return
        if self.closing is not None or self.inline is not None or self.in_cell:
            raise _Unbounded("вложенный элемент в ячейке")
        self._cell(attributes)
        self.column += 1

    def _start(self, name: bytes, local: bytes, attributes: bytes, empty: bool) -> None:
        if not self.started:
            self.started = local == b"sheetData"
            self.finished = self.started and empty
            return
        if self.closing is not None:
            raise _Unbounded("элемент внутри значения ячейки")
        if self.inline is not None:
            if local != b"t":
                raise _Unbounded("элемент внутри строки ячейки")
            self.closing = None if empty else name
        elif self.in_cell:
            if local in (b"v", b"f"):
                self.closing = None if empty else name
            elif local == b"is":
                self.inline = None if empty else name
            else:
                raise _Unbounded("вложенный элемент в ячейке")
        elif local == b"row":
            if (number := _r_value(attributes)) is not None:
                self.row = _row_number(number) - 1
            if empty:
                self.row += 1
                self.column = 0
        elif local == b"c":
            self._cell(attributes)
            if empty:
                self.column += 1
            else:
                self.in_cell = True

    def _end(self, name: bytes, local: bytes) -> None:
        if not self.started:
            return
        if self.closing is not None:
            if name != self.closing:
                raise _Unbounded("элемент внутри значения ячейки")
            self.closing = None
        elif self.inline is not None:
            if name != self.inline:
                raise _Unbounded("элемент внутри строки ячейки")
            self.inline = None
        elif self.in_cell:
            # Inside a cell calamine looks for the cell's end only.
            if local == b"c":
                self.in_cell = False
                self.column += 1
        elif local == b"row":
            self.row += 1
            self.column = 0
        elif local == b"sheetData":
            self.finished = True

    def _cell(self, attributes: bytes) -> None:
        reference = _r_value(attributes)
        if reference is None:
            row, column = self.row, self.column
        else:
            parts = _CELL_REFERENCE.fullmatch(reference)
            if parts is None or int(parts.group(2)) == 0:
                raise _Unbounded(f"адрес ячейки {_shown(reference)}, который читатель не примет")
            row, column = int(parts.group(2)) - 1, column_number(parts.group(1).upper()) - 1
            self.column = column
        meta = self.meta
        meta.max_row = max(meta.max_row, row + 1)
        meta.max_column = max(meta.max_column, column + 1)


def _r_value(attributes: bytes) -> bytes | None:
    """The value of the tag's last attribute r (the one calamine keeps), or None."""
    if b"r" not in attributes:
        return None
    value = None
    for match in _R_ATTRIBUTE.finditer(attributes):
        if match.lastindex is not None:
            value = match.group(match.lastindex)
    return value


def _row_number(value: bytes) -> int:
    number = _ROW_REFERENCE.fullmatch(value)
    if number is None or int(number.group(1)) == 0:
        raise _Unbounded(f"номер строки {_shown(value)}, который читатель не примет")
    return int(number.group(1))


def _shown(value: bytes) -> str:
    return repr(value[:20].decode("ascii", "replace"))


def _scan_as_read(
    package: _Package, meta: SheetMeta, limits: WorkbookLimits, stop: threading.Event | None
) -> None:
    reading = _Reading(meta)
    for body in _bodies(package, meta.part, stop):
        reading.feed(body)
        if reading.finished or meta.cells > limits.max_cells:
            break  # calamine reads no further, or too large already


def scan_extent(
    package: _Package,
    name: str,
    part: str,
    limits: WorkbookLimits,
    stop: threading.Event | None = None,
) -> SheetMeta:
    """The sheet's extent; levels and formats are left to ``scan_hints``. A sheet that does not
    ``fit`` the limits is too large (the scan stops as soon as it knows)."""
    meta = SheetMeta(name=name, part=part)
    try:
        if not _scan_references(package, meta, limits, stop):
            _scan_as_read(package, meta, limits, stop)
    except _Unbounded as exc:
        meta.unbounded = str(exc)
    return meta


def scan_hints(
    package: _Package, meta: SheetMeta, styles: dict[int, str], stop: threading.Event | None = None
) -> None:
    """Outline levels and code formats into ``meta``, for a sheet ``scan_extent`` found within
    the limits. Without trustworthy row numbers the levels could land on the wrong rows: such
    a sheet gets none."""
    hints = _Hints(meta, styles)
    rows_tagged = rows_numbered = 0
    for body in _bodies(package, meta.part, stop):
        tagged, numbered = len(_ROW_TAG.findall(body)), len(_ROW_NUMBER.findall(body))
        if numbered < tagged:
            numbered = len(_ROW_NUMBER_ANY.findall(body))
        rows_tagged += tagged
        rows_numbered += numbered
        hints.feed(body)
    meta.numbered = rows_numbered >= rows_tagged
    if not meta.numbered:
        meta.outline_levels.clear()
        meta.number_formats.clear()


def scan_sheet(
    package: _Package, name: str, part: str, styles: dict[int, str], limits: WorkbookLimits
) -> SheetMeta:
    meta = scan_extent(package, name, part, limits)
    if meta.fits(limits):
        scan_hints(package, meta, styles)
    return meta


@contextmanager
def _package_errors() -> Iterator[None]:
    """What zipfile and zlib raise for a damaged or encrypted package, as RecognitionError."""
    try:
        yield
    except RecognitionError:
        raise
    except RuntimeError as exc:
        # zipfile's answer to a member encrypted with a zip password.
        raise RecognitionError(ErrorCode.UNREADABLE, f"Книга защищена паролем ({exc})") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise _damaged("архив не распаковывается", exc) from None


def read_meta(
    archive: zipfile.ZipFile, limits: WorkbookLimits, names: Collection[str]
) -> dict[str, SheetMeta]:
    """Per sheet name in ``names``: its outline levels, code formats and extent."""
    package = _Package(archive)
    wanted = set(names)
    with _package_errors():
        parts = [part for part in _sheet_parts(package) if part.name in wanted]
        styles = code_styles(package.read_small("xl/styles.xml"))
        return {p.name: scan_sheet(package, p.name, p.member, styles, limits) for p in parts}


class SheetScanner:
    """``read_meta`` in a thread, sheet by sheet: first a sheet's extent, which the reader
    waits for before it lets calamine load the sheet, then its levels and formats, scanned
    while calamine loads it (calamine parses without holding the GIL).

    The scan starts before the reader knows which sheets it reads (calamine is still opening
    the book): until ``want`` names them it takes the visible worksheets of workbook.xml in
    order, which is what the reader asks for in all but odd books. Results, and any error,
    are handed over per sheet; ``close`` stops the thread and waits for it.
    """

    def __init__(self, archive: zipfile.ZipFile, limits: WorkbookLimits) -> None:
        self._package = _Package(archive)
        self._limits = limits
        self._lock = threading.Lock()
        self._futures: dict[str, tuple[Future[SheetMeta | None], Future[SheetMeta | None]]] = {}
        self._finished = False
        self._wanted: set[str] | None = None
        self._named = threading.Event()
        self._ready = threading.Event()
        self._setup_error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="xlsx-meta", daemon=True)
        self._thread.start()

    def want(self, names: Collection[str]) -> None:
        """The sheets the reader reads; no other is scanned from now on. Raises what reading
        the package's list of sheets and its styles raised, as ``read_meta`` would."""
        self._wanted = set(names)
        self._named.set()
        self._ready.wait()
        if self._setup_error is not None:
            raise self._setup_error

    def extent(self, name: str) -> SheetMeta | None:
        """The sheet's extent (levels and formats may still be coming in); None for a sheet
        the package does not have."""
        return self._pair(name)[0].result()

    def hints(self, name: str) -> SheetMeta | None:
        """The sheet's extent, levels and formats, complete."""
        return self._pair(name)[1].result()

    def close(self) -> None:
        self._stop.set()
        self._named.set()
        self._thread.join()

    def _pair(self, name: str) -> tuple[Future[SheetMeta | None], Future[SheetMeta | None]]:
        with self._lock:
            pair = self._futures.get(name)
            if pair is None:
                pair = self._futures[name] = (Future(), Future())
                if self._finished:
                    for future in pair:
                        future.set_result(None)  # not in the package
            return pair

    def _run(self) -> None:
        try:
            with _package_errors():
                parts = _sheet_parts(self._package)
                styles = code_styles(self._package.read_small("xl/styles.xml"))
        except BaseException as exc:  # handed to the reader, which raises it
            self._setup_error = exc
            self._ready.set()
            self._finish(exc)
            return
        self._ready.set()
        try:
            with _package_errors():
                done: set[str] = set()
                for part in parts:
                    wanted = self._wanted
                    if part.name in done or not (
                        part.shown if wanted is None else part.name in wanted
                    ):
                        continue
                    self._scan(part, styles)
                    done.add(part.name)
                self._named.wait()
                wanted = self._wanted or set()
                for part in parts:
                    if part.name in wanted and part.name not in done:
                        self._scan(part, styles)
                        done.add(part.name)
        except _Stopped:
            pass
        except BaseException as exc:  # handed to the reader, which raises it
            self._finish(exc)
            return
        self._finish(None)

    def _scan(self, part: _SheetPart, styles: dict[int, str]) -> None:
        if self._stop.is_set():
            raise _Stopped
        extent, hints = self._pair(part.name)
        meta = scan_extent(self._package, part.name, part.member, self._limits, self._stop)
        extent.set_result(meta)
        if meta.fits(self._limits):
            scan_hints(self._package, meta, styles, self._stop)
        hints.set_result(meta)

    def _finish(self, error: BaseException | None) -> None:
        with self._lock:
            self._finished = True
            for pair in self._futures.values():
                for future in pair:
                    if future.done():
                        continue
                    if error is None:
                        future.set_result(None)
                    else:
                        future.set_exception(error)
