"""The XLSX sheet scan (outline levels, code formats, extent) on sheet XML as writers other
than xlsxwriter lay it out, and the scan running beside calamine: same results as the
sequential scan, errors handed to the reader, no thread left behind. Every test runs with the
C scanner and with the regular expressions it stands in for."""

from __future__ import annotations

import io
import random
import re
import threading
import zipfile
from collections.abc import Callable

import pytest

from recognition_contract import ErrorCode, FileType
from recognition_worker import RecognitionError
from tabular_parser import testing as books
from tabular_parser import xlsx_meta
from tabular_parser.limits import WorkbookLimits
from tabular_parser.recognize import recognize
from tabular_parser.testing import Sheet
from tabular_parser.xlsx_meta import SheetMeta, SheetScanner, read_meta

LIMITS = WorkbookLimits()
SHEET = books.general_osv(accounts=3, subaccounts=3)
CODE_FORMATS = {key: fmt for key, fmt in SHEET.formats.items() if fmt == books.CODE_FORMAT}
SHEET_XML = "xl/worksheets/sheet1.xml"


@pytest.fixture(params=["c", "expressions"], autouse=True)
def scanner_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    kind: str = request.param
    if kind == "expressions":
        monkeypatch.setattr(xlsx_meta, "scan_in_c", None)
    return kind


def edited(edit: Callable[[bytes], bytes], sheets: list[Sheet] | None = None) -> bytes:
    return books.rewrite_zip(
        books.xlsx(sheets or [SHEET]),
        edit=lambda name, body: edit(body) if name.startswith("xl/worksheets/") else body,
    )


def scanned(data: bytes, names: list[str]) -> dict[str, SheetMeta | None]:
    """Both scans of the package; they must agree."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        sequential = read_meta(archive, LIMITS, names)
        scanner = SheetScanner(archive, LIMITS)
        try:
            scanner.want(names)
            threaded = {name: scanner.hints(name) for name in names}
        finally:
            scanner.close()
    assert {name: meta for name, meta in threaded.items() if meta is not None} == sequential
    return threaded


def _move_r_last(body: bytes) -> bytes:
    # <row r="8" spans=.. outlineLevel="1"> -> <row spans=.. outlineLevel="1" r="8">, and
    # <c r="A7" s="1"> -> <c s="1" r="A7">: the order some writers use.
    body = re.sub(rb'<row r="([0-9]+)"([^>]*)>', rb'<row\2 r="\1">', body)
    return re.sub(rb'<c r="([A-Z]+[0-9]+)"([^>]*)>', rb'<c\2 r="\1">', body)


def test_attribute_order_does_not_matter() -> None:
    meta = scanned(edited(_move_r_last), ["ОСВ"])["ОСВ"]
    assert meta is not None
    assert meta.outline_levels == SHEET.outline
    assert meta.number_formats == CODE_FORMATS
    assert meta.max_row == len(SHEET.rows)


def test_a_row_style_is_not_a_cell_format() -> None:
    # Rows may carry a style of their own, written like a cell's.
    data = edited(lambda body: body.replace(b'<row r="7" ', b'<row r="7" s="1" customFormat="1" '))
    meta = scanned(data, ["ОСВ"])["ОСВ"]
    assert meta is not None
    assert meta.number_formats == CODE_FORMATS


def test_page_breaks_do_not_hide_the_levels() -> None:
    breaks = (
        b'<rowBreaks count="1" manualBreakCount="1"><brk id="5" max="16383" man="1"/></rowBreaks>'
    )
    meta = scanned(
        edited(lambda body: body.replace(b"</sheetData>", b"</sheetData>" + breaks)), ["ОСВ"]
    )["ОСВ"]
    assert meta is not None
    assert meta.outline_levels == SHEET.outline


def test_rows_without_numbers_give_no_levels_but_count_for_the_extent() -> None:
    meta = scanned(edited(lambda body: re.sub(rb'<row r="[0-9]+"', b"<row", body)), ["ОСВ"])["ОСВ"]
    assert meta is not None
    assert not meta.numbered
    assert meta.outline_levels == {}
    assert meta.number_formats == {}
    assert meta.max_row == len(SHEET.rows)


def test_sheets_are_scanned_in_the_order_the_reader_wants_them() -> None:
    hidden = Sheet(name="Скрытый", rows=SHEET.rows, outline=SHEET.outline, hidden=True)
    data = books.xlsx([hidden, books.general_osv(name="Второй"), books.text_sheet()])
    metas = scanned(data, ["Заметки", "Второй"])
    assert set(metas) == {"Заметки", "Второй"}
    assert all(meta is not None for meta in metas.values())


def test_a_sheet_the_package_lacks_has_no_meta() -> None:
    metas = scanned(books.xlsx([SHEET]), ["ОСВ", "Нет такого"])
    assert metas["Нет такого"] is None
    assert metas["ОСВ"] is not None


def test_every_sheet_hidden_is_read_with_its_levels() -> None:
    sheet = books.general_osv(accounts=2, subaccounts=2)
    sheet.hidden = True
    data = books.xlsx([sheet, Sheet(name="Пусто", rows=[["x"]], hidden=True)])
    recognition = recognize(LIMITS, FileType.XLSX, data, "book.xlsx")
    (document,) = recognition.documents
    body = range(books.HEADER_ROWS, len(sheet.rows) - 1)  # the totals row ends the sheet
    assert [r["level"] for r in document["rows"]] == [sheet.outline.get(r, 0) for r in body]


def _scanner_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "xlsx-meta"]


@pytest.mark.parametrize(
    ("make", "code", "text"),
    [
        (
            lambda: books.rewrite_zip(
                books.xlsx([SHEET]),
                edit=lambda name, body: (
                    body.replace(b"<styleSheet", b'<!DOCTYPE x [<!ENTITY a "b">]><styleSheet', 1)
                    if name == "xl/styles.xml"
                    else body
                ),
            ),
            ErrorCode.UNREADABLE,
            "styles.xml содержит DTD",
        ),
        (
            lambda: books.encrypted_xlsx(books.xlsx([SHEET]), "пароль"),
            ErrorCode.UNREADABLE,
            "защищена паролем",
        ),
        (lambda: books.lying_sizes_xlsx(books.xlsx([SHEET])), ErrorCode.UNREADABLE, "повреждена"),
    ],
)
def test_scan_errors_reach_the_reader_and_no_thread_is_left(
    make: Callable[[], bytes], code: ErrorCode, text: str
) -> None:
    with pytest.raises(RecognitionError) as caught:
        recognize(LIMITS, FileType.XLSX, make(), "book.xlsx")
    assert caught.value.code is code
    assert text in caught.value.message
    assert _scanner_threads() == []


def test_the_scan_stops_when_the_reader_gives_up() -> None:
    data = books.xlsx([books.long_sheet(20_000)], constant_memory=True)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        scanner = SheetScanner(archive, LIMITS)
        scanner.close()  # before the reader named a sheet, as when calamine cannot open the book
    assert _scanner_threads() == []


def _c_only(kind: str) -> None:
    if kind != "c":
        pytest.skip("a test of the C scanner")


def test_the_c_scanner_is_built(scanner_kind: str) -> None:
    _c_only(scanner_kind)
    # A build without a C compiler would fall back to the expressions, silently slower.
    from tabular_parser import _sheetxml

    assert xlsx_meta.scan_in_c is _sheetxml.scan


def test_both_scanners_find_the_same_levels_formats_and_rows(
    scanner_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _c_only(scanner_kind)
    sheet = books.general_osv(accounts=12, subaccounts=30)
    for data in (books.xlsx([sheet]), books.xlsx([sheet], capital_shared_strings=True)):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            fast = read_meta(archive, LIMITS, ["ОСВ"])["ОСВ"]
            with monkeypatch.context() as patch:
                patch.setattr(xlsx_meta, "scan_in_c", None)
                reference = read_meta(archive, LIMITS, ["ОСВ"])["ОСВ"]
        assert fast.outline_levels == reference.outline_levels == sheet.outline
        assert fast.number_formats == reference.number_formats
        assert (fast.max_row, fast.numbered) == (reference.max_row, reference.numbered)
        # The expressions bound single-letter columns by Z; the C scanner counts them.
        assert fast.max_column <= reference.max_column
        assert fast.max_column == max(len(row) for row in sheet.rows)


def _requoted(body: bytes) -> bytes:
    body = re.sub(rb'<c r="([A-Z]+[0-9]+)" s="([0-9]+)"', rb"<c r='\1' t='n' s='\2'", body)
    return re.sub(rb'outlineLevel="([0-9]+)"', rb"outlineLevel = '\1'", body)


def test_the_c_scanner_reads_any_quoting_and_attribute_between(scanner_kind: str) -> None:
    _c_only(scanner_kind)
    # Single quotes, spaces around "=", a type attribute between the reference and the style.
    data = edited(_requoted)
    meta = scanned(data, ["ОСВ"])["ОСВ"]
    assert meta is not None
    assert meta.number_formats == CODE_FORMATS
    assert meta.outline_levels == SHEET.outline


def test_a_cell_beyond_its_row_counts_for_the_extent(scanner_kind: str) -> None:
    _c_only(scanner_kind)
    # The row says 7, the cell says 1048576: calamine places the cell by its reference, so
    # the sheet spans a million rows x 16384 columns and must not be loaded.
    data = edited(lambda body: body.replace(b'<c r="A7"', b'<c r="XFD1048576"', 1))
    meta = scanned(data, ["ОСВ"])["ОСВ"]
    assert meta is not None
    assert meta.max_row == 1_048_576
    assert meta.max_column == 16_384
    assert meta.cells > LIMITS.max_cells
    with pytest.raises(RecognitionError) as caught:
        recognize(LIMITS, FileType.XLSX, data, "book.xlsx")
    assert caught.value.code is ErrorCode.UNREADABLE
    assert "занимает 1048576 строк × 16384 столбцов" in caught.value.message


def test_the_c_scanner_survives_mangled_xml(scanner_kind: str) -> None:
    _c_only(scanner_kind)
    from tabular_parser._sheetxml import scan

    rng = random.Random(7)
    with zipfile.ZipFile(io.BytesIO(books.xlsx([SHEET]))) as archive:
        xml = archive.read(SHEET_XML)
    alphabet = b"<>=\"' /rowcsAZ09outlineLevel\n\t"
    for _ in range(3000):
        start = rng.randrange(len(xml))
        body = bytearray(xml[start : start + rng.randrange(1, 2000)])
        for _ in range(rng.randrange(20)):
            if body:
                body[rng.randrange(len(body))] = rng.choice(alphabet)
        levels: dict[int, int] = {}
        formats: dict[tuple[int, int], str] = {}
        tagged, numbered, max_row, max_column = scan(bytes(body), {1: "00"}, levels, formats)
        assert 0 <= numbered <= tagged
        assert max_row >= max((row + 1 for row in levels), default=0)
        assert all(level > 0 for level in levels.values())
        assert all(0 <= r < max_row and 0 <= c < max_column for r, c in formats)
