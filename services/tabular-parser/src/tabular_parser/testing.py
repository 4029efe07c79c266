"""Workbooks for tests and benchmarks: balanced trial balances laid out as 1C exports them, in
XLSX, XLS and XLSB, and the hostile files a service must survive. Needs the ``testing`` extra
(xlsxwriter, xlwt, pyxlsbwriter, msoffcrypto-tool, olefile)."""

from __future__ import annotations

import io
import os
import random
import re
import struct
import tempfile
import zipfile
from dataclasses import dataclass, field
from typing import Any

Cell = str | int | float | None

ACCOUNTS = (
    (1, "Основные средства"),
    (2, "Амортизация основных средств"),
    (8, "Вложения в долгосрочные активы"),
    (10, "Материалы"),
    (20, "Основное производство"),
    (41, "Товары"),
    (50, "Касса"),
    (51, "Расчетные счета"),
    (60, "Расчеты с поставщиками и подрядчиками"),
    (62, "Расчеты с покупателями и заказчиками"),
    (68, "Расчеты по налогам и сборам"),
    (69, "Расчеты по социальному страхованию"),
    (70, "Расчеты с персоналом по оплате труда"),
    (71, "Расчеты с подотчетными лицами"),
    (76, "Расчеты с разными дебиторами и кредиторами"),
    (80, "Уставный капитал"),
    (90, "Доходы и расходы по текущей деятельности"),
    (91, "Прочие доходы и расходы"),
    (97, "Расходы будущих периодов"),
    (99, "Прибыли и убытки"),
)
BALANCING = (84, "Нераспределенная прибыль (непокрытый убыток)")
CODE_FORMAT = "00"
MONEY_FORMAT = "#,##0.00"
HEADER_ROWS = 6


@dataclass
class Sheet:
    name: str
    rows: list[list[Cell]]
    formats: dict[tuple[int, int], str] = field(default_factory=dict)
    outline: dict[int, int] = field(default_factory=dict)
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)
    hidden: bool = False


@dataclass(frozen=True)
class Line:
    code: str
    name: str
    level: int
    opening: int
    debit: int
    credit: int
    """Amounts in kopecks; opening is net (debit positive)."""

    @property
    def closing(self) -> int:
        return self.opening + self.debit - self.credit


def _split(net: int) -> tuple[int, int]:
    return (net, 0) if net > 0 else (0, -net)


def _money(kopecks: int) -> float | None:
    return round(kopecks / 100, 2) if kopecks else None


def trial_balance_lines(accounts: int, subaccounts: int, *, seed: int = 1) -> list[Line]:
    """Balanced lines: parents sum their children, debit totals equal credit totals."""
    rng = random.Random(seed)  # noqa: S311 (test data, reproducible by seed)
    lines: list[Line] = []
    total_opening = total_debit = total_credit = 0
    for index in range(accounts):
        number, name = ACCOUNTS[index % len(ACCOUNTS)]
        code = f"{number:02d}" if index < len(ACCOUNTS) else f"{number:02d}{index // 20}"
        children = [
            Line(
                f"{code}.{child + 1}",
                f"{name}, субсчет {child + 1}",
                1,
                rng.randint(-5_000_000, 5_000_000),
                rng.randint(0, 3_000_000),
                rng.randint(0, 3_000_000),
            )
            for child in range(subaccounts)
        ]
        if children:
            parent = Line(
                code,
                name,
                0,
                sum(c.opening for c in children),
                sum(c.debit for c in children),
                sum(c.credit for c in children),
            )
        else:
            parent = Line(code, name, 0, rng.randint(-5_000_000, 5_000_000), 0, 0)
        lines += [parent, *children]
        total_opening += parent.opening
        total_debit += parent.debit
        total_credit += parent.credit
    number, name = BALANCING
    lines.append(
        Line(
            f"{number:02d}",
            name,
            0,
            -total_opening,
            max(0, total_credit - total_debit),
            max(0, total_debit - total_credit),
        )
    )
    return lines


def general_osv(
    accounts: int = 6, subaccounts: int = 2, *, seed: int = 1, name: str = "ОСВ"
) -> Sheet:
    """A general trial balance as 1C writes it: title lines, a two-row header with merged
    captions, numeric top-level codes shown through ``00``, sub-accounts one outline level
    down, ``Итого`` at the end."""
    sheet = Sheet(name=name, rows=[])
    rows = sheet.rows
    rows.append(["ООО «Промтехснаб»"])
    rows.append(["Оборотно-сальдовая ведомость"])
    rows.append(["Период: 1 квартал 2024 г."])
    rows.append(["Выводимые данные: БУ (данные бухгалтерского учета)"])
    rows.append(
        [
            "Счет",
            "Наименование счета",
            "Сальдо на начало периода",
            None,
            "Обороты за период",
            None,
            "Сальдо на конец периода",
            None,
        ]
    )
    rows.append([None, None, "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"])
    sheet.merges += [(4, 2, 4, 3), (4, 4, 4, 5), (4, 6, 4, 7)]
    totals = [0] * 6
    for line in trial_balance_lines(accounts, subaccounts, seed=seed):
        r = len(rows)
        opening = _split(line.opening)
        closing = _split(line.closing)
        amounts = [*opening, line.debit, line.credit, *closing]
        code: Cell = line.code
        if line.level == 0 and line.code.isdigit():
            code = int(line.code)
            sheet.formats[(r, 0)] = CODE_FORMAT
        else:
            sheet.outline[r] = line.level
        rows.append([code, line.name, *(_money(a) for a in amounts)])
        for c in range(2, 8):
            sheet.formats[(r, c)] = MONEY_FORMAT
        if line.level == 0:
            totals = [t + a for t, a in zip(totals, amounts, strict=True)]
    rows.append(["Итого", None, *(_money(t) for t in totals)])
    return sheet


def text_sheet(name: str = "Заметки") -> Sheet:
    return Sheet(name=name, rows=[["Просто текст"], ["без таблицы", "и без сумм"], [None, "…"]])


def xlsx(
    sheets: list[Sheet], *, capital_shared_strings: bool = False, constant_memory: bool = False
) -> bytes:
    """Through xlsxwriter. ``constant_memory`` writes inline strings (large books quickly);
    ``capital_shared_strings`` makes the 1C quirk ``xl/SharedStrings.xml``."""
    import xlsxwriter  # type: ignore[import-untyped]

    buffer = io.BytesIO()
    workbook = xlsxwriter.Workbook(buffer, {"in_memory": True, "constant_memory": constant_memory})
    styles: dict[str, Any] = {}

    def style(fmt: str | None) -> Any:
        if fmt is None:
            return None
        if fmt not in styles:
            styles[fmt] = workbook.add_format({"num_format": fmt})
        return styles[fmt]

    for sheet in sheets:
        ws = workbook.add_worksheet(sheet.name)
        merged = {(r, c) for r, c, _, _ in sheet.merges}
        for r, row in enumerate(sheet.rows):
            if r in sheet.outline:
                ws.set_row(r, None, None, {"level": sheet.outline[r]})
            for c, value in enumerate(row):
                if value is None or (r, c) in merged:
                    continue
                ws.write(r, c, value, style(sheet.formats.get((r, c))))
        for r0, c0, r1, c1 in sheet.merges:
            ws.merge_range(r0, c0, r1, c1, sheet.rows[r0][c0])
        if sheet.hidden:
            ws.hide()
    visible = [
        ws for ws, sheet in zip(workbook.worksheets(), sheets, strict=True) if not sheet.hidden
    ]
    if visible:
        visible[0].activate()  # Excel cannot show a book whose active sheet is hidden
    workbook.close()
    data = buffer.getvalue()
    return capitalise_shared_strings(data) if capital_shared_strings else data


def capitalise_shared_strings(data: bytes) -> bytes:
    """What 1C writes: ``xl/SharedStrings.xml`` (openpyxl cannot open such a book)."""
    return rewrite_zip(
        data,
        rename={"xl/sharedStrings.xml": "xl/SharedStrings.xml"},
        edit=lambda name, body: (
            body.replace(b"sharedStrings.xml", b"SharedStrings.xml")
            if name in ("[Content_Types].xml", "xl/_rels/workbook.xml.rels")
            else body
        ),
    )


def rewrite_zip(
    data: bytes,
    *,
    rename: dict[str, str] | None = None,
    edit: Any = None,
    extra: dict[str, bytes] | None = None,
) -> bytes:
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for name in source.namelist():
            body = source.read(name)
            if edit is not None:
                body = edit(name, body)
            target.writestr((rename or {}).get(name, name), body)
        for name, body in (extra or {}).items():
            target.writestr(name, body)
    return out.getvalue()


def xls(sheets: list[Sheet]) -> bytes:
    import xlwt

    workbook = xlwt.Workbook(encoding="utf-8")
    styles: dict[str, Any] = {}

    def style(fmt: str | None) -> Any:
        key = fmt or "General"
        if key not in styles:
            styles[key] = xlwt.easyxf(num_format_str=key)
        return styles[key]

    for sheet in sheets:
        ws = workbook.add_sheet(sheet.name, cell_overwrite_ok=True)
        for r, row in enumerate(sheet.rows):
            for c, value in enumerate(row):
                if value is not None:
                    ws.write(r, c, value, style(sheet.formats.get((r, c))))
        for r, level in sheet.outline.items():
            ws.row(r).level = level
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def xlsb(sheets: list[Sheet]) -> bytes:
    """Values only: pyxlsbwriter writes no formats, outline levels or merges."""
    from pyxlsbwriter import XlsbWriter

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "book.xlsb")
        with XlsbWriter(path) as writer:
            for sheet in sheets:
                width = max((len(row) for row in sheet.rows), default=1)
                writer.add_sheet(sheet.name)
                writer.write_sheet([row + [None] * (width - len(row)) for row in sheet.rows])
        with open(path, "rb") as file:
            return file.read()


# Hostile and broken files.


def encrypted_xlsx(plain: bytes, password: str) -> bytes:
    """A password-protected XLSX: the package encrypted inside an OLE2 file (Agile)."""
    from msoffcrypto.format.ooxml import OOXMLFile  # type: ignore[import-untyped]

    out = io.BytesIO()
    OOXMLFile(io.BytesIO(plain)).encrypt(password, out)
    return out.getvalue()


def encrypted_xls(plain: bytes) -> bytes:
    """An XLS whose workbook stream starts with an RC4 FILEPASS record, as Excel writes a
    password-protected book (the records after it are not really encrypted: no reader may
    get that far)."""
    import olefile  # type: ignore[import-untyped]

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "book.xls")
        with open(path, "wb") as file:
            file.write(plain)
        ole = olefile.OleFileIO(path, write_mode=True)
        stream = bytearray(ole.openstream("Workbook").read())
        bof_type, bof_length = struct.unpack_from("<HH", stream, 0)
        assert bof_type == 0x0809
        start = 4 + bof_length
        # Replace the records after BOF, up to CODEPAGE, keeping the stream length.
        end = start
        while struct.unpack_from("<H", stream, end)[0] != 0x0042:
            end += 4 + struct.unpack_from("<H", stream, end + 2)[0]
        body = struct.pack("<HHH", 1, 1, 1) + bytes(48)
        filepass = struct.pack("<HH", 0x002F, len(body)) + body
        filler = end - start - len(filepass) - 4
        stream[start:end] = filepass + struct.pack("<HH", 0x005C, filler) + b" " * filler
        ole.write_stream("Workbook", bytes(stream))
        ole.close()
        with open(path, "rb") as file:
            return file.read()


def zip_bomb_xlsx(plain: bytes, unpacked_bytes: int) -> bytes:
    """A valid book with an extra part of ``unpacked_bytes`` zeros (compresses ~1000:1)."""
    return rewrite_zip(plain, extra={"xl/media/padding.bin": bytes(unpacked_bytes)})


def lying_sizes_xlsx(plain: bytes, member: str = "xl/worksheets/sheet1.xml") -> bytes:
    """The member's unpacked size declared as 100 bytes in both zip headers: a bomb that
    hides from a check of the central directory."""
    data = bytearray(plain)
    with zipfile.ZipFile(io.BytesIO(plain)) as archive:
        info = archive.getinfo(member)
    local = info.header_offset
    struct.pack_into("<I", data, local + 22, 100)
    for match in re.finditer(re.escape(b"PK\x01\x02"), bytes(data)):
        at = match.start()
        name_length = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46 : at + 46 + name_length]) == member.encode():
            struct.pack_into("<I", data, at + 24, 100)
    return bytes(data)


def sparse_xlsx() -> bytes:
    """Two cells, A1 and XFD1048576: a few kilobytes that span 17 billion cells."""
    import xlsxwriter

    buffer = io.BytesIO()
    workbook = xlsxwriter.Workbook(buffer, {"in_memory": True})
    ws = workbook.add_worksheet("Разреженный")
    ws.write(0, 0, "начало")
    ws.write(1_048_575, 16_383, "конец")
    workbook.close()
    return buffer.getvalue()


def wide_sheet(columns: int = 16_384, rows: int = 2) -> Sheet:
    return Sheet(name="Широкий", rows=[[float(c) for c in range(columns)] for _ in range(rows)])


def long_sheet(rows: int) -> Sheet:
    return Sheet(name="Длинный", rows=[[f"строка {r}", float(r)] for r in range(rows)])
