"""The trial balance's rows made into the contract's document: its totals chosen by the sums,
its checks, variant and confidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from document_extraction.checks import (
    osv_outliers,
    sum_warnings,
)
from document_extraction.confidence import (
    LOW_CONFIDENCE,
    document_confidence,
)
from document_extraction.findings import INFO, Locate, capped, warning
from document_extraction.grid import CellValue, Grid
from document_extraction.nesting import written_cents_of
from document_extraction.numbers import format_cents
from document_extraction.text import is_empty
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


def has_no_amounts(row: Sequence[CellValue], money_cols: Sequence[int]) -> bool:
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
    variant, account = variant_of(titles, out_rows)
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
    first = first_nonempty_row(grid)
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


def first_nonempty_row(grid: Grid) -> int:
    for index, row in enumerate(grid.rows):
        if any(not is_empty(c) for c in row):
            return index
    return 0


def variant_of(titles: Titles, rows: list[TrialBalanceRow]) -> tuple[Variant, AccountRef | None]:
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
