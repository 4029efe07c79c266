"""The XLSX sheet scan (outline levels, code formats, extent) on sheet XML as writers other
than xlsxwriter lay it out, and the scan running beside calamine: same results as the
sequential scan, errors handed to the reader, no thread left behind. The extent is checked
against what python-calamine itself makes of hand-written sheet XML."""

from __future__ import annotations

import io
import itertools
import random
import re
import string
import threading
import zipfile
from collections.abc import Callable

import pytest
from python_calamine import CalamineWorkbook

from recognition_contract import ErrorCode, FileType, Locator
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
    assert [r.level for r in document.rows] == [sheet.outline.get(r, 0) for r in body]


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
            ErrorCode.PASSWORD_PROTECTED,
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


def _requoted(body: bytes) -> bytes:
    body = re.sub(rb'<c r="([A-Z]+[0-9]+)" s="([0-9]+)"', rb"<c r='\1' t='n' s='\2'", body)
    return re.sub(rb'outlineLevel="([0-9]+)"', rb"outlineLevel = '\1'", body)


def test_any_quoting_and_attribute_between_is_read() -> None:
    # Single quotes, spaces around "=", a type attribute between the reference and the style.
    meta = scanned(edited(_requoted), ["ОСВ"])["ОСВ"]
    assert meta is not None
    assert meta.number_formats == CODE_FORMATS
    assert meta.outline_levels == SHEET.outline
    assert (meta.max_row, meta.max_column) == (len(SHEET.rows), max(map(len, SHEET.rows)))


def test_a_cell_beyond_its_row_counts_for_the_extent() -> None:
    # The row says 7, the cell says 1048576: calamine places the cell by its reference, so
    # the sheet spans a million rows x 16384 columns and must not be loaded.
    data = edited(lambda body: body.replace(b'<c r="A7"', b'<c r="XFD1048576"', 1))
    meta = scanned(data, ["ОСВ"])["ОСВ"]
    assert meta is not None
    assert meta.max_row == 1_048_576
    assert meta.max_column == 16_384
    assert not meta.fits(LIMITS)
    with pytest.raises(RecognitionError) as caught:
        recognize(LIMITS, FileType.XLSX, data, "book.xlsx")
    assert caught.value.code is ErrorCode.UNREADABLE
    assert "занимает 1048576 строк × 16384 столбцов" in caught.value.message


# Hand-written sheet XML, read by the scan and by python-calamine.
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def handmade(sheet_xml: str) -> bytes:
    """The smallest package calamine opens, with one sheet "S" of this XML."""
    relationships = "http://schemas.openxmlformats.org/package/2006/relationships"
    office = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "[Content_Types].xml",
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/'
            'vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>',
        )
        archive.writestr(
            "_rels/.rels",
            f'<Relationships xmlns="{relationships}"><Relationship Id="rId1" '
            f'Type="{office}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        )
        archive.writestr(
            "xl/workbook.xml",
            f'<workbook xmlns="{MAIN}" xmlns:r="{office}">'
            '<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
        )
        archive.writestr(
            "xl/_rels/workbook.xml.rels",
            f'<Relationships xmlns="{relationships}"><Relationship Id="rId1" '
            f'Type="{office}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        )
        archive.writestr("xl/worksheets/sheet1.xml", sheet_xml)
    return buffer.getvalue()


def worksheet(rows: str, prefix: str = "", before: str = "") -> str:
    tag = f"{prefix}:" if prefix else ""
    namespace = f"xmlns:{prefix}" if prefix else "xmlns"
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><{tag}worksheet {namespace}="{MAIN}">{before}'
        f"<{tag}sheetData>{rows}</{tag}sheetData></{tag}worksheet>"
    )


def scan_of(data: bytes, limits: WorkbookLimits = LIMITS, name: str = "S") -> SheetMeta:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return read_meta(archive, limits, [name])[name]


def calamine_extent(data: bytes, name: str = "S") -> tuple[int, int] | None:
    """Rows and columns calamine allocates for the sheet (from A1), None when it cannot read
    it."""
    try:
        with CalamineWorkbook.from_filelike(io.BytesIO(data)) as workbook:
            end = workbook.get_sheet_by_name(name).end
    except Exception:  # calamine's errors have no common base
        return None
    return (end[0] + 1, end[1] + 1) if end is not None else (0, 0)


@pytest.mark.parametrize(
    "sheet_xml",
    [
        worksheet('<x:row r="1"><x:c r="A1"><x:v>1</x:v></x:c></x:row>'
                  '<x:row r="5"><x:c r="D5"><x:v>2</x:v></x:c></x:row>', prefix="x"),
        worksheet('<ns0:row r="1"><ns0:c><ns0:v>1</ns0:v></ns0:c><ns0:c r="c3"><ns0:v>1</ns0:v>'
                  "</ns0:c></ns0:row>", prefix="ns0"),
        worksheet('<row r="1"><c r="a1"><v>1</v></c><c r="d7"><v>2</v></c></row>'),
        worksheet('<row r="1"><c r="aB1"><v>1</v></c></row>'),
        worksheet('<row r="1"><c><v>1</v></c><c><v>2</v></c><c><v>3</v></c></row>'),
        worksheet("<row><c><v>1</v></c></row><row><c><v>2</v></c></row>"
                  "<row><c><v>3</v></c><c><v>4</v></c></row>"),
        worksheet('<row r="5"><c><v>1</v></c></row><row><c><v>2</v></c></row>'),
        worksheet('<row r="1"><c r="E1"><v>1</v></c><c><v>2</v></c></row>'),
        worksheet('<row r="3"><c r="B9"><v>1</v></c><c><v>2</v></c></row>'),
        worksheet('<row r="2"><c r="A9"><v>1</v></c></row><row><c><v>2</v></c></row>'),
        worksheet('<row r="4"/><row><c/><c/><c><v>1</v></c></row>'),
        worksheet('<row r="1"><c r="H1"><v>1</v></c><c r="B1"><v>1</v></c><c><v>1</v></c></row>'),
        worksheet('<x:row r="1" xmlns:x="urn:other"><x:c r="A1"><x:v>1</x:v></x:c><c><v>2</v>'
                  '</c><y:c xmlns:y="urn:y" r="d4"><v>3</v></y:c></x:row>'),
        worksheet('<row r="1"><c r="A1"><v>1</v></c></row>', before='<dimension ref="A1:XFD1048576"/>'),
        worksheet('<row r="1"><c r="A1"><v>1</v></c></row><row r="9"><c r="H9"><v>1</v></c></row>',
                  before='<dimension ref="A1:B2"/>'),
        worksheet("<row r='1'><c t='n' s='0' r='G2'><v>1</v></c></row>"),
        worksheet('<row r = "1"><c r = "C4" ><v>1</v></c></row>'),
        worksheet('<row\tr="1"><c\r\nr="C3"><v>2</v></c></row>'),
        worksheet('<row r="1"><c foo="a>b" r="C3"><v>1</v></c><c><v>1</v></c></row>'),
        worksheet('<row r="1"><c r="A1" r="D4"><v>1</v></c></row>'),
        worksheet('<row r="1"><c r="A1" r=\'D4\'><v>1</v></c><c r="B1" r = "E2"><v>1</v></c></row>'),
        worksheet('<row r="1"><c r="B2" t="inlineStr"><is><t>x</t></is></c><c><is><r><t>y</t></r>'
                  "</is></c></row>"),
        worksheet('<row r="1"><c r="B2"><f>1+1</f><v>2</v></c><c><f t="shared" si="0"/><v>2</v>'
                  "</c></row>"),
    ],
    ids=[
        "prefixed-x", "prefixed-ns0-mixed-r", "lower-case", "mixed-case", "cells-without-r",
        "rows-without-r", "row-without-r-after-one-with", "cell-without-r-after-one-with",
        "cell-beyond-its-row-then-one-without", "row-without-r-after-a-cell-beyond",
        "empty-row-and-cells-without-r", "cells-out-of-order", "foreign-prefixes-mixed",
        "dimension-far-beyond", "dimension-short-of-the-cells", "single-quotes-r-last",
        "spaces-around-equals", "tab-and-newline-before-r", "gt-in-a-value", "r-twice",
        "r-twice-quoted-otherwise",
        "inline-strings", "formulas",
    ],
)  # fmt: skip
def test_the_extent_is_what_calamine_allocates(sheet_xml: str) -> None:
    data = handmade(sheet_xml)
    meta = scan_of(data)
    assert meta.unbounded is None
    assert (meta.max_row, meta.max_column) == calamine_extent(data)


@pytest.mark.parametrize(
    "sheet_xml",
    [
        worksheet('<row r="1"><c r="xfd1048576"><v>1</v></c></row>'),
        worksheet('<x:row r="1"><x:c r="XFD1"><x:v>1</x:v></x:c></x:row>'
                  '<x:row r="1048576"><x:c><x:v>1</x:v></x:c></x:row>', prefix="x"),
        worksheet('<row r="1048576"><c r="A1"><v>1</v></c>' + "<c/>" * 16_383 + "<c><v>1</v></c></row>"),
        worksheet('<row r="1"><c r="A1"><v>1</v></c><c t="n" r="XFD1048576"><v>1</v></c></row>'),
    ],
    ids=["lower-case", "prefixed-row-without-cells-r", "cells-without-r-to-xfd", "r-not-first"],
)  # fmt: skip
def test_a_far_cell_written_any_way_is_refused_before_calamine_loads_it(sheet_xml: str) -> None:
    data = handmade(sheet_xml)
    meta = scan_of(data)
    assert (meta.max_row, meta.max_column) == (1_048_576, 16_385 if "<c/>" in sheet_xml else 16_384)
    # calamine would ask for a rectangle of seventeen billion cells: never let it load.
    with pytest.raises(RecognitionError) as caught:
        recognize(LIMITS, FileType.XLSX, data, "book.xlsx")
    assert "занимает 1048576 строк" in caught.value.message


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        ('<row r="1"><c r="A1"><v>1</v></c><!-- <c> --><c><v>2</v></c></row>', "комментарий"),
        ('<row r="1"><c><is><t><![CDATA[<c>]]></t></is></c></row>', "CDATA"),
        ('<row r="1"><c foo="<row>"><v>1</v></c></row>', "не закрыт"),
        ('<row r="1"><c foo="open><v>1</v></c></row>', "не закрыт"),
        ("<row r=\"1\"><c><v>1</c><c><v>2</v></c></v></c></row>", "значения ячейки"),
        ('<row r="1"><c><v>1</v><row r="1"/></c><c/></row>', "вложенный"),
        ('<row r="1"><c><is><t>x</t><c/></is></c></row>', "строки ячейки"),
        ('<row r="-1"><c><v>1</v></c></row>', "номер строки"),
        ('<row r="1"><c t="n"><v>1</v></c><c r="1A"><v>1</v></c></row>', "адрес ячейки"),
    ],
    ids=["comment", "cdata", "lt-in-a-value", "unclosed-quote", "cell-end-inside-a-value",
         "row-inside-a-cell", "cell-inside-a-string", "bad-row-number", "bad-reference"],
)  # fmt: skip
def test_xml_calamine_may_read_otherwise_fails_closed(rows: str, reason: str) -> None:
    meta = scan_of(handmade(worksheet(rows)))
    assert meta.unbounded is not None
    assert reason in meta.unbounded
    assert not meta.fits(LIMITS)


def test_a_sheet_of_unknown_extent_is_skipped_with_its_reason_and_the_rest_recognised() -> None:
    # A cell without a reference is placed by following the tags; a comment stops that.
    def by_hand(body: bytes) -> bytes:
        body = body.replace(b"<sheetData>", b"<!-- written by hand --><sheetData>", 1)
        return body.replace(b'<c r="A1"', b"<c", 1)

    data = books.rewrite_zip(
        books.xlsx([books.general_osv(name="ОСВ"), Sheet("Прочее", rows=[["x"]])]),
        edit=lambda name, body: by_hand(body) if name == "xl/worksheets/sheet2.xml" else body,
    )
    recognition = recognize(LIMITS, FileType.XLSX, data, "book.xlsx")
    assert [d.locator.sheet for d in recognition.documents] == ["ОСВ"]
    (warning,) = [w for w in recognition.warnings if w.code == "SHEET_TOO_LARGE"]
    assert warning.locator == Locator(sheet="Прочее")
    assert "размер не определить до чтения (комментарий" in warning.message


def with_sheet_xml(package: bytes, xml: bytes) -> bytes:
    return books.rewrite_zip(package, edit=lambda name, part: xml if name == SHEET_XML else part)


def _layouts(xml: bytes) -> dict[str, bytes]:
    """The sheet as other writers lay it out: prefixed, without references, in lower case."""
    prefixed = re.sub(
        rb"<(/?)(worksheet|sheetData|row|c|v|f|dimension|cols|col)\b", rb"<\1x:\2", xml
    )
    return {
        "plain": xml,
        "prefixed": prefixed.replace(b"<x:worksheet xmlns=", b"<x:worksheet xmlns:x=", 1),
        "no-references": re.sub(rb' r="[A-Z]+[0-9]+"', b"", xml),
        "lower-case": re.sub(rb' r="([A-Z]+[0-9]+)"', lambda m: b' r="' + m[1].lower() + b'"', xml),
        "rows-unnumbered": re.sub(rb'<row r="[0-9]+"', b"<row", xml),
    }  # fmt: skip


@pytest.mark.parametrize("layout", ["plain", "prefixed", "no-references", "lower-case", "rows-unnumbered"])  # fmt: skip
def test_mangled_xml_is_bounded_or_fails_closed(layout: str) -> None:
    # Random damage to the sheet XML: whatever calamine still reads must lie within the extent
    # the scan gives, or the scan must refuse the sheet.
    limits = WorkbookLimits(max_cells=1_000_000)
    package = books.xlsx([SHEET])
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        xml = _layouts(archive.read(SHEET_XML))[layout]
    start = xml.index(b"sheetData")
    rng = random.Random(layout)
    alphabet = b"<>=\"' /:xrowcsvAZaz09\n\t"
    outcomes = {"bounded": 0, "refused": 0, "unread by calamine": 0}
    for _ in range(150):
        body = bytearray(xml)
        for _ in range(rng.randrange(1, 6)):
            at = rng.randrange(start, len(body))
            edit = rng.random()
            if edit < 0.5:
                body[at] = rng.choice(alphabet)
            elif edit < 0.75:
                body.insert(at, rng.choice(alphabet))
            else:
                del body[at]
        data = with_sheet_xml(package, bytes(body))
        meta = scan_of(data, limits, "ОСВ")
        if not meta.fits(limits):
            outcomes["refused"] += 1
            continue
        extent = calamine_extent(data, "ОСВ")
        if extent is None:
            outcomes["unread by calamine"] += 1
            continue
        assert extent[0] <= meta.max_row and extent[1] <= meta.max_column, bytes(body)
        outcomes["bounded"] += 1
    assert all(outcomes.values()), outcomes


def test_the_expression_for_a_numeral_beyond_matches_exactly_the_greater_ones() -> None:
    # The whole bound rests on it: one search per chunk for an r value past the furthest one.
    for value in (0, 1, 9, 10, 99, 100, 54_321, 100_008):
        above = re.compile(xlsx_meta._above(str(value).encode(), b"[0-9]", b"9"))
        for number in range(120_000):
            assert (above.fullmatch(str(number).encode()) is not None) is (number > value)
    names = [
        letters
        for size in (1, 2)
        for letters in itertools.product(string.ascii_uppercase, repeat=size)
    ]
    for value in ("", "A", "H", "Z", "AZ", "ZZ"):
        above = re.compile(b"(?i:" + xlsx_meta._above(value.encode(), b"[A-Z]", b"Z") + b")")
        for name in map("".join, names):
            expected = xlsx_meta.column_number(name) > xlsx_meta.column_number(value)
            for written in (name, name.lower()):
                assert (above.fullmatch(written.encode()) is not None) is expected
