"""A trial balance (ОСВ) grid into the contract's document: each row read, placed in the
hierarchy, checked against its own balance and added to its parent's sums."""

from __future__ import annotations

from document_extraction.accounts import code_from_cell
from document_extraction.captions import HeaderRepeats
from document_extraction.checks import (
    balance_mismatch,
    row_balances,
)
from document_extraction.confidence import (
    ocr_of,
    row_confidence,
)
from document_extraction.findings import INFO, Locate, warning
from document_extraction.grid import Grid
from document_extraction.layouts.line_labels import is_totals_label
from document_extraction.layouts.trial_balance.amounts import RowAmounts, turnovers_turned
from document_extraction.layouts.trial_balance.document import (
    OsvBody,
    TotalsLine,
    has_no_amounts,
    osv_document,
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
from document_extraction.titles import Titles
from recognition_contract import (
    MONEY_FIELDS,
    RowKind,
    TrialBalance,
    TrialBalanceRow,
    Warning,
)


def build_osv(grid: Grid, header: OsvHeader, titles: Titles) -> TrialBalance:
    """One pass over the body: each row is read, placed in the hierarchy, checked against its
    own balance and added to its parent's sums, and written out as the contract's row."""
    locate = Locate(grid)
    rows = grid.rows
    label_col = header.label_col
    name_col = header.name_col
    indicator_col = header.indicator_col
    money_cols = tuple(header.money[f] for f in MONEY_FIELDS)
    if header.turnover_assumed and turnovers_turned(rows, header.last_row + 1, money_cols):
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
    outline_tree = OutlineTree(outline)
    codes = CodeTree()
    amounts_of = RowAmounts(money_cols, locate)
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
        caption = first_text(row, first_money, level_col)
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
        if caption is not None and is_section_heading(caption) and has_no_amounts(row, money_cols):
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
        if values.count(None) == 6 and is_signature(row, money_cols):
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
            indent = indent_of(label_cell) if kind == "subconto" else 0
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
