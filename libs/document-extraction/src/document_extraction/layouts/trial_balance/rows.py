"""A trial balance's body, row by row: what each row is (a totals line, a caption, another
indicator's sub-row, a signature, an account or a subconto), where it stands in the hierarchy,
whether it balances, and how sure its reading is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from document_extraction.accounts import code_from_cell
from document_extraction.checks import balance_mismatch, row_balances
from document_extraction.confidence import ocr_of, row_confidence
from document_extraction.findings import Locate, warning
from document_extraction.grid import CellValue, Grid
from document_extraction.header_repeats import HeaderRepeats
from document_extraction.layouts.line_labels import is_totals_label
from document_extraction.layouts.trial_balance.amounts import RowAmounts, turnovers_turned
from document_extraction.layouts.trial_balance.document import (
    OsvBody,
    TotalsLine,
    has_no_amounts,
    osv_row,
    totals_by_sums,
    totals_chosen,
)
from document_extraction.layouts.trial_balance.header import OsvHeader
from document_extraction.layouts.trial_balance.labels import (
    first_text,
    indent_of,
    is_other_indicator,
    is_quantity_label,
    is_section_heading,
    is_section_totals,
    is_signature,
)
from document_extraction.layouts.trial_balance.levels import (
    CodeTree,
    OutlineTree,
    find_level_column,
)
from document_extraction.nesting import nested_by_sums, sums_by_parent
from document_extraction.row_numbers import labels_without_row_numbers
from document_extraction.text import as_text, clean, is_empty, norm
from recognition_contract import MONEY_FIELDS, RowKind, TrialBalanceRow, Warning


@dataclass(frozen=True)
class OsvTable:
    """Which column holds what, settled once for all the rows."""

    label: int
    name: int | None
    indicator: int | None
    money: tuple[int, ...]  # the six fields' columns, turnovers as the arithmetic placed them
    body_start: int
    level: int | None  # a column of outline levels printed as numbers
    outline: Mapping[int, int]  # grid row -> outline level
    label_formats: Mapping[int, str]  # grid row -> the label cell's number format

    @classmethod
    def of(cls, grid: Grid, header: OsvHeader) -> OsvTable:
        money = tuple(header.money[f] for f in MONEY_FIELDS)
        body_start = header.last_row + 1
        if header.turnover_assumed and turnovers_turned(grid.rows, body_start, money):
            od, oc, td, tc, cd, cc = money
            money = (od, oc, tc, td, cd, cc)
        label = header.label_col
        # Only the label column's formats matter; looked up by row.
        formats = grid.number_formats
        label_formats = {r: f for (r, c), f in formats.items() if c == label} if formats else {}
        level, outline = None, grid.outline_levels
        if not any(index >= body_start for index in outline):
            level, outline = find_level_column(grid.rows, body_start, min(label, min(money)))
        return cls(
            label, header.name_col, header.indicator_col, money, body_start, level, outline,
            label_formats,
        )  # fmt: skip

    @property
    def first_money(self) -> int:
        return min(self.money)

    @property
    def by_outline(self) -> bool:
        """Whether the workbook's outline (or a level column) gives the hierarchy."""
        return any(index >= self.body_start for index in self.outline)


@dataclass
class OsvRows:
    grid: Grid
    header: OsvHeader
    table: OsvTable
    locate: Locate
    warnings: list[Warning] = field(default_factory=list)
    balance_warnings: list[Warning] = field(default_factory=list)
    # The totals lines after the last row read so far.
    totals_lines: list[TotalsLine] = field(default_factory=list)
    rows: list[TrialBalanceRow] = field(default_factory=list)
    row_indices: list[int] = field(default_factory=list)  # per row (id - 1): its grid row
    confidences: list[float] = field(default_factory=list)
    confirmable: dict[int, float] = field(default_factory=dict)
    last_index: int = 0
    indented: bool = False

    def __post_init__(self) -> None:
        grid, table = self.grid, self.table
        self.amounts = RowAmounts(table.money, self.locate)
        self.repeats = HeaderRepeats(grid.rows, self.header.first_row, self.header.last_row)
        self.outline_tree = OutlineTree(table.outline)
        self.codes = CodeTree()
        self.last_index = self.header.last_row
        self.indicator_skips: dict[str, bool] = {}
        # Only a page glues cells together; a workbook's 100,000 rows are spared the pass.
        self.renumbered = (
            labels_without_row_numbers(grid.rows, table.body_start, table.label)
            if grid.kind == "page"
            else {}
        )

    def read(self, index: int) -> bool:
        """Reads one grid row; False where the table ends (a signature line)."""
        row = self.grid.rows[index]
        if row in self.repeats:
            return True
        table = self.table
        width = len(row)
        label = self.renumbered.get(index, row[table.label] if table.label < width else None)
        caption = first_text(row, table.first_money, table.level)
        if caption is not None and self._not_a_row(row, index, caption):
            return True
        if self._other_indicator(row, index, label):
            return True
        mark = len(self.warnings)
        values, penalty, empty = self.amounts.read(row, index, self.warnings)
        if values.count(None) == 6 and is_signature(row, table.money):
            del self.warnings[mark:]  # a "(подпись)" caption in a money column is no amount
            return False
        if is_empty(label):
            label = self._label_instead(row, index, empty)
            if label is None:
                return True
        self._add(row, index, label, values, penalty, empty)
        return True

    def _not_a_row(self, row: Sequence[CellValue], index: int, caption: str) -> bool:
        """A totals line, a quantity sub-row or a section's heading: no account of its own."""
        if is_totals_label(caption):
            # A totals line with rows after it was a subtotal ("Итого по разделу"), neither a
            # row nor the totals; of those after the last row the arithmetic picks one.
            read_warnings: list[Warning] = []
            values = self.amounts.read(row, index, read_warnings)[0]
            line = TotalsLine(index, values, read_warnings, is_section_totals(caption))
            self.totals_lines.append(line)
            self.last_index = index
            return True
        if is_quantity_label(caption):
            return True
        return is_section_heading(caption) and has_no_amounts(row, self.table.money)

    def _other_indicator(self, row: Sequence[CellValue], index: int, label: CellValue) -> bool:
        """A sub-row of another indicator than accounting's (НУ, ПР, ВР, quantities)."""
        column = self.table.indicator
        indicator = row[column] if column is not None and column < len(row) else None
        if not isinstance(indicator, str):
            return False
        skip = self.indicator_skips.get(indicator)
        if skip is None:
            skip = self.indicator_skips[indicator] = is_other_indicator(norm(indicator))
        if skip and self.grid.kind == "page" and self.rows and self.last_index == index - 1:
            # On a printed page a name wrapped in its cell runs on to the line of the
            # indicator row below ("Договор № 12/24 от" over "15.01.2024 | НУ").
            last, more = self.rows[-1], as_text(label)
            if more and more not in (last.code, last.name):
                self.rows[-1] = last._replace(name=f"{last.name or ''} {more}".strip())
        return skip

    def _label_instead(self, row: Sequence[CellValue], index: int, empty: bool) -> CellValue:
        """The name where the label cell is empty; None (the row passed over) where neither is,
        said when the row has amounts."""
        column = self.table.name
        name = row[column] if column is not None and column < len(row) else None
        if not is_empty(name):
            return name
        if not empty:
            text = "Строка с суммами без счета и субконто пропущена"
            self.warnings.append(warning("ROW_WITHOUT_LABEL", text, self.locate.row(index)))
            self.last_index = index
        return None

    def _add(
        self,
        row: Sequence[CellValue],
        index: int,
        label: CellValue,
        values: list[int | None],
        penalty: int,
        empty: bool,
    ) -> None:
        table = self.table
        code = code_from_cell(label, table.label_formats.get(index))
        kind: RowKind = "account" if code is not None else "subconto"
        if code is not None:
            name = code.name
            if name is None and table.name is not None and table.name < len(row):
                name = clean(row[table.name])
            penalty += code.penalty
        else:
            name = as_text(label)
            if not self.rows and empty:
                return  # a caption under the header ("Контрагенты", "Договоры"), not a row
        code_text = code.code if code is not None else None
        self.last_index = index
        self.totals_lines = []
        number = len(self.rows) + 1
        if table.by_outline:
            parent, level = self.outline_tree.place(number, index)
        else:
            indent = indent_of(label) if kind == "subconto" else 0
            self.indented = self.indented or indent > 0
            parent, level = self.codes.place(number, kind, code_text, indent)
        balanced = self._balanced(row, index, values, code_text or name or "")
        conf = self._confidence(index, penalty, balanced)
        self.row_indices.append(index)
        self.rows.append(
            osv_row(
                number, parent, kind, level, code_text, name, values, conf, self.locate.row(index)
            )
        )

    def _balanced(
        self, row: Sequence[CellValue], index: int, values: list[int | None], label: str
    ) -> bool:
        """Whether the row's own balance holds, once OCR's lost commas or glued numbers are
        repaired where that makes it hold; a mismatch noted otherwise."""
        amounts = [v or 0 for v in values]
        if row_balances(amounts):
            return True
        if self.grid.cell_confidence is not None:
            lost = self.amounts.separator_lost(row, index, values) or self.amounts.number_glued(
                row, index, values
            )
            if lost:
                self.warnings.extend(lost)
                return True
        self.balance_warnings.append(balance_mismatch(label, amounts, self.locate.row(index)))
        return False

    def _confidence(self, index: int, penalty: int, balanced: bool) -> float:
        ocr = self.grid.cell_confidence
        if ocr is None:
            conf: float = max(0, 100 - penalty)
        else:
            conf = row_confidence(
                penalty, ocr_of(ocr, index, [self.table.label, *self.table.money])
            )
            label_conf = row_confidence(penalty, ocr_of(ocr, index, [self.table.label]))
            if balanced and label_conf > conf:
                # The amounts' doubt is for the balance check to clear, later.
                self.confirmable[len(self.rows)] = label_conf
        self.confidences.append(conf)
        return conf

    def body(self) -> OsvBody:
        """The rows with their hierarchy settled, the sums of each parent's children, and the
        totals line the sums choose."""
        rows = self.rows
        if not self.table.by_outline and not self.indented:
            # A page shows no hierarchy of the subconto rows: their sums may.
            rows = nested_by_sums(rows)
        base = self.outline_tree.base
        children, top_sums = sums_by_parent(rows)
        totals = totals_by_sums(self.totals_lines, top_sums)
        if totals is not None:
            self.warnings += totals.warnings
            if len(self.totals_lines) > 1 and totals is not self.totals_lines[-1]:
                self.warnings.append(totals_chosen(totals, len(self.totals_lines), self.locate))
        if self.table.by_outline and base:
            # Levels count from the shallowest row; parents only compared levels with each other.
            rows = [out._replace(level=out.level - base) for out in rows]
        return OsvBody(
            rows,
            self.row_indices,
            self.confidences,
            children,
            top_sums,
            totals.values if totals is not None else None,
            totals.index if totals is not None else None,
            self.warnings,
            self.balance_warnings,
            self.confirmable,
        )
