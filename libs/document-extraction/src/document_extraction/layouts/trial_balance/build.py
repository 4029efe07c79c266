"""A trial balance (ОСВ) grid into the contract's document: the columns settled, the sign
conventions the rows' arithmetic chose said, every row read (``rows``), the document checked
(``document``)."""

from __future__ import annotations

from document_extraction.findings import INFO, Locate, warning
from document_extraction.grid import Grid
from document_extraction.layouts.trial_balance.document import osv_document
from document_extraction.layouts.trial_balance.header import OsvHeader
from document_extraction.layouts.trial_balance.rows import OsvRows, OsvTable
from document_extraction.titles import Titles
from recognition_contract import TrialBalance, Warning

_TURNOVERS_TURNED = (
    "«Расход» прочитан как оборот по дебету, «Приход» как оборот по кредиту: только так "
    "сходятся строки (сальдо на конец = сальдо на начало + Дт − Кт)"
)
_CREDIT_POSITIVE = (
    "Сальдо со знаком прочитано как кредитовое при плюсе: только так сходятся строки "
    "(сальдо на конец = сальдо на начало + Дт − Кт)"
)


def build_osv(grid: Grid, header: OsvHeader, titles: Titles) -> TrialBalance:
    table = OsvTable.of(grid, header)
    rows = OsvRows(grid, header, table, Locate(grid))
    rows.warnings.extend(sign_conventions(rows, header))
    for index in range(table.body_start, len(grid.rows)):
        if not rows.read(index):
            break
    span = header.first_row, max(rows.last_index, header.last_row)
    return osv_document(grid, titles, rows.body(), table.money, header.confidence, span)


def sign_conventions(rows: OsvRows, header: OsvHeader) -> list[Warning]:
    """What the rows' arithmetic chose against the captions: «Приход | Расход» turned, signed
    balances read credit-positive (the choice is made here, before any row is read)."""
    where = rows.locate.where()
    said = []
    # Credits printed with their minus are a convention of the print, not a reading to say.
    rows.amounts.choose_credit_turnover_sign(rows.grid.rows, rows.table.body_start)
    if rows.table.money[2] != header.money["turnover_debit"]:
        said.append(warning("SIGN_CONVENTION", _TURNOVERS_TURNED, where, INFO))
    if rows.amounts.choose_sign(rows.grid.rows, rows.table.body_start):
        said.append(warning("SIGN_CONVENTION", _CREDIT_POSITIVE, where, INFO))
    return said
