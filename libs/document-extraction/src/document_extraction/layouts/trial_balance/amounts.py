"""A trial balance row's six money cells into cents, with the warnings a bad cell earns and the
repairs a row's own balance confirms (a lost decimal comma, a quantity glued to an amount,
turnovers printed on the other sides)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import combinations

from document_extraction.checks import (
    row_balances,
)
from document_extraction.confidence import (
    UNREADABLE_CELL_PENALTY,
)
from document_extraction.findings import Locate, warning
from document_extraction.grid import CellValue
from document_extraction.layouts.trial_balance.labels import cells_of
from document_extraction.numbers import Cents, float_cents, format_cents, read_cents
from recognition_contract import (
    Warning,
)

# Body rows looked at to tell how signed balances are printed.
SIGN_ROWS = 200
# Distinct text amounts remembered per sheet; beyond this they are read afresh.
TEXT_CACHE_SIZE = 4096


def turnovers_turned(
    rows: Sequence[Sequence[CellValue]], start: int, money_cols: Sequence[int]
) -> bool:
    """Whether more rows balance with the two turnover columns the other way round."""
    signed = [money_cols[i] == money_cols[i + 1] for i in (0, 4)]
    as_captioned = turned = 0
    for row in rows[start : start + SIGN_ROWS]:
        od, oc, td, tc, cd, cc = (read_cents(c).value or 0 for c in cells_of(row, money_cols))
        opening = od if signed[0] else od - oc  # a signed balance column is read once
        closing = cd if signed[1] else cd - cc
        as_captioned += closing == opening + td - tc
        turned += closing == opening + tc - td
    return turned > as_captioned


class RowAmounts:
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
        # Credit turnovers printed with their minus (an ERP's ledger): read as their amount.
        self.credit_turnover_negated = False

    def cents(self, cell: CellValue) -> Cents:
        if not isinstance(cell, str):
            return read_cents(cell)
        cents = self.text_cents.get(cell)
        if cents is None:
            cents = read_cents(cell)
            if len(self.text_cents) < TEXT_CACHE_SIZE:
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
        if self.credit_turnover_negated and values[3] is not None:
            values[3] = -values[3]
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

    def choose_credit_turnover_sign(self, rows: Sequence[Sequence[CellValue]], start: int) -> bool:
        """Whether credit turnovers are printed with a minus (an ERP's ledger prints every credit
        so): true when none read is positive and more rows balance with them taken as their
        amounts (closing = opening + Dt − Ct) than as printed."""
        usual = negated = 0
        for row in rows[start : start + SIGN_ROWS]:
            od, oc, td, tc, cd, cc = (
                read_cents(c).value or 0 for c in cells_of(row, self.money_cols)
            )
            if tc > 0:
                return False
            opening = od if 0 in self.signed else od - oc  # a signed column is read once
            closing = cd if 4 in self.signed else cd - cc
            usual += tc != 0 and closing == opening + td - tc
            negated += tc != 0 and closing == opening + td + tc
        self.credit_turnover_negated = negated > usual
        return self.credit_turnover_negated

    def choose_sign(self, rows: Sequence[Sequence[CellValue]], start: int) -> bool:
        """Whether signed balances print credit balances as positive: true when more rows
        balance that way (closing = opening + Dt − Ct) than the usual way."""
        if self.signed != [0, 4]:
            return False
        usual = flipped = 0
        for row in rows[start : start + SIGN_ROWS]:
            opening, debit, credit, closing = (
                read_cents(c).value or 0 for c in cells_of(row, self.money_cols[1:5])
            )
            if self.credit_turnover_negated:
                credit = -credit
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
