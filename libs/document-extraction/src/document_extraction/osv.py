"""A trial balance (ОСВ) grid into an osvDocument: rows, hierarchy, totals, checks, confidence."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from document_extraction.accounts import code_from_cell, is_plain_code, parent_codes
from document_extraction.checks import balance_mismatch, sum_warnings
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
from document_extraction.numbers import CENTS_LIMIT, FRACTIONS, Cents, format_cents, read_cents
from document_extraction.text import as_text, clean, is_empty, norm
from document_extraction.titles import Titles

try:
    from document_extraction._osvbody import plain_rows as _kernel
except ImportError:  # built without a C compiler: the loop below reads every row itself
    _kernel = None  # type: ignore[assignment]
plain_rows: Callable[..., tuple[int, int, int | None]] | None = _kernel

_SIGNATURE = re.compile(
    r"главный бухгалтер|руководитель|бухгалтер|исполнитель|ответственн|подпись|директор"
)
_QUANTITY = ("количество", "кол-во", "кол.", "кол")
# Distinct text amounts remembered per sheet; beyond this they are read afresh.
_TEXT_CACHE_SIZE = 4096
_MONEY_NAMES = {
    "opening_debit": "сальдо на начало Дт",
    "opening_credit": "сальдо на начало Кт",
    "turnover_debit": "обороты Дт",
    "turnover_credit": "обороты Кт",
    "closing_debit": "сальдо на конец Дт",
    "closing_credit": "сальдо на конец Кт",
}


def build_osv(grid: Grid, header: OsvHeader, titles: Titles) -> dict[str, Any]:
    """One pass over the body: each row is read, placed in the hierarchy, checked against its
    own balance and added to its parent's sums, and written out as the contract's row."""
    locate = Locate(grid)
    rows = grid.rows
    label_col = header.label_col
    name_col = header.name_col
    indicator_col = header.indicator_col
    money_cols = tuple(header.money[f] for f in MONEY_FIELDS)
    money_of = itemgetter(*money_cols)
    money_width = max(money_cols) + 1
    formats = grid.number_formats
    # Only the label column's formats matter; looked up by row, not by a fresh tuple per row.
    label_formats = {r: f for (r, c), f in formats.items() if c == label_col} if formats else {}
    outline = grid.outline_levels
    body_start = header.last_row + 1
    use_outline = any(index >= body_start for index in outline)
    warnings: list[dict[str, Any]] = []
    balance_warnings: list[dict[str, Any]] = []
    totals_index: int | None = None
    totals_values: list[int | None] | None = None
    last_index = header.last_row
    # Exports repeat the same text amounts and indicator captions on many rows.
    text_cents: dict[str, Cents] = {}
    indicator_skips: dict[str, bool] = {}

    def cents_of(cell: CellValue) -> Cents:
        if not isinstance(cell, str):
            return read_cents(cell)
        cents = text_cents.get(cell)
        if cents is None:
            cents = read_cents(cell)
            if len(text_cents) < _TEXT_CACHE_SIZE:
                text_cents[cell] = cents
        return cents

    def amounts_of(cells: Sequence[CellValue], index: int) -> tuple[list[int | None], int, bool]:
        """Cents of the six money cells, the worst reading cost, and whether all are empty."""
        values: list[int | None] = []
        worst = 0
        empty = True
        for col, cell in zip(money_cols, cells, strict=True):
            cents = cents_of(cell)
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

    out_rows: list[dict[str, Any]] = []
    confidences: list[float] = []
    # Per written row (id - 1): where it is and its amounts in cents (empty as 0).
    row_indices: list[int] = []
    # Running sums in cents of each parent's children (by the parent's id) and of the
    # top-level rows; a parent's own amounts are read back from its written row.
    children: dict[int, list[int]] = {}
    top_sums = [0] * 6
    stack: list[tuple[int, int]] = []  # (outline level, id) of the rows a new row may be under
    base: int | None = None  # the shallowest outline level among the rows
    codes = _CodeTree()
    ocr_cols = [label_col, *money_cols]
    ocr = grid.cell_confidence
    sheet_name = grid.name
    fc = format_cents
    plain_sheet = ocr is None and not locate.is_page and grid.row_numbers is None
    low, high = -CENTS_LIMIT, CENTS_LIMIT
    fractions = FRACTIONS
    number = 0
    # The C kernel takes over runs of common rows and stops at the first row this loop must
    # see; it shares the loop's state (the lists and dicts, number, base). Its rows are the
    # ones the loop would write the same way, so the result does not depend on it.
    kernel = (
        plain_rows
        if plain_sheet
        and indicator_col is None
        and type(rows) is list
        and (not use_outline or type(outline) is dict)
        else None
    )
    resume = body_start
    for index in range(body_start, len(rows)):
        if index < resume:
            continue
        if kernel is not None:
            resume, number, base = kernel(
                rows,
                index,
                label_col,
                name_col,
                money_cols,
                sheet_name,
                number,
                outline if use_outline else None,
                stack,
                base,
                codes,
                out_rows,
                confidences,
                row_indices,
                top_sums,
                children,
            )
            if resume > index:
                last_index = resume - 1
                continue
        row = rows[index]
        width = len(row)
        label_cell = row[label_col] if label_col < width else None
        # The usual label, "60.01", is its own code; anything else is looked at closer.
        plain_code = (
            label_cell if isinstance(label_cell, str) and is_plain_code(label_cell) else None
        )
        if plain_code is None and isinstance(label_cell, str) and label_cell.lstrip()[:1].isalpha():
            label_text = norm(label_cell)
            if label_text.startswith("итого"):
                totals_index = index
                cells = (
                    money_of(row)
                    if width >= money_width
                    else tuple(row[c] if c < width else None for c in money_cols)
                )
                totals_values = amounts_of(cells, index)[0]
                last_index = index
                break
            if label_text.startswith(_QUANTITY):
                continue
        if indicator_col is not None and indicator_col < width:
            indicator = row[indicator_col]
            if isinstance(indicator, str):
                skip = indicator_skips.get(indicator)
                if skip is None:
                    skip = indicator_skips[indicator] = norm(indicator).startswith("кол")
                if skip:
                    continue
        cells = (
            money_of(row)
            if width >= money_width
            else tuple(row[c] if c < width else None for c in money_cols)
        )
        # What read_cents and format_cents give for the usual cells, without their calls and
        # result objects: numbers that are exactly a two-decimal amount, and empty cells.
        # Anything else (text, more decimals, huge or odd values) takes the full reading.
        amounts: list[int] = []  # cents, empty as 0
        texts: list[str | None] = []
        for cell in cells:
            if type(cell) is float:
                if low < cell < high:
                    cents = round(cell * 100)
                    # The double nearest to that two-decimal amount: equal only when the cell
                    # holds no more than two decimals (read_cents' own test).
                    if cents / 100 == cell:
                        amounts.append(cents)
                        if cents < 0:
                            texts.append("-" + str(-cents // 100) + fractions[-cents % 100])
                        else:
                            texts.append(str(cents // 100) + fractions[cents % 100])
                        continue
            elif cell is None or cell == "":
                amounts.append(0)
                texts.append(None)
                continue
            values, worst, empty = amounts_of(cells, index)
            amounts = [v or 0 for v in values]
            texts = [fc(v) for v in values]
            break
        else:
            worst = 0
            empty = texts.count(None) == 6
        if plain_code is None and is_empty(label_cell):
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
        penalty = worst
        if plain_code is not None:
            # code_from_cell's usual case, without building its result.
            kind = "account"
            code_text: str | None = plain_code
            name_cell = row[name_col] if name_col is not None and name_col < width else None
            if isinstance(name_cell, str) and name_cell.isprintable() and "  " not in name_cell:
                # clean() of the usual name: nothing to collapse (no line breaks, tabs, soft
                # hyphens or double spaces), only ends to trim.
                name = name_cell.strip() or None
            else:
                name = clean(name_cell)
        else:
            code = code_from_cell(label_cell, label_formats.get(index))
            if code is not None:
                kind = "account"
                name = code.name
                if name is None and name_col is not None and name_col < width:
                    name = clean(row[name_col])
                penalty += code.penalty
                code_text = code.code
            else:
                kind = "subconto"
                name = as_text(label_cell)
                code_text = None
                if not out_rows and empty:
                    # A caption under the header ("Контрагенты", "Договоры"), not a row.
                    continue
        last_index = index
        number += 1
        if use_outline:
            # The parent is the last row above with a lower outline level.
            level = outline.get(index, 0)
            while stack and stack[-1][0] >= level:
                stack.pop()
            parent = stack[-1][1] if stack else None
            stack.append((level, number))
            if base is None or level < base:
                base = level
        else:
            parent, level = codes.place(number, kind, code_text)

        if amounts[0] - amounts[1] + amounts[2] - amounts[3] != amounts[4] - amounts[5]:
            balance_warnings.append(
                balance_mismatch(code_text or name or "", amounts, locate.row(index))
            )
        sums = top_sums if parent is None else children.setdefault(parent, [0] * 6)
        for column, cents in enumerate(amounts):
            sums[column] += cents
        row_indices.append(index)

        if plain_sheet:
            conf: float = 100 - penalty if penalty < 100 else 0
            locator: dict[str, Any] = {"sheet": sheet_name, "row": index + 1}
        elif ocr is None:
            conf = max(0, 100 - penalty)
            locator = locate.row(index)
        else:
            conf = row_confidence(penalty, ocr_of(ocr, index, ocr_cols))
            locator = locate.row(index)
        confidences.append(conf)
        od, oc, td, tc, cd, cc = texts
        out_rows.append(
            {
                "id": number,
                "parent": parent,
                "kind": kind,
                "level": level,
                "code": code_text,
                "name": name,
                "opening_debit": od,
                "opening_credit": oc,
                "turnover_debit": td,
                "turnover_credit": tc,
                "closing_debit": cd,
                "closing_credit": cc,
                "confidence": conf,
                "locator": locator,
            }
        )
    if use_outline and base:
        # Levels count from the shallowest row; parents only compared levels with each other.
        for out in out_rows:
            out["level"] -= base

    variant, account = _variant(titles, out_rows)
    if totals_values is None:
        warnings.append(warning("NO_TOTALS", "Строка «Итого» не найдена", locate.where(), INFO))
    warnings += balance_warnings
    parents = (
        (
            out_rows[number - 1]["code"] or out_rows[number - 1]["name"] or "",
            row_indices[number - 1],
            _written_cents(out_rows[number - 1]),
            children[number],
        )
        for number in sorted(children)
    )
    warnings += sum_warnings(
        parents,
        top_sums,
        totals_values,
        totals_index,
        money_cols,
        locate,
        general=variant == "general",
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
    if not out_rows:
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


def _written_cents(row: dict[str, Any]) -> list[int]:
    """A row's amounts in cents, read back exactly from the text format_cents wrote."""
    return [
        int(text.replace(".", "")) if text is not None else 0 for text in map(row.get, MONEY_FIELDS)
    ]


class _CodeTree:
    """Levels and parents from the codes (60.1 under 60) and the kind of row: subconto rows
    under the account above them, or, when the table starts with subconto, each one a group
    of the accounts below it."""

    def __init__(self) -> None:
        self.subconto_first: bool | None = None
        self.codes: dict[str, tuple[int, int]] = {}  # code -> (id, level)
        self.last_account: tuple[int, int] | None = None
        self.group: tuple[int, int] | None = None

    def place(self, number: int, kind: str, code: str | None) -> tuple[int | None, int]:
        if self.subconto_first is None:
            self.subconto_first = kind == "subconto"
        if kind == "subconto" or code is None:
            if self.subconto_first:
                self.codes.clear()
                self.group = (number, 0)
                return None, 0
            if self.last_account is not None:
                return self.last_account[0], self.last_account[1] + 1
            return None, 0
        found = None
        for prefix in parent_codes(code):
            found = self.codes.get(prefix)
            if found is not None:
                break
        if found is None:
            found = self.group
        parent, level = (found[0], found[1] + 1) if found is not None else (None, 0)
        self.codes[code] = (number, level)
        self.last_account = (number, level)
        return parent, level


def _variant(titles: Titles, rows: list[dict[str, Any]]) -> tuple[str, dict[str, Any] | None]:
    if titles.by_subconto:
        return "subconto", None
    if titles.account_code is not None:
        name = titles.account_name
        if name is None:
            name = next((r["name"] for r in rows if r["code"] == titles.account_code), None)
        return "account", {"code": titles.account_code, "name": name}
    if rows and rows[0]["kind"] == "subconto":
        return "subconto", None
    return "general", None
