"""A trial balance (ОСВ) grid into an osvDocument: rows, hierarchy, totals, checks, confidence."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from document_extraction.accounts import code_from_cell, parent_codes
from document_extraction.captions import HeaderRepeats
from document_extraction.checks import (
    balance_mismatch,
    osv_outliers,
    row_balances,
    sum_warnings,
)
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
from document_extraction.lookalikes import LATIN_TO_CYRILLIC, ocr_budget, ocr_distance
from document_extraction.nesting import nested_by_sums, sums_by_parent, written_cents_of
from document_extraction.numbers import Cents, float_cents, format_cents, read_cents
from document_extraction.row_numbers import labels_without_row_numbers
from document_extraction.text import as_text, clean, is_counter, is_empty, norm
from document_extraction.titles import Titles
from recognition_contract import (
    AccountRef,
    Locator,
    RowKind,
    Totals,
    TrialBalance,
    TrialBalanceRow,
    Variant,
    Warning,
)

_SIGNATURE = re.compile(
    r"главный бухгалтер|руководитель|бухгалтер|исполнитель|ответственн|подпись|директор"
)
# A quantity caption as a whole word: "Кол.", "Кол-во", "Количество, шт" — never the start of
# a name such as "Кольцо" or "Колесников И.И.".
_QUANTITY = re.compile(r"^(?:кол(?:ичество|-во|\.)?|колво)(?![а-яa-z])")
# Its long and short forms, to be found again through OCR's misreads ("Kon-во", "Kon.").
_QUANTITY_FORMS = ("кол-во", "кол.")
# The shortest totals or quantity caption ("Кол").
_LEAST_CAPTION = 3
# Totals by their wording: "Итого", "Всего", "Итого по счету", a statement's "Обороты за период".
_TOTALS = re.compile(r"^(?:итого|всего|итог|обороты?(?=\s+(?:за|по)\b|\s*:|\s*$))(?![а-яa-z])")
# A balance's sections: a heading («Раздел II. Запасы») and a subtotal («Итого по разделу II»).
_SECTION = re.compile(r"^(?:раздел|глава|section)\s+[\divxlcm]+\b", re.IGNORECASE)
_SECTION_TOTALS = re.compile(r"\bраздел[ау]?\b", re.IGNORECASE)
# Indicator sub-rows that are not the document: quantities, tax accounting, differences,
# currency amounts. The document is the accounting (БУ) row.
_OTHER_INDICATOR = re.compile(r"^(?:ну|пр|вр|вал(?:юта|\.)?|нал(?:оговый|\.)?)(?![а-яa-z])")
# What may stand before the first letter of a caption: spaces and soft hyphens.
_LEADING = " \t\u00a0\u00ad"
# Body rows looked at to tell how signed balances are printed.
_SIGN_ROWS = 200
# Distinct text amounts remembered per sheet; beyond this they are read afresh.
_TEXT_CACHE_SIZE = 4096


def is_quantity_label(text: str) -> bool:
    """A quantity sub-row's caption (normalised text), not a name that starts with "Кол";
    "Кол-во" misread by OCR ("Kon-во") too."""
    if _QUANTITY.match(text) is not None:
        return True
    word = "".join(LATIN_TO_CYRILLIC.get(ch, ch) for ch in text.split(" ", 1)[0])
    for form in _QUANTITY_FORMS:
        # As long as the form: a shorter word is some other abbreviation.
        budget = ocr_budget(len(form))
        if len(word) >= len(form) and ocr_distance(word, form, budget) <= budget:
            return True
    return False


def is_totals_label(text: str) -> bool:
    return _TOTALS.match(text) is not None


def is_section_totals(text: str) -> bool:
    """«Итого по разделу III», «Итого раздел 2»: the subtotal of a section."""
    return _SECTION_TOTALS.search(text) is not None


def is_section_heading(text: str) -> bool:
    """«Раздел II. Запасы», «Глава 3»: a heading between the accounts of a balance."""
    return _SECTION.match(text) is not None


def is_other_indicator(text: str) -> bool:
    """An indicator sub-row (quantity, tax accounting, currency) that is not the document."""
    return is_quantity_label(text) or _OTHER_INDICATOR.match(text) is not None


def _first_text(
    row: Sequence[CellValue], last_text_col: int, level_col: int | None = None
) -> str | None:
    """The first text left of the money columns, in whichever column it stands (a totals or
    quantity caption is in the code column of one layout and in the name column of another),
    when it starts with a letter: codes, the usual labels, are no caption. The level column
    holds none, whatever OCR read there."""
    for col, cell in enumerate(row[:last_text_col]):
        if col == level_col:
            continue
        if isinstance(cell, str) and cell.strip():
            if is_counter(cell):
                continue  # a row number or an outline level, printed: a page has no numbers
            if len(cell.strip()) < _LEAST_CAPTION:
                continue  # such a number read by OCR as a letter or two ("т", "tl")
            if not cell.lstrip(_LEADING)[:1].isalpha():
                return None
            return norm(cell)
    return None


def _indent(cell: CellValue) -> int:
    """Leading spaces of a label: the only hierarchy a hand-made sheet shows."""
    if not isinstance(cell, str):
        return 0
    return len(cell) - len(cell.lstrip(" \u00a0\t"))


def _is_signature(row: Sequence[CellValue], money_cols: Sequence[int]) -> bool:
    """The signature lines under the table ("Главный бухгалтер ____ (подпись)"): their words,
    and no amount in any money column (a "(подпись)" caption may stand in one)."""
    text = " ".join(norm(c) for c in row if isinstance(c, str))
    return _SIGNATURE.search(text) is not None and all(
        read_cents(cell).value is None for cell in _cells(row, money_cols)
    )


def _turnovers_turned(
    rows: Sequence[Sequence[CellValue]], start: int, money_cols: Sequence[int]
) -> bool:
    """Whether more rows balance with the two turnover columns the other way round."""
    signed = [money_cols[i] == money_cols[i + 1] for i in (0, 4)]
    as_captioned = turned = 0
    for row in rows[start : start + _SIGN_ROWS]:
        od, oc, td, tc, cd, cc = (read_cents(c).value or 0 for c in _cells(row, money_cols))
        opening = od if signed[0] else od - oc  # a signed balance column is read once
        closing = cd if signed[1] else cd - cc
        as_captioned += closing == opening + td - tc
        turned += closing == opening + tc - td
    return turned > as_captioned


def _cells(row: Sequence[CellValue], columns: Sequence[int]) -> list[CellValue]:
    width = len(row)
    return [row[c] if c < width else None for c in columns]


class _Amounts:
    """Reads the six money cells of a row into cents, with the warnings a bad cell earns.
    Exports repeat the same text amounts on many rows, so text readings are remembered."""

    def __init__(self, money_cols: Sequence[int], locate: Locate) -> None:
        self.money_cols = tuple(money_cols)
        self.locate = locate
        self.text_cents: dict[str, Cents] = {}
        # Balances printed as one signed column: both sides read that column, positive on the
        # debit side unless the rows' arithmetic says credit balances are the positive ones.
        self.signed = [i for i in (0, 4) if money_cols[i] == money_cols[i + 1]]
        self.credit_positive = False

    def cents(self, cell: CellValue) -> Cents:
        if not isinstance(cell, str):
            return read_cents(cell)
        cents = self.text_cents.get(cell)
        if cents is None:
            cents = read_cents(cell)
            if len(self.text_cents) < _TEXT_CACHE_SIZE:
                self.text_cents[cell] = cents
        return cents

    def read(
        self, row: Sequence[CellValue], index: int, warnings: list[Warning]
    ) -> tuple[list[int | None], int, bool]:
        """Cents of the six money cells, the worst reading cost, and whether all are empty."""
        width = len(row)
        values: list[int | None] = []
        readings: list[tuple[int, Cents]] = []  # the cells that needed the full reading
        for position, col in enumerate(self.money_cols):
            cell = row[col] if col < width else None
            # Most cells are empty or numbers with cents: read without a Cents to carry.
            if cell is None or cell == "":
                values.append(None)
                continue
            if type(cell) is float:
                cents = float_cents(cell)
                if cents is not None:
                    values.append(cents)
                    continue
            reading = self.cents(cell)
            values.append(reading.value)
            readings.append((position, reading))
        worst = max(reading.penalty for _, reading in readings) if readings else 0
        empty = values.count(None) == 6
        for position, reading in readings:
            if reading.problem is None and reading.printed is None:
                continue
            if position - 1 in self.signed:
                continue  # the signed column, read once
            col = self.money_cols[position]
            if reading.problem is not None:
                warnings.append(
                    warning(
                        "AMOUNT_UNREADABLE",
                        f"Сумма не распознана: {reading.problem}",
                        self.locate.row(index, col),
                    )
                )
                worst = max(worst, UNREADABLE_CELL_PENALTY)
                empty = False
            else:
                warnings.append(
                    warning(
                        "AMOUNT_PRECISION",
                        f"Сумма {reading.printed} содержит больше двух знаков после запятой; "
                        f"в результате {format_cents(reading.value)}",
                        self.locate.row(index, col),
                    )
                )
        for i in self.signed:
            value = values[i]
            if value is not None and self.credit_positive:
                value = -value
            values[i], values[i + 1] = (
                (value, None) if value is None or value >= 0 else (None, -value)
            )
        return values, worst, empty

    def separator_lost(
        self, row: Sequence[CellValue], index: int, values: list[int | None]
    ) -> list[Warning]:
        """A row that does not balance as read, but does where some amounts printed as digits
        alone are read with their last two as kopecks: OCR lost their decimal commas
        ("4247140" for "42471,40"). The fewest such amounts that balance the row, where only
        one choice of them does (see ``_reread``)."""
        digits = self._text_cells(row, values, _DIGITS_ONLY)
        tiers = (
            [{p: (values[p] or 0) // 100 for p in chosen} for chosen in combinations(digits, n)]
            for n in range(1, min(len(digits), MAX_SEPARATORS_LOST) + 1)
        )
        return self._reread(
            row, index, values, tiers, "AMOUNT_SEPARATOR_LOST", "запятая не распознана"
        )

    def number_glued(
        self, row: Sequence[CellValue], index: int, values: list[int | None]
    ) -> list[Warning]:
        """A row that does not balance as read, but does where one amount loses its first
        few digits: a number of the cell before it (a quantity set right against an amount
        set left) that OCR read into it ("41462171,60" for 414 | 62171,60). Only where one
        amount and one cut of it balance the row (see ``_reread``)."""
        cuts = []
        for position in self._text_cells(row, values, _GLUED):
            digits = str(values[position])
            # Kopecks and at least one digit of the amount stay, and an amount has no
            # leading zero.
            cuts += [
                {position: int(digits[cut:])}
                for cut in range(1, min(MAX_DIGITS_GLUED, len(digits) - 3) + 1)
                if digits[cut] != "0"
            ]
        return self._reread(
            row,
            index,
            values,
            [cuts],
            "AMOUNT_DIGITS_GLUED",
            "первые цифры — число соседней ячейки",
        )

    def _text_cells(
        self, row: Sequence[CellValue], values: list[int | None], shape: re.Pattern[str]
    ) -> list[int]:
        """The amounts (by position) read from text of ``shape``."""
        return [
            position
            for position, col in enumerate(self.money_cols)
            if values[position] is not None
            and isinstance(cell := row[col] if col < len(row) else None, str)
            and shape.fullmatch(cell)
        ]

    def _reread(
        self,
        row: Sequence[CellValue],
        index: int,
        values: list[int | None],
        tiers: Iterable[Iterable[dict[int, int]]],
        code: str,
        why: str,
    ) -> list[Warning]:
        """Of the readings of some amounts (``{position: cents}``), in the first tier that
        has any, the one under which the row balances, where only one does: ``values`` get
        it, and a warning says so on each cell it changes. Signed balance columns are left
        as they are."""
        if self.signed:
            return []
        found: list[dict[int, int]] = []
        for tier in tiers:
            found = [
                reading
                for reading in tier
                if row_balances([reading.get(k, v or 0) for k, v in enumerate(values)])
            ]
            if found:
                break
        if len(found) != 1:
            return []
        changed = []
        for position, cents in found[0].items():
            col = self.money_cols[position]
            values[position] = cents
            changed.append(
                warning(
                    code,
                    f"Сумма «{str(row[col]).strip()}» прочитана как {format_cents(cents)}: "
                    f"{why}, и только так строка сходится; сверьте с изображением",
                    self.locate.row(index, col),
                )
            )
        return changed

    def choose_sign(self, rows: Sequence[Sequence[CellValue]], start: int) -> bool:
        """Whether signed balances print credit balances as positive: true when more rows
        balance that way (closing = opening + Dt − Ct) than the usual way."""
        if self.signed != [0, 4]:
            return False
        usual = flipped = 0
        for row in rows[start : start + _SIGN_ROWS]:
            opening, debit, credit, closing = (
                read_cents(c).value or 0 for c in _cells(row, self.money_cols[1:5])
            )
            usual += closing == opening + debit - credit
            flipped += -closing == -opening + debit - credit
        self.credit_positive = flipped > usual
        return self.credit_positive


# An amount as OCR may read it without its decimal comma: digits alone, kopecks included.
_DIGITS_ONLY = re.compile(r"\s*-?\d{3,}\s*")
# How many amounts of one row may have lost their commas: a row's six amounts have few
# ways to balance, so more would be a guess.
MAX_SEPARATORS_LOST = 3
# An amount OCR read with a number of the cell before it: digits alone before the decimals.
_GLUED = re.compile(r"\s*\d{5,}[.,]\d{2}\s*")
# How many digits of a number before it (a quantity) an amount may be read with.
MAX_DIGITS_GLUED = 4
# A level column holds small whole numbers only.
_MAX_LEVEL = 9


def _level(cell: CellValue) -> int | None:
    """A small whole number: a workbook's number, or a page's one digit (with a speck OCR
    read as a stop or a comma after it: "0.", "2,")."""
    if isinstance(cell, str):
        text = cell.strip().rstrip(".,")
        return int(text) if len(text) == 1 and text.isdigit() else None
    if (
        isinstance(cell, int | float)
        and not isinstance(cell, bool)
        and float(cell).is_integer()
        and 0 <= cell <= _MAX_LEVEL
    ):
        return int(cell)
    return None


def level_column(rows: Sequence[Sequence[CellValue]], start: int, before: int) -> dict[int, int]:
    """Outline levels printed as a column of numbers left of the table (1C's «Уровень», or a
    column a tool added), for readers that see no outline: {row index: level}, or empty."""
    return find_level_column(rows, start, before)[1]


def find_level_column(
    rows: Sequence[Sequence[CellValue]], start: int, before: int
) -> tuple[int | None, dict[int, int]]:
    """The level column's index and its levels by row (see ``level_column``)."""
    for col in range(before):
        levels: dict[int, int] = {}
        other: int | None = None  # the first row with anything else there
        misread: list[int] = []
        for index in range(start, len(rows)):
            row = rows[index]
            cell = row[col] if col < len(row) else None
            if is_empty(cell):
                continue
            level = _level(cell)
            if level is None:
                if _misread_level(cell):
                    misread.append(index)
                    continue
                other = index if other is None else other
            else:
                levels[index] = level
                # A level OCR misread is most likely the next one's: a subaccount's or a
                # subconto's first item is followed by its siblings.
                for before in misread:
                    levels.setdefault(before, level)
                misread.clear()
        if other is not None and any(index > other for index in levels):
            continue  # text below the table (a signature line) may stand there, not inside it
        distinct = len(set(levels.values()))
        # Levels repeat; a row-number column (1, 2, 3 …) never does.
        if 1 < distinct < len(levels) and len(levels) * 2 > len(rows) - start:
            return col, levels
    return None, {}


def _misread_level(cell: CellValue) -> bool:
    """A page's level digit OCR read as a mark or two ("ie}", "|"): a short text of no word."""
    if not isinstance(cell, str):
        return False
    text = cell.strip()
    return 0 < len(text) <= _LEAST_CAPTION and not text.isalpha()


class _OutlineTree:
    """Parents from outline levels: the parent is the last row above with a lower level."""

    def __init__(self, outline: dict[int, int] | Any) -> None:
        self.outline = outline
        self.stack: list[tuple[int, int]] = []  # (outline level, id)
        self.base: int | None = None  # the shallowest level among the rows

    def place(self, number: int, index: int) -> tuple[int | None, int]:
        level = self.outline.get(index, 0)
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        parent = self.stack[-1][1] if self.stack else None
        self.stack.append((level, number))
        if self.base is None or level < self.base:
            self.base = level
        return parent, level


def build_osv(grid: Grid, header: OsvHeader, titles: Titles) -> TrialBalance:
    """One pass over the body: each row is read, placed in the hierarchy, checked against its
    own balance and added to its parent's sums, and written out as the contract's row."""
    locate = Locate(grid)
    rows = grid.rows
    label_col = header.label_col
    name_col = header.name_col
    indicator_col = header.indicator_col
    money_cols = tuple(header.money[f] for f in MONEY_FIELDS)
    if header.turnover_assumed and _turnovers_turned(rows, header.last_row + 1, money_cols):
        od, oc, td, tc, cd, cc = money_cols
        money_cols = (od, oc, tc, td, cd, cc)
    first_money = min(money_cols)
    formats = grid.number_formats
    # Only the label column's formats matter; looked up by row.
    label_formats = {r: f for (r, c), f in formats.items() if c == label_col} if formats else {}
    body_start = header.last_row + 1
    outline = grid.outline_levels
    level_col: int | None = None
    if not any(index >= body_start for index in outline):
        level_col, outline = find_level_column(rows, body_start, min(label_col, first_money))
    use_outline = any(index >= body_start for index in outline)
    outline_tree = _OutlineTree(outline)
    codes = _CodeTree()
    amounts_of = _Amounts(money_cols, locate)
    warnings: list[Warning] = []
    if money_cols[2] != header.money["turnover_debit"]:
        warnings.append(
            warning(
                "SIGN_CONVENTION",
                "«Расход» прочитан как оборот по дебету, «Приход» как оборот по кредиту: только "
                "так сходятся строки (сальдо на конец = сальдо на начало + Дт − Кт)",
                locate.where(),
                INFO,
            )
        )
    if amounts_of.choose_sign(rows, header.last_row + 1):
        warnings.append(
            warning(
                "SIGN_CONVENTION",
                "Сальдо со знаком прочитано как кредитовое при плюсе: только так сходятся "
                "строки (сальдо на конец = сальдо на начало + Дт − Кт)",
                locate.where(),
                INFO,
            )
        )
    balance_warnings: list[Warning] = []
    # The totals lines after the last row: (grid row, amounts, warnings reading them).
    totals_lines: list[TotalsLine] = []
    last_index = header.last_row
    indicator_skips: dict[str, bool] = {}

    out_rows: list[TrialBalanceRow] = []
    confidences: list[float] = []
    confirmable: dict[int, float] = {}
    row_indices: list[int] = []  # per written row (id - 1): its grid row
    ocr_cols = [label_col, *money_cols]
    # Only a page glues cells together; a workbook's 100,000 rows are spared the pass.
    renumbered = (
        labels_without_row_numbers(rows, body_start, label_col) if grid.kind == "page" else {}
    )
    ocr = grid.cell_confidence
    number = 0
    indented = False
    repeats = HeaderRepeats(rows, header.first_row, header.last_row)
    for index in range(body_start, len(rows)):
        row = rows[index]
        if row in repeats:
            continue
        width = len(row)
        label_cell = renumbered.get(index, row[label_col] if label_col < width else None)
        caption = _first_text(row, first_money, level_col)
        if caption is not None and is_totals_label(caption):
            # A totals line with rows after it was a subtotal ("Итого по разделу"), neither a
            # row nor the totals; of those after the last row the arithmetic picks one.
            read_warnings: list[Warning] = []
            values_read = amounts_of.read(row, index, read_warnings)[0]
            totals_lines.append(
                TotalsLine(index, values_read, read_warnings, is_section_totals(caption))
            )
            last_index = index
            continue
        if caption is not None and is_quantity_label(caption):
            continue
        if caption is not None and is_section_heading(caption) and _no_amounts(row, money_cols):
            continue
        if indicator_col is not None and indicator_col < width:
            indicator = row[indicator_col]
            if isinstance(indicator, str):
                skip = indicator_skips.get(indicator)
                if skip is None:
                    skip = indicator_skips[indicator] = is_other_indicator(norm(indicator))
                if skip:
                    if grid.kind == "page" and out_rows and last_index == index - 1:
                        # On a printed page a name wrapped in its cell runs on to the line of
                        # the indicator row below ("Договор № 12/24 от" over "15.01.2024 | НУ").
                        last, more = out_rows[-1], as_text(label_cell)
                        if more and more not in (last.code, last.name):
                            out_rows[-1] = last._replace(name=f"{last.name or ''} {more}".strip())
                    continue
        mark = len(warnings)
        values, penalty, empty = amounts_of.read(row, index, warnings)
        if values.count(None) == 6 and _is_signature(row, money_cols):
            del warnings[mark:]  # a "(подпись)" caption in a money column is no amount
            break
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
        code = code_from_cell(label_cell, label_formats.get(index))
        code_text: str | None
        kind: RowKind
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
        totals_lines = []
        number += 1
        if use_outline:
            parent, level = outline_tree.place(number, index)
        else:
            indent = _indent(label_cell) if kind == "subconto" else 0
            indented = indented or indent > 0
            parent, level = codes.place(number, kind, code_text, indent)
        amounts = [v or 0 for v in values]
        balanced = row_balances(amounts)
        if not balanced and ocr is not None:
            lost = amounts_of.separator_lost(row, index, values) or amounts_of.number_glued(
                row, index, values
            )
            if lost:
                warnings.extend(lost)
                amounts, balanced = [v or 0 for v in values], True
        if not balanced:
            balance_warnings.append(
                balance_mismatch(code_text or name or "", amounts, locate.row(index))
            )
        row_indices.append(index)
        if ocr is None:
            conf: float = max(0, 100 - penalty)
        else:
            conf = row_confidence(penalty, ocr_of(ocr, index, ocr_cols))
            label_conf = row_confidence(penalty, ocr_of(ocr, index, [label_col]))
            if balanced and label_conf > conf:
                confirmable[len(out_rows)] = label_conf
        confidences.append(conf)
        out_rows.append(
            osv_row(number, parent, kind, level, code_text, name, values, conf, locate.row(index))
        )
    if not use_outline and not indented:
        # A page shows no hierarchy of the subconto rows: their sums may.
        out_rows = nested_by_sums(out_rows)
    # Sums in cents of each parent's children (by the parent's id) and of the top-level rows,
    # once the hierarchy is settled; a parent's own amounts are read back from its row.
    children, top_sums = sums_by_parent(out_rows)
    totals = totals_by_sums(totals_lines, top_sums)
    if totals is not None:
        warnings += totals.warnings
        if len(totals_lines) > 1 and totals is not totals_lines[-1]:
            warnings.append(totals_chosen(totals, len(totals_lines), locate))
    base = outline_tree.base
    if use_outline and base:
        # Levels count from the shallowest row; parents only compared levels with each other.
        out_rows = [out._replace(level=out.level - base) for out in out_rows]

    return osv_document(
        grid,
        titles,
        OsvBody(
            out_rows,
            row_indices,
            confidences,
            children,
            top_sums,
            totals.values if totals is not None else None,
            totals.index if totals is not None else None,
            warnings,
            balance_warnings,
            confirmable,
        ),
        money_cols,
        header.confidence,
        (header.first_row, max(last_index, header.last_row)),
    )


@dataclass(frozen=True, slots=True)
class TotalsLine:
    index: int
    values: list[int | None]
    warnings: list[Warning]
    section: bool
    """Worded as a section's («Итого по разделу III»)."""


def totals_by_sums(lines: Sequence[TotalsLine], top: Sequence[int]) -> TotalsLine | None:
    """The document's totals among the totals lines under its last row: the one that equals the
    sum of the top-level rows (a second, larger «развернутое» line follows the real one), else
    the last, which the checks then compare and flag."""
    for line in lines:
        if [v or 0 for v in line.values] == list(top):
            return line
    # A section's subtotal that is not the whole is no totals of the document.
    whole = [line for line in lines if not line.section]
    return whole[-1] if whole else None


def totals_chosen(line: TotalsLine, count: int, locate: Locate) -> Warning:
    return warning(
        "TOTALS_CHOSEN_BY_SUMS",
        f"Строк «Итого» под ведомостью: {count}; итогом взята та, что равна сумме счетов "
        "верхнего уровня",
        locate.row(line.index),
        INFO,
    )


def _no_amounts(row: Sequence[CellValue], money_cols: Sequence[int]) -> bool:
    return all(c >= len(row) or is_empty(row[c]) for c in money_cols)


def osv_row(
    number: int,
    parent: int | None,
    kind: RowKind,
    level: int,
    code: str | None,
    name: str | None,
    cents: Sequence[int | None],
    confidence: float,
    locator: Locator,
) -> TrialBalanceRow:
    od, oc, td, tc, cd, cc = map(format_cents, cents)
    return TrialBalanceRow(
        number, parent, kind, level, code, name, od, oc, td, tc, cd, cc, confidence, locator
    )


@dataclass
class OsvBody:
    """What reading a trial balance's body gave, for ``osv_document`` to check and write."""

    rows: list[TrialBalanceRow]
    row_indices: list[int]  # grid row of each written row
    confidences: list[float]
    children: dict[int, list[int]]  # sums in cents of each parent's children, by parent id
    top_sums: list[int]  # sums in cents of the top-level rows
    totals_values: list[int | None] | None
    totals_index: int | None
    warnings: list[Warning]
    balance_warnings: list[Warning]
    confirmable: dict[int, float] = field(default_factory=dict)
    """Rows (by position) whose amounts OCR read unsurely but which balance, with the
    confidence of the rest of the row: theirs if the document's sums hold as well."""


def osv_document(
    grid: Grid,
    titles: Titles,
    body: OsvBody,
    money_cols: Sequence[int],
    header_confidence: float,
    span: tuple[int, int],
) -> TrialBalance:
    """The trial balance of a read body: parents against children, Итого against the top level,
    debit against credit, confidence, and the document's place on the sheet."""
    locate = Locate(grid)
    out_rows = body.rows
    warnings = body.warnings
    variant, account = _variant(titles, out_rows)
    if body.totals_values is None:
        warnings.append(warning("NO_TOTALS", "Строка «Итого» не найдена", locate.where(), INFO))
    warnings += body.balance_warnings
    parents = (
        (
            out_rows[number - 1].code or out_rows[number - 1].name or "",
            body.row_indices[number - 1],
            written_cents_of(out_rows[number - 1]),
            body.children[number],
        )
        for number in sorted(body.children)
    )
    sums = sum_warnings(
        parents,
        body.top_sums,
        body.totals_values,
        body.totals_index,
        money_cols,
        locate,
        general=variant == "general",
    )
    warnings += sums
    warnings += osv_outliers(
        [(body.row_indices[k], written_cents_of(row)) for k, row in enumerate(out_rows)],
        locate,
    )
    confidences = body.confidences
    if not sums and body.confirmable:
        # Amounts the arithmetic confirms (each row balances, and so do parents, totals and
        # sides) are right however unsure their reading was.
        confidences = [body.confirmable.get(k, c) for k, c in enumerate(confidences)]
        out_rows = [
            row._replace(confidence=confidences[k]) if k in body.confirmable else row
            for k, row in enumerate(out_rows)
        ]
    doc_conf = document_confidence(header_confidence, confidences)
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
    totals = None
    if body.totals_values is not None and body.totals_index is not None:
        od, oc, td, tc, cd, cc = map(format_cents, body.totals_values)
        totals = Totals(od, oc, td, tc, cd, cc, locate.row(body.totals_index))
    first = _first_nonempty(grid)
    return TrialBalance(
        variant=variant,
        title=titles.title,
        organisation=titles.organisation,
        period=titles.period,
        currency=titles.currency,
        unit=titles.unit,
        account=account,
        rows=tuple(out_rows),
        totals=totals,
        confidence=doc_conf,
        locator=locate.span(min(first, span[0]), span[1]),
        warnings=capped(warnings),
    )


def _first_nonempty(grid: Grid) -> int:
    for index, row in enumerate(grid.rows):
        if any(not is_empty(c) for c in row):
            return index
    return 0


class _CodeTree:
    """Levels and parents from the codes (60.1 under 60) and the kind of row: subconto rows
    under the account above them, or, when the table starts with subconto, each one a group
    of the accounts below it."""

    def __init__(self) -> None:
        self.subconto_first: bool | None = None
        self.codes: dict[str, tuple[int, int]] = {}  # code -> (id, level)
        self.last_account: tuple[int, int] | None = None
        self.group: tuple[int, int] | None = None
        # (indent, id, level) of the subconto rows under the last account: a deeper indented
        # one (a contract under its counterparty) is the child of the one above it.
        self.subconto: list[tuple[int, int, int]] = []

    def place(
        self, number: int, kind: str, code: str | None, indent: int = 0
    ) -> tuple[int | None, int]:
        if self.subconto_first is None:
            self.subconto_first = kind == "subconto"
        if kind == "subconto" or code is None:
            if self.subconto_first:
                self.codes.clear()
                self.group = (number, 0)
                return None, 0
            if self.last_account is None:
                return None, 0
            while self.subconto and self.subconto[-1][0] >= indent:
                self.subconto.pop()
            above, depth = self.subconto[-1][1:] if self.subconto else self.last_account
            self.subconto.append((indent, number, depth + 1))
            return above, depth + 1
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
        self.subconto.clear()
        return parent, level


def _variant(titles: Titles, rows: list[TrialBalanceRow]) -> tuple[Variant, AccountRef | None]:
    if titles.by_subconto:
        return "subconto", None
    if titles.account_code is not None:
        name = titles.account_name
        if name is None:
            name = next((r.name for r in rows if r.code == titles.account_code), None)
        return "account", AccountRef(titles.account_code, name)
    if rows and rows[0].kind == "subconto":
        return "subconto", None
    return "general", None
