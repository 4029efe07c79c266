"""What calamine does not tell about an XLSX sheet: row outline levels (the account
hierarchy of 1C exports) and the display formats of cells whose format turns a number into a
code (``8`` shown as ``08`` by ``00``, ``94`` as ``94.Н``). Also the rows and columns a sheet
spans, so that a sheet the reader would allocate gigabytes for is skipped before it is loaded.

Sheet XML is scanned as a byte stream with regular expressions, one chunk at a time: the
elements needed are flat and attribute-only, and a scan in C keeps up with calamine's own
read where a Python-level XML parser would double it. Shared strings are never read (1C
writes ``xl/SharedStrings.xml`` with a capital S; nothing here depends on it).

Each sheet is scanned twice: for its extent, which must be known before calamine loads the
sheet, then for levels and formats, which are needed only once it has. ``SheetScanner`` runs
both in a thread, so that they overlap calamine opening the book and loading the sheet
(calamine does that without the GIL); ``read_meta`` runs them in turn.

The C scanner (``_sheetxml.c``) does both in one pass, about ten times faster than the
expressions, so that the extent is known about when calamine has opened the book; the
expressions remain the reference and the fallback of a build without a C compiler.
"""

from __future__ import annotations

import posixpath
import re
import threading
import zipfile
import zlib
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final
from xml.etree import ElementTree

from recognition_contract import ErrorCode
from recognition_worker import RecognitionError
from tabular_parser.limits import WorkbookLimits

try:
    from tabular_parser._sheetxml import scan as _c_scan
except ImportError:  # built without a C compiler: the expressions below do it all
    _c_scan = None  # type: ignore[assignment]
scan_in_c: Callable[..., tuple[int, int, int, int]] | None = _c_scan

CHUNK_BYTES: Final = 1 << 20
# workbook.xml, its rels and styles.xml of real books are kilobytes.
MAX_PART_BYTES: Final = 16 * 1024**2

# Extent, whatever the attribute order: only rows have r="<digits>", only cells r="<letters>"
# (no other attribute of sheet XML ends in r and holds such values). No \b in front: a
# pattern that starts with a literal is searched at memory speed, one with \b is not.
_ROW_NUMBER: Final = re.compile(rb'r="([0-9]+)"')
_ROW_TAG: Final = re.compile(rb"<row\b")
_COLUMN_3: Final = re.compile(rb'r="([A-Z]{3})[0-9]')
_COLUMN_2: Final = re.compile(rb'r="([A-Z]{2})[0-9]')
_COLUMN_1: Final = re.compile(rb'r="([A-Z])[0-9]')
_COLUMN_2_OR_3: Final = re.compile(rb'r="[A-Z]{2,3}[0-9]')
# Levels and formats. Every writer seen puts r first ("<row r=", "<c r=" then s=); those
# patterns start with a literal and run at memory speed. A sheet written otherwise is read
# with the order-free patterns, about three times slower.
_FIRST_NOT_R: Final = re.compile(rb"<(?:row|c)\s+(?!r=)")
_LEVELS_R_FIRST: Final = re.compile(rb'<row r="([0-9]+)"[^>]*?\soutlineLevel="([0-9]+)"')
_LEVEL_ANY_ORDER: Final = re.compile(rb'<row\b[^>]*?\soutlineLevel="([0-9]+)"[^>]*>')
_CELL_REF: Final = re.compile(rb'\sr="([A-Z]{1,3})([0-9]+)"')
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
    """Last row (1-based) the sheet XML names."""
    max_column: int = 0
    """Last column (1-based) the sheet XML names; any column up to Z counts as 26."""
    outline_levels: dict[int, int] = field(default_factory=dict)
    """0-based row index -> outline level, rows with a level above 0 only."""
    number_formats: dict[tuple[int, int], str] = field(default_factory=dict)
    """0-based (row, column) -> display format, code formats only."""
    numbered: bool = True
    """Every row of the sheet XML says its number (r=""), so levels and formats can be placed."""
    hinted: bool = False
    """Levels and formats were gathered with the extent (the C scanner's single pass)."""

    @property
    def cells(self) -> int:
        return self.max_row * self.max_column


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
        re.compile(rb'<c\b[^>]*?\ss="(' + alternatives + rb')"[^>]*>'),
    )


class _Extent:
    """Rows and columns a sheet spans, and whether every row says its number."""

    def __init__(self, meta: SheetMeta) -> None:
        self.meta = meta
        self.rows_tagged = 0
        self.rows_numbered = 0
        self.widest = b""

    def feed(self, body: bytes) -> None:
        meta = self.meta
        self.rows_tagged += len(_ROW_TAG.findall(body))
        numbers = _ROW_NUMBER.findall(body)
        self.rows_numbered += len(numbers)
        if numbers:
            meta.max_row = max(meta.max_row, max(map(int, numbers)))
        if len(self.widest) < 3 and _COLUMN_2_OR_3.search(body) is None:
            return  # single letters only, as in most books: one pass, not two
        # Letters of one length compare like the columns they name; longer is further right.
        for letters, pattern in ((3, _COLUMN_3), (2, _COLUMN_2)):
            if len(self.widest) > letters:
                break
            found = pattern.findall(body)
            if found:
                best = max(found)
                if len(best) > len(self.widest) or best > self.widest:
                    self.widest = best
                break

    @property
    def numbered(self) -> bool:
        return self.rows_numbered >= self.rows_tagged

    @property
    def lower_bound_cells(self) -> int:
        return self.meta.max_row * (column_number(self.widest) if self.widest else 1)


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
            number = _ROW_NUMBER.search(match.group(0))
            if match.group(1) != b"0" and number is not None:
                self.meta.outline_levels[int(number.group(1)) - 1] = int(match.group(1))
        if self.cells is not None:
            for match in self.cells[1].finditer(body):
                ref = _CELL_REF.search(match.group(0))
                if ref is not None:
                    row, column = int(ref.group(2)) - 1, column_number(ref.group(1)) - 1
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


def scan_extent(
    package: _Package,
    name: str,
    part: str,
    limits: WorkbookLimits,
    stop: threading.Event | None = None,
    styles: dict[int, str] | None = None,
) -> SheetMeta:
    """The sheet's extent; levels and formats (of ``styles``) are left to ``scan_hints``, or
    gathered at once by the C scanner (``meta.hinted``). ``meta.cells`` above
    ``limits.max_cells`` means the sheet is too large (the scan stops as soon as it knows)."""
    meta = SheetMeta(name=name, part=part)
    if scan_in_c is not None:
        return _scan_in_c(scan_in_c, package, meta, limits, stop, styles)
    extent = _Extent(meta)
    for body in _bodies(package, part, stop):
        extent.feed(body)
        if extent.lower_bound_cells > limits.max_cells:
            meta.max_column = column_number(extent.widest) if extent.widest else 1
            return meta  # too large already; the caller skips the sheet
    meta.numbered = extent.numbered
    if not extent.numbered:
        # Rows without r="" are numbered by position, which these scans do not follow.
        meta.max_row = max(meta.max_row, extent.rows_tagged)
    if extent.widest:
        meta.max_column = column_number(extent.widest)
    elif meta.max_row * 26 > limits.max_cells:
        # Only a sheet this long is worth a second pass for the exact width.
        meta.max_column = _single_letter_width(package, part, stop)
    else:
        meta.max_column = 26
    return meta


def _scan_in_c(
    scan: Callable[..., tuple[int, int, int, int]],
    package: _Package,
    meta: SheetMeta,
    limits: WorkbookLimits,
    stop: threading.Event | None,
    styles: dict[int, str] | None,
) -> SheetMeta:
    levels: dict[int, int] | None = meta.outline_levels if styles is not None else None
    formats = meta.number_formats
    rows_tagged = rows_numbered = 0
    for body in _bodies(package, meta.part, stop):
        tagged, numbered, max_row, max_column = scan(body, styles or None, levels, formats)
        rows_tagged += tagged
        rows_numbered += numbered
        meta.max_row = max(meta.max_row, max_row)
        meta.max_column = max(meta.max_column, max_column)
        if meta.cells > limits.max_cells:
            return meta  # too large already; the caller skips the sheet
    meta.numbered = rows_numbered >= rows_tagged
    if not meta.numbered:
        # Rows without r="" are numbered by position: levels and formats cannot be placed.
        meta.max_row = max(meta.max_row, rows_tagged)
        meta.outline_levels.clear()
        meta.number_formats.clear()
    meta.max_column = max(meta.max_column, 1)
    meta.hinted = styles is not None
    return meta


def scan_hints(
    package: _Package, meta: SheetMeta, styles: dict[int, str], stop: threading.Event | None = None
) -> None:
    """Outline levels and code formats into ``meta``, for a sheet ``scan_extent`` found within
    the limits. Without trustworthy row numbers the levels could land on the wrong rows: such
    a sheet gets none."""
    if not meta.numbered or meta.hinted:
        return
    hints = _Hints(meta, styles)
    for body in _bodies(package, meta.part, stop):
        hints.feed(body)


def scan_sheet(
    package: _Package, name: str, part: str, styles: dict[int, str], limits: WorkbookLimits
) -> SheetMeta:
    meta = scan_extent(package, name, part, limits, styles=styles)
    if meta.cells <= limits.max_cells:
        scan_hints(package, meta, styles)
    return meta


def _single_letter_width(package: _Package, part: str, stop: threading.Event | None) -> int:
    widest = b""
    for body in _bodies(package, part, stop):
        if found := _COLUMN_1.findall(body):
            widest = max(widest, max(found))
    return column_number(widest) if widest else 1


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
    while calamine loads it (calamine parses without holding the GIL). With the C scanner
    both come from one pass, so the levels and formats are ready with the extent.

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
        meta = scan_extent(self._package, part.name, part.member, self._limits, self._stop, styles)
        extent.set_result(meta)
        if meta.cells <= self._limits.max_cells:
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
