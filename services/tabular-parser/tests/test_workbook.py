"""Workbooks into documents with the real extraction library, and every hostile or broken
file into an error code: the recognizer as the sandboxed child runs it."""

from __future__ import annotations

import io
import os
import time
import zipfile
from typing import Any
from uuid import uuid4

import pytest

from recognition_contract import ErrorCode, FileType, Locator, ServiceInfo, TrialBalance
from recognition_worker import Recognition, RecognitionError, result_file_payload
from tabular_parser import testing as books
from tabular_parser.limits import WorkbookLimits
from tabular_parser.recognize import recognize
from tabular_parser.sniff import OLE2_MAGIC
from tabular_parser.testing import Sheet
from tabular_parser.xls_meta import read_xls_meta
from tabular_parser.xlsx_meta import is_code_format, read_meta

LIMITS = WorkbookLimits()
SERVICE = ServiceInfo(name="tabular-parser", version="test")


def recognised(
    data: bytes, file_type: FileType = FileType.XLSX, limits: WorkbookLimits = LIMITS
) -> Recognition:
    recognition = recognize(limits, file_type, data, "book")
    # Whatever comes out must make a valid result file of both MAJORs.
    for version in ("2.0", "1.0"):
        result_file_payload(
            job_id=uuid4(),
            file_id=uuid4(),
            service=SERVICE,
            recognition=recognition,
            version=version,
        )
    return recognition


def failure(
    data: bytes, file_type: FileType = FileType.XLSX, limits: WorkbookLimits = LIMITS
) -> RecognitionError:
    with pytest.raises(RecognitionError) as caught:
        recognize(limits, file_type, data, "book")
    return caught.value


def codes_of(recognition: Recognition) -> list[str]:
    return [w.code for w in recognition.warnings]


@pytest.mark.parametrize(
    ("file_type", "write"),
    [
        (FileType.XLSX, books.xlsx),
        (FileType.XLSX, lambda sheets: books.xlsx(sheets, capital_shared_strings=True)),
        (FileType.XLS, books.xls),
        (FileType.XLSB, books.xlsb),
    ],
    ids=["xlsx", "xlsx-1c-SharedStrings", "xls", "xlsb"],
)
def test_general_trial_balance_in_every_format(file_type: FileType, write: Any) -> None:
    sheet = books.general_osv(accounts=6, subaccounts=2)
    recognition = recognised(write([sheet]), file_type)
    assert recognition.status == "done"
    assert recognition.group_schema == "BY-50-2011"
    assert recognition.metrics == {"sheets": 1}
    (document,) = recognition.documents
    assert isinstance(document, TrialBalance)
    assert document.variant == "general"
    rows = document.rows
    lines = books.trial_balance_lines(6, 2)
    assert [r.code for r in rows] == [line.code for line in lines]
    assert [r.level for r in rows] == [line.level for line in lines]
    first, child = rows[0], rows[1]
    assert (first.code, first.parent, child.code, child.parent) == (
        "01",
        None,
        "01.1",
        first.id,
    )
    opening = lines[0].opening
    side = "opening_debit" if opening > 0 else "opening_credit"
    assert getattr(first, side) == f"{abs(opening) / 100:.2f}"
    assert first.locator == Locator(sheet="ОСВ", row=books.HEADER_ROWS + 1)
    assert document.totals is not None
    assert document.totals.opening_debit == document.totals.opening_credit


def test_1c_shared_strings_spelling_is_what_the_package_holds() -> None:
    data = books.xlsx([books.general_osv()], capital_shared_strings=True)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
    assert "xl/SharedStrings.xml" in names
    assert "xl/sharedStrings.xml" not in names
    assert recognised(data).documents[0].rows[0].code == "01"


@pytest.mark.parametrize(
    ("file_type", "write"), [(FileType.XLSX, books.xlsx), (FileType.XLS, books.xls)]
)
def test_code_display_formats_of_cells_restore_the_code(file_type: FileType, write: Any) -> None:
    sheet = books.general_osv(accounts=3, subaccounts=0)
    body = books.HEADER_ROWS
    sheet.rows[body][0] = 94
    sheet.formats[(body, 0)] = '00".Н"'
    sheet.rows[body + 1][0] = 8
    sheet.formats[(body + 1, 0)] = "00"
    codes = [r.code for r in recognised(write([sheet]), file_type).documents[0].rows]
    assert codes[:2] == ["94.Н", "08"]


@pytest.mark.parametrize(
    ("file_type", "write"), [(FileType.XLSX, books.xlsx), (FileType.XLS, books.xls)]
)
def test_outline_levels_put_subconto_rows_under_their_account(
    file_type: FileType, write: Any
) -> None:
    sheet = books.general_osv(accounts=2, subaccounts=0)
    body = books.HEADER_ROWS
    parent = sheet.rows[body]
    # Two counterparties under the first account, one outline level down, summing to it.
    half = [None if v is None else round(float(v) / 2, 2) for v in parent[2:]]
    rest = [
        None if v is None or h is None else round(float(v) - h, 2)
        for v, h in zip(parent[2:], half, strict=True)
    ]
    sheet.rows[body + 1 : body + 1] = [[None, "ООО «Альфа»", *half], [None, "ООО «Бета»", *rest]]
    sheet.outline = {body + 1: 1, body + 2: 1}
    rows = recognised(write([sheet]), file_type).documents[0].rows
    account, alpha, beta = rows[0], rows[1], rows[2]
    assert (alpha.kind, alpha.name, alpha.parent, alpha.level) == (
        "subconto",
        "ООО «Альфа»",
        account.id,
        1,
    )
    assert beta.parent == account.id


def test_every_sheet_with_a_table_is_a_document_and_the_rest_is_noted() -> None:
    data = books.xlsx(
        [books.general_osv(name="ОСВ"), books.text_sheet(), books.general_osv(name="ОСВ 2")]
    )
    recognition = recognised(data)
    assert [d.locator.sheet for d in recognition.documents] == ["ОСВ", "ОСВ 2"]
    assert "SHEET_SKIPPED" in codes_of(recognition)
    assert recognition.metrics == {"sheets": 3}


def test_hidden_sheets_are_not_read() -> None:
    hidden = books.general_osv(name="Скрытый")
    hidden.hidden = True
    recognition = recognised(books.xlsx([hidden, books.general_osv(name="ОСВ")]))
    assert [d.locator.sheet for d in recognition.documents] == ["ОСВ"]
    assert recognition.metrics == {"sheets": 1}


def test_a_renamed_workbook_is_read_by_its_content() -> None:
    recognition = recognised(books.xls([books.general_osv()]), FileType.XLSX)
    assert recognition.status == "done"
    (warning,) = [w for w in recognition.warnings if w.code == "FILE_TYPE_MISMATCH"]
    assert warning.severity == "info"
    assert "XLS" in warning.message


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _broken_sheet_xml(data: bytes) -> bytes:
    return books.rewrite_zip(
        data,
        edit=lambda name, body: (
            body[: len(body) // 2] + b"<<<garbage" if name.startswith("xl/worksheets/") else body
        ),
    )


def _docx() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    return buffer.getvalue()


def _word_ole2() -> bytes:
    # An OLE2 container whose directory names a WordDocument stream and no Workbook.
    return OLE2_MAGIC + bytes(504) + "WordDocument".encode("utf-16-le") + bytes(1024)


OSV = [books.general_osv()]
HOSTILE: list[tuple[str, Any, FileType, ErrorCode, str]] = [
    ("empty-file", lambda: b"", FileType.XLSX, ErrorCode.INVALID_FORMAT, "пуст"),
    ("pdf-as-xlsx", lambda: b"%PDF-1.7\n...", FileType.XLSX, ErrorCode.INVALID_FORMAT, "PDF"),
    (
        "html-as-xls",
        lambda: b"<html><body><table><tr><td>1</td></tr></table></body></html>",
        FileType.XLS,
        ErrorCode.INVALID_FORMAT,
        "HTML",
    ),
    (
        "csv-as-xlsx",
        lambda: "Счет;Сумма\n01;1\n".encode(),
        FileType.XLSX,
        ErrorCode.INVALID_FORMAT,
        "текст",
    ),
    ("random-binary", lambda: os.urandom(4096), FileType.XLSB, ErrorCode.INVALID_FORMAT, "Excel"),
    ("docx-as-xlsx", _docx, FileType.XLSX, ErrorCode.INVALID_FORMAT, "Word"),
    (
        "truncated-xlsx",
        lambda: _truncated(books.xlsx(OSV)),
        FileType.XLSX,
        ErrorCode.UNREADABLE,
        "повреждена",
    ),
    (
        "truncated-xls",
        lambda: _truncated(books.xls(OSV)),
        FileType.XLS,
        ErrorCode.UNREADABLE,
        "повреждена",
    ),
    ("word-as-xls", _word_ole2, FileType.XLS, ErrorCode.INVALID_FORMAT, "Word"),
    (
        "truncated-xlsb",
        lambda: _truncated(books.xlsb(OSV)),
        FileType.XLSB,
        ErrorCode.UNREADABLE,
        "повреждена",
    ),
    (
        "broken-sheet-xml",
        lambda: _broken_sheet_xml(books.xlsx(OSV)),
        FileType.XLSX,
        ErrorCode.UNREADABLE,
        "лист",
    ),
    (
        "encrypted-xlsx",
        lambda: books.encrypted_xlsx(books.xlsx(OSV), "пароль"),
        FileType.XLSX,
        ErrorCode.PASSWORD_PROTECTED,
        "защищена паролем",
    ),
    (
        "encrypted-xls",
        lambda: books.encrypted_xls(books.xls(OSV)),
        FileType.XLS,
        ErrorCode.PASSWORD_PROTECTED,
        "защищена паролем",
    ),
    (
        "zip-bomb",
        lambda: books.zip_bomb_xlsx(books.xlsx(OSV), 64 * 1024**2),
        FileType.XLSX,
        ErrorCode.UNREADABLE,
        "zip-бомб",
    ),
    (
        "lying-zip-sizes",
        lambda: books.lying_sizes_xlsx(books.xlsx(OSV)),
        FileType.XLSX,
        ErrorCode.UNREADABLE,
        "повреждена",
    ),
    ("sparse-a1-xfd1048576", books.sparse_xlsx, FileType.XLSX, ErrorCode.UNREADABLE, "ячеек"),
    (
        "empty-workbook",
        lambda: books.xlsx([Sheet("Лист1", rows=[])]),
        FileType.XLSX,
        ErrorCode.INVALID_DOCUMENT,
        "нет данных",
    ),
    (
        "no-table",
        lambda: books.xlsx([books.text_sheet()]),
        FileType.XLSX,
        ErrorCode.RECOGNITION_FAILED,
        "ни ОСВ, ни выписки",
    ),
]


@pytest.mark.parametrize(
    ("make", "file_type", "code", "text"),
    [case[1:] for case in HOSTILE],
    ids=[case[0] for case in HOSTILE],
)
def test_hostile_or_broken_file_becomes_an_error_code(
    make: Any, file_type: FileType, code: ErrorCode, text: str
) -> None:
    started = time.monotonic()
    error = failure(make(), file_type)
    assert error.code is code, error.message
    assert text in error.message
    assert time.monotonic() - started < 10


def test_package_over_the_unpacked_cap_is_refused_before_reading() -> None:
    limits = WorkbookLimits(max_uncompressed_bytes=2 * 1024**2)
    data = books.rewrite_zip(books.xlsx(OSV), extra={"xl/media/photo.bin": os.urandom(3 * 1024**2)})
    error = failure(data, limits=limits)
    assert error.code is ErrorCode.UNREADABLE
    assert "распакованном виде больше 2 МиБ" in error.message


def test_a_sheet_too_large_to_load_is_skipped_and_the_rest_recognised() -> None:
    sparse = books.sparse_xlsx()
    osv = books.xlsx([books.general_osv(name="ОСВ")])
    # Put the sparse sheet's XML into the trial balance's book as a second sheet.
    with zipfile.ZipFile(io.BytesIO(sparse)) as archive:
        sheet_xml = archive.read("xl/worksheets/sheet1.xml")
    data = books.rewrite_zip(
        books.xlsx([books.general_osv(name="ОСВ"), Sheet("Разреженный", rows=[["x"]])]),
        edit=lambda name, body: sheet_xml if name == "xl/worksheets/sheet2.xml" else body,
    )
    assert data != osv
    recognition = recognised(data)
    assert recognition.status == "needs_check"
    assert [d.locator.sheet for d in recognition.documents] == ["ОСВ"]
    (warning,) = [w for w in recognition.warnings if w.code == "SHEET_TOO_LARGE"]
    assert warning.locator == Locator(sheet="Разреженный")
    assert warning.severity == "warning"


def test_rows_and_columns_beyond_the_limits_are_not_read() -> None:
    limits = WorkbookLimits(max_rows=200, max_columns=64)
    data = books.xlsx(
        [books.general_osv(), books.long_sheet(500), books.wide_sheet(columns=16_384, rows=3)],
        constant_memory=True,
    )
    started = time.monotonic()
    recognition = recognised(data, limits=limits)
    assert time.monotonic() - started < 10
    assert recognition.status == "needs_check"
    truncated = {
        w.locator.sheet: w.message for w in recognition.warnings if w.code == "SHEET_TRUNCATED"
    }
    assert "500 строк; прочитаны первые 200" in truncated["Длинный"]
    assert "16384 столбцов; прочитаны первые 64" in truncated["Широкий"]
    assert recognition.documents[0].locator.sheet == "ОСВ"


def test_too_many_sheets_are_cut_with_a_warning() -> None:
    limits = WorkbookLimits(max_sheets=2)
    data = books.xlsx([books.general_osv(name=f"ОСВ {n}") for n in range(3)])
    recognition = recognised(data, limits=limits)
    assert len(recognition.documents) == 2
    assert "SHEETS_SKIPPED" in codes_of(recognition)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("00", True),
        ('00".Н"', True),
        ('0"/1"', True),
        ("000", True),
        ("0", False),
        ("General", False),
        ("@", False),
        ("#,##0.00", False),
        ("0.00", False),
        ("dd.mm.yyyy", False),
        ("0%", False),
        ("#,##0.00;[Red]-#,##0.00", False),
    ],
)
def test_only_formats_that_change_how_a_code_reads_are_kept(code: str, expected: bool) -> None:
    assert is_code_format(code) is expected


def test_xlsx_scan_reads_levels_and_code_formats_but_not_shared_strings() -> None:
    sheet = books.general_osv(accounts=2, subaccounts=2)
    data = books.xlsx([sheet], capital_shared_strings=True)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        meta = read_meta(archive, LIMITS, ["ОСВ"])["ОСВ"]
    assert meta.outline_levels == sheet.outline
    assert meta.number_formats == {
        key: fmt for key, fmt in sheet.formats.items() if fmt == books.CODE_FORMAT
    }
    assert meta.max_row == len(sheet.rows)


def test_xls_records_give_levels_and_code_formats() -> None:
    sheet = books.general_osv(accounts=2, subaccounts=2)
    meta = read_xls_meta(books.xls([sheet, books.text_sheet()]), ["ОСВ"])
    assert list(meta) == ["ОСВ"]
    assert meta["ОСВ"].outline_levels == sheet.outline
    assert meta["ОСВ"].number_formats == {
        key: fmt for key, fmt in sheet.formats.items() if fmt == books.CODE_FORMAT
    }


@pytest.mark.parametrize(
    "data",
    [
        books.encrypted_xls(books.xls([books.general_osv()])),
        books.xls([books.general_osv()])[:3000],
        b"\xd0\xcf\x11\xe0 not really",
    ],
    ids=["encrypted", "truncated", "not-ole2"],
)
def test_xls_hints_of_a_book_that_cannot_be_followed_are_empty(data: bytes) -> None:
    assert read_xls_meta(data, ["ОСВ"]) == {}


def test_times_and_durations_become_text() -> None:
    import datetime

    import xlsxwriter

    from tabular_parser import workbook
    from tabular_parser.sniff import sniff

    buffer = io.BytesIO()
    with xlsxwriter.Workbook(buffer) as book:
        sheet = book.add_worksheet("Время")
        sheet.write_row(0, 0, ["Дата", "Начало", "Длительность", "Сумма"])
        sheet.write_datetime(
            1, 0, datetime.datetime(2025, 1, 31), book.add_format({"num_format": "dd.mm.yyyy"})
        )
        sheet.write_datetime(1, 1, datetime.time(9, 30), book.add_format({"num_format": "hh:mm"}))
        sheet.write_number(1, 2, 1.5, book.add_format({"num_format": "[h]:mm:ss"}))
        sheet.write_number(1, 3, 10.25)
    data = buffer.getvalue()
    (grid,) = workbook.read_workbook(data, sniff(data), LIMITS).grids
    assert list(grid.rows[1]) == [datetime.date(2025, 1, 31), "09:30:00", "1 day, 12:00:00", 10.25]
    assert all(type(v) in (str, float, datetime.date) for row in grid.rows for v in row)
