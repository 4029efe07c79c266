"""A statement grid into the contract's document: the title lines, the rows under the header,
each operation's side as the arithmetic chooses it, what the lines tell the header, the checks."""

from __future__ import annotations

from dataclasses import replace

import recognition_contract as contract
from document_extraction.captions import MAX_COLUMNS
from document_extraction.checks import check_account, check_statement, check_tax_id
from document_extraction.confidence import LOW_CONFIDENCE, document_confidence
from document_extraction.findings import INFO, WARNING, Locate, capped, warning
from document_extraction.grid import Grid
from document_extraction.identifiers import currency_of_account
from document_extraction.layouts.statement.balances import balances_from_running_balance
from document_extraction.layouts.statement.body import Body, read_body
from document_extraction.layouts.statement.cells import SUMS_FAILED, UNTITLED_CONFIDENCE
from document_extraction.layouts.statement.head import Head, currency_of, read_head
from document_extraction.layouts.statement.header import StatementHeader
from document_extraction.layouts.statement.lines import CellReader, Columns
from document_extraction.layouts.statement.sides import Sided, settle_sides
from document_extraction.numbers import format_money
from document_extraction.text import as_text, is_empty, line_of, norm
from recognition_contract import Statement, Warning


def build_statement(grid: Grid, header: StatementHeader) -> Statement:
    reader = CellReader(grid, Columns.of(grid, header), Locate(grid))
    head = read_head(grid.rows, header.first_row, reader.locate, reader.warnings)
    body = read_body(reader, header, head)
    reader.warnings.extend(not_executed_warnings(body, reader.locate))
    sided = settle_sides(body, head, reader.columns, reader.locate)
    reader.warnings.extend(sided.warnings)
    complete_head(head, reader, header, sided, body)
    return statement_document(reader, header, head, body, sided)


def not_executed_warnings(body: Body, locate: Locate) -> list[Warning]:
    return [
        warning(
            "OPERATION_NOT_EXECUTED",
            f"Операций со статусом «{status}» (не проведены): {count}; они не учтены",
            locate.where(),
            INFO,
        )
        for status, count in body.not_executed.items()
    ]


def complete_head(
    head: Head, reader: CellReader, header: StatementHeader, sided: Sided, body: Body
) -> None:
    """What the lines tell the header where its title lines did not: the balances from a
    running balance column, the currency from a currency column or the account, the account
    printed on every line."""
    rows, by_role = reader.grid.rows, reader.columns.by_role
    if "balance" in by_role:
        balances_from_running_balance(
            head, rows, by_role["balance"], sided.lines, reader.locate, reader.warnings
        )
    if head.currency is None and "currency" in by_role:
        printed = {as_text(rows[line.index][by_role["currency"]]) for line in sided.lines}
        if len(printed) == 1:
            head.currency = currency_of(printed.pop())
    own_accounts = {op.own_account for op in body.operations if op.own_account}
    if head.account is None and len(own_accounts) == 1:
        # The statement's own account printed on every line instead of in its header.
        head.account = own_accounts.pop()
        head.account_where = reader.locate.row(header.row + 1, reader.columns.own_account)
    if head.currency is None:
        head.currency = currency_of_account(head.account)


def statement_document(
    reader: CellReader, header: StatementHeader, head: Head, body: Body, sided: Sided
) -> Statement:
    locate, rows = reader.locate, reader.grid.rows
    warnings = check_account(head.account, head.account_where or locate.where(), "выписка")
    warnings += check_tax_id(
        head.holder_tax_id, head.holder_where or locate.where(), "владелец счета"
    )
    warnings += reader.warnings
    checked = check_statement(
        sided.lines,
        head.opening,
        head.closing,
        sided.total_debit,
        sided.total_credit,
        _checks_anchor(locate, head, body),
        (head.period.start, head.period.end) if head.period else None,
        locate,
        reader.columns.date,
    )
    warnings += checked
    sums_hold = not any(w.code in SUMS_FAILED for w in checked) and (
        (head.opening is not None and head.closing is not None)
        or (sided.total_debit is not None and sided.total_credit is not None)
    )
    # OCR's doubt about a cell a check confirms says nothing: what stays is the doubt about
    # what no check covers (names, purposes, numbers).
    operations = body.operations
    confidences = [op.summed if sums_hold else op.vouched for op in operations]
    transactions = tuple(
        replace(line, confidence=sure)
        for line, sure in zip(sided.transactions, confidences, strict=True)
    )
    certainty = _certainty(reader, header)
    quiet = not transactions and head.opening is not None and head.opening == head.closing
    # A quiet account's statement has nothing to read but its header and balances.
    doc_conf = certainty if quiet else document_confidence(certainty, confidences)
    if doc_conf < LOW_CONFIDENCE:
        text = f"Низкая уверенность распознавания выписки: {doc_conf}"
        warnings.append(warning("LOW_CONFIDENCE", text, locate.where()))
    if not transactions:
        # No operations and an unchanged balance: a quiet account, not a reading failure.
        text = "В выписке не найдено ни одной операции"
        warnings.append(warning("NO_ROWS", text, locate.where(), INFO if quiet else WARNING))
    first = next((i for i, r in enumerate(rows) if any(not is_empty(c) for c in r)), 0)
    last = max(
        i for i in (body.last_index, head.closing_index, head.opening_index) if i is not None
    )
    return Statement(
        header=_header_of(head, sided),
        transactions=transactions,
        confidence=doc_conf,
        locator=locate.span(min(first, header.row), last),
        warnings=capped(warnings),
    )


def _checks_anchor(locate: Locate, head: Head, body: Body) -> contract.Locator:
    """Where the statement's sums are checked: its totals line, else its closing balance."""
    if body.totals_index is not None:
        return locate.row(body.totals_index)
    if head.closing_index is not None:
        return locate.row(head.closing_index)
    return locate.where()


def _certainty(reader: CellReader, header: StatementHeader) -> float:
    """A table of dates and amounts without a "Выписка" title may be a ledger, not a statement."""
    rows = reader.grid.rows
    titled = any(
        "выписк" in norm(line_of(list(rows[i][:MAX_COLUMNS]))) for i in range(header.first_row)
    )
    return header.confidence if titled else min(header.confidence, UNTITLED_CONFIDENCE)


def _header_of(head: Head, sided: Sided) -> contract.StatementHeader:
    return contract.StatementHeader(
        bank_name=head.bank_name,
        bank_bic=head.bank_bic,
        account=head.account,
        currency=head.currency,
        holder_name=head.holder_name,
        holder_tax_id=head.holder_tax_id,
        period=head.period,
        opening_balance=format_money(head.opening),
        closing_balance=format_money(head.closing),
        total_debit=format_money(sided.total_debit),
        total_credit=format_money(sided.total_credit),
    )
