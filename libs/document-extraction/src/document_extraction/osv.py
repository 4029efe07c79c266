"""A trial balance (ОСВ) grid into an osvDocument: rows, hierarchy, totals, checks, confidence."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from document_extraction.accounts import code_from_cell, parent_codes
from document_extraction.checks import check_osv
from document_extraction.confidence import (
    LOW_CONFIDENCE,
    UNREADABLE_CELL_PENALTY,
    document_confidence,
    ocr_of,
    row_confidence,
)
from document_extraction.findings import INFO, Locate, capped, warning
from document_extraction.grid import CellValue, Grid
from document_extraction.headers import MONEY_FIELDS, OsvHeader
from document_extraction.numbers import format_cents, read_cents
from document_extraction.text import as_text, clean, is_empty, norm
from document_extraction.titles import Titles

_SIGNATURE = re.compile(
    r"главный бухгалтер|руководитель|бухгалтер|исполнитель|ответственн|подпись|директор"
)
_QUANTITY = ("количество", "кол-во", "кол.", "кол")
_MONEY_NAMES = {
    "opening_debit": "сальдо на начало Дт",
    "opening_credit": "сальдо на начало Кт",
    "turnover_debit": "обороты Дт",
    "turnover_credit": "обороты Кт",
    "closing_debit": "сальдо на конец Дт",
    "closing_credit": "сальдо на конец Кт",
}


@dataclass(slots=True)
class _Row:
    index: int
    kind: str
    code: str | None
    name: str | None
    values: list[int | None]  # cents
    penalty: int
    outline: int | None
    level: int = 0
    parent: int | None = None
    id: int = 0

    @property
    def label(self) -> str:
        return self.code or self.name or ""


def build_osv(grid: Grid, header: OsvHeader, titles: Titles) -> dict[str, Any]:
    locate = Locate(grid)
    rows = grid.rows
    label_col = header.label_col
    name_col = header.name_col
    indicator_col = header.indicator_col
    money_cols = [header.money[f] for f in MONEY_FIELDS]
    formats = grid.number_formats
    outline = grid.outline_levels
    body_start = header.last_row + 1
    use_outline = any(index >= body_start for index in outline)
    warnings: list[dict[str, Any]] = []
    lines: list[_Row] = []
    totals_index: int | None = None
    totals_values: list[int | None] | None = None
    last_index = header.last_row

    def amounts_of(row: Sequence[CellValue], index: int) -> tuple[list[int | None], int, bool]:
        """Cents of the six money cells, the worst reading cost, and whether all are empty."""
        values: list[int | None] = []
        worst = 0
        empty = True
        width = len(row)
        for col in money_cols:
            if col >= width:
                values.append(None)
                continue
            cell = row[col]
            if cell is None:
                values.append(None)
                continue
            if type(cell) is float and -1e13 < cell < 1e13:
                # Fast path of read_cents for the common case, a numeric cell with cents: the
                # double nearest to a two-decimal number is within rounding noise of its cents.
                scaled = cell * 100
                cents_value = round(scaled)
                if -1e-6 < scaled - cents_value < 1e-6:
                    values.append(cents_value)
                    empty = False
                    continue
            cents = read_cents(cell)
            if cents.problem is not None:
                warnings.append(
                    warning(
                        "AMOUNT_UNREADABLE",
                        f"Сумма не распознана: {cents.problem}",
                        locate.row(index, col),
                    )
                )
                worst = max(worst, UNREADABLE_CELL_PENALTY)
                empty = False
            elif cents.value is not None:
                empty = False
                if cents.penalty > worst:
                    worst = cents.penalty
                if cents.printed is not None:
                    warnings.append(
                        warning(
                            "AMOUNT_PRECISION",
                            f"Сумма {cents.printed} содержит больше двух знаков после запятой; "
                            f"в результате {format_cents(cents.value)}",
                            locate.row(index, col),
                        )
                    )
            values.append(cents.value)
        return values, worst, empty

    for index in range(body_start, len(rows)):
        row = rows[index]
        width = len(row)
        label_cell = row[label_col] if label_col < width else None
        if isinstance(label_cell, str) and label_cell.lstrip()[:1].isalpha():
            label_text = norm(label_cell)
            if label_text.startswith("итого"):
                totals_index = index
                totals_values = amounts_of(row, index)[0]
                last_index = index
                break
            if label_text.startswith(_QUANTITY):
                continue
        if (
            indicator_col is not None
            and indicator_col < width
            and norm(row[indicator_col]).startswith("кол")
        ):
            continue
        values, worst, empty = amounts_of(row, index)
        if is_empty(label_cell):
            name_cell = row[name_col] if name_col is not None and name_col < width else None
            if not is_empty(name_cell):
                label_cell = name_cell
            elif empty:
                continue
            else:
                warnings.append(
                    warning(
                        "ROW_WITHOUT_LABEL",
                        "Строка с суммами без счета и субконто пропущена",
                        locate.row(index),
                    )
                )
                last_index = index
                continue
        if empty:
            text = " ".join(norm(c) for c in row if isinstance(c, str))
            if _SIGNATURE.search(text):
                break
        code = code_from_cell(label_cell, formats.get((index, label_col)) if formats else None)
        penalty = worst
        if code is not None:
            kind = "account"
            name = code.name
            if name is None and name_col is not None and name_col < width:
                name = clean(row[name_col])
            penalty += code.penalty
            code_text: str | None = code.code
        else:
            kind = "subconto"
            name = as_text(label_cell)
            code_text = None
            if not lines and empty:
                # A caption under the header ("Контрагенты", "Договоры"), not a row.
                continue
        lines.append(
            _Row(
                index=index,
                kind=kind,
                code=code_text,
                name=name,
                values=values,
                penalty=penalty,
                outline=outline.get(index, 0) if use_outline else None,
            )
        )
        last_index = index

    _hierarchy(lines, use_outline)
    out_rows: list[dict[str, Any]] = []
    confidences: list[float] = []
    ocr_cols = [label_col, *money_cols]
    ocr = grid.cell_confidence
    sheet_name = grid.name
    fc = format_cents
    numbers = grid.row_numbers
    plain_sheet = ocr is None and not locate.is_page and numbers is None
    for number, line in enumerate(lines, start=1):
        if plain_sheet:
            conf: float = 100 - line.penalty if line.penalty < 100 else 0
            locator: dict[str, Any] = {"sheet": sheet_name, "row": line.index + 1}
        elif ocr is None:
            conf = max(0, 100 - line.penalty)
            locator = locate.row(line.index)
        else:
            conf = row_confidence(line.penalty, ocr_of(ocr, line.index, ocr_cols))
            locator = locate.row(line.index)
        confidences.append(conf)
        v = line.values
        out_rows.append(
            {
                "id": number,
                "parent": line.parent,
                "kind": line.kind,
                "level": line.level,
                "code": line.code,
                "name": line.name,
                "opening_debit": fc(v[0]),
                "opening_credit": fc(v[1]),
                "turnover_debit": fc(v[2]),
                "turnover_credit": fc(v[3]),
                "closing_debit": fc(v[4]),
                "closing_credit": fc(v[5]),
                "confidence": conf,
                "locator": locator,
            }
        )

    variant, account = _variant(titles, lines)
    if totals_values is None:
        warnings.append(warning("NO_TOTALS", "Строка «Итого» не найдена", locate.where(), INFO))
    warnings.extend(
        check_osv(
            lines,
            totals_values,
            totals_index,
            money_cols,
            locate,
            general=variant == "general",
        )
    )
    doc_conf = document_confidence(header.confidence, confidences)
    if doc_conf < LOW_CONFIDENCE:
        warnings.append(
            warning(
                "LOW_CONFIDENCE",
                f"Низкая уверенность распознавания ведомости: {doc_conf}",
                locate.where(),
            )
        )
    if not lines:
        warnings.append(
            warning("NO_ROWS", "В ведомости не найдено ни одной строки", locate.where())
        )
    totals: dict[str, Any] | None = None
    if totals_values is not None and totals_index is not None:
        totals = {f: format_cents(v) for f, v in zip(MONEY_FIELDS, totals_values, strict=True)}
        totals["locator"] = locate.row(totals_index)
    first = _first_nonempty(grid)
    return {
        "type": "osv",
        "variant": variant,
        "title": titles.title,
        "organisation": titles.organisation,
        "period": titles.period.as_dict() if titles.period else None,
        "currency": titles.currency,
        "unit": titles.unit,
        "account": account,
        "rows": out_rows,
        "totals": totals,
        "confidence": doc_conf,
        "locator": locate.span(min(first, header.first_row), max(last_index, header.last_row)),
        "warnings": capped(warnings),
    }


def _first_nonempty(grid: Grid) -> int:
    for index, row in enumerate(grid.rows):
        if any(not is_empty(c) for c in row):
            return index
    return 0


def _hierarchy(lines: list[_Row], use_outline: bool) -> None:
    """Levels and parents in one pass: from outline levels when the reader gave them, from the
    codes and the kind of row otherwise."""
    if use_outline:
        base = min((line.outline or 0) for line in lines) if lines else 0
        stack: list[tuple[int, int]] = []  # (level, id)
        for number, line in enumerate(lines, start=1):
            line.id = number
            level = (line.outline or 0) - base
            while stack and stack[-1][0] >= level:
                stack.pop()
            line.parent = stack[-1][1] if stack else None
            line.level = level
            stack.append((level, number))
        return
    subconto_first = bool(lines) and lines[0].kind == "subconto"
    codes: dict[str, tuple[int, int]] = {}
    last_account: tuple[int, int] | None = None
    group: tuple[int, int] | None = None
    for number, line in enumerate(lines, start=1):
        line.id = number
        if line.kind == "subconto":
            if subconto_first:
                codes.clear()
                group = (number, 0)
                line.parent, line.level = None, 0
            elif last_account is not None:
                line.parent, line.level = last_account[0], last_account[1] + 1
            continue
        assert line.code is not None
        found = None
        for prefix in parent_codes(line.code):
            found = codes.get(prefix)
            if found is not None:
                break
        if found is None and group is not None:
            found = group
        if found is not None:
            line.parent, line.level = found[0], found[1] + 1
        codes[line.code] = (number, line.level)
        last_account = (number, line.level)


def _variant(titles: Titles, lines: list[_Row]) -> tuple[str, dict[str, Any] | None]:
    if titles.by_subconto:
        return "subconto", None
    if titles.account_code is not None:
        name = titles.account_name
        if name is None:
            name = next((line.name for line in lines if line.code == titles.account_code), None)
        return "account", {"code": titles.account_code, "name": name}
    if lines and lines[0].kind == "subconto":
        return "subconto", None
    return "general", None
