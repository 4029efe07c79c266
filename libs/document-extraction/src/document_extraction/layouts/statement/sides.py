"""Each operation's side, as the statement's arithmetic chooses it: of the readings its columns
allow (signs, a direction column, debit and credit as captioned or swapped), the one under which
its balances and totals hold; said in an ``info`` warning where it overrules the captions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from document_extraction.checks import ZERO, StatementLine
from document_extraction.findings import INFO, Locate, warning
from document_extraction.layouts.statement.balances import READING_REASONS
from document_extraction.layouts.statement.body import Body
from document_extraction.layouts.statement.head import Head
from document_extraction.layouts.statement.lines import Columns
from document_extraction.numbers import format_money
from document_extraction.readings import (
    Reading,
    choose_reading,
    column_readings,
    identities_held,
    signed_readings,
)
from recognition_contract import Equivalents, Transaction, Warning


@dataclass(frozen=True)
class Sided:
    """The operations on their sides, with the totals as the chosen reading has them."""

    transactions: list[Transaction]
    lines: list[StatementLine]
    total_debit: Decimal | None
    total_credit: Decimal | None
    warnings: list[Warning]


def settle_sides(body: Body, head: Head, columns: Columns, locate: Locate) -> Sided:
    lines = [operation.check for operation in body.operations]
    total_debit, total_credit = totals_by_lines(body, lines)
    signed_values = [operation.signed_value for operation in body.operations]
    if columns.signed:
        directions = [op.direction for op in body.operations]
        readings = signed_readings(signed_values, directions if columns.directed else None)
    else:
        readings = column_readings([(line.debit, line.credit) for line in lines])
    reading, overruled = choose_reading(
        readings, head.opening, head.closing, total_debit, total_credit
    )
    transactions, lines = _on_sides(body, reading, columns)
    if reading.swaps_totals:
        total_debit, total_credit = total_credit, total_debit
    warnings = []
    if overruled:
        warnings.append(
            warning("SIGN_CONVENTION", READING_REASONS[reading.name], locate.where(), INFO)
        )
    elif sides_unknown(reading, signed_values, columns) and not identities_held(
        reading, head.opening, head.closing, total_debit, total_credit
    ):
        warnings.append(
            warning(
                "SIDES_UNKNOWN",
                "Все суммы без знака, колонки направления нет: стороны операций не "
                "определены, суммы прочитаны как поступления",
                locate.where(),
            )
        )
    return Sided(transactions, lines, total_debit, total_credit, warnings)


def totals_by_lines(
    body: Body, lines: Sequence[StatementLine]
) -> tuple[Decimal | None, Decimal | None]:
    """The totals line's figures, or the two amounts beside its label where those, and not the
    figures under the amount columns, equal the lines' sums."""
    totals = body.total_debit, body.total_credit
    if body.totals_beside_label is None:
        return totals
    debits = sum((line.debit or ZERO for line in lines), ZERO)
    credits = sum((line.credit or ZERO for line in lines), ZERO)
    if totals != (debits, credits) and body.totals_beside_label == (debits, credits):
        return body.totals_beside_label
    return totals


def sides_unknown(
    reading: Reading, signed_values: Sequence[Decimal | None], columns: Columns
) -> bool:
    """Unsigned amounts and nothing that could tell a side: no sign, no direction column, no
    running balance (whether balances or totals check the reading is for the caller)."""
    return (
        reading.name == "credit_positive"
        and bool(signed_values)
        and all(value is None or value >= 0 for value in signed_values)
        and "balance" not in columns.by_role
    )


def _on_sides(
    body: Body, reading: Reading, columns: Columns
) -> tuple[list[Transaction], list[StatementLine]]:
    transactions = []
    lines = []
    for operation, (debit, credit) in zip(body.operations, reading.sides, strict=True):
        transaction = operation.transaction
        turned = transaction.equivalents
        if turned is not None and reading.swaps_totals and not columns.shared_equivalent:
            turned = Equivalents(turned.credit, turned.debit)
        if columns.shared_equivalent:
            turned = _equivalent_on_side(operation.equivalent, credit is not None)
        transactions.append(
            replace(
                transaction,
                debit=format_money(debit),
                credit=format_money(credit),
                equivalents=turned,
            )
        )
        read = operation.check
        lines.append(StatementLine(read.index, read.date, debit, credit))
    return transactions, lines


def _equivalent_on_side(equivalent: Decimal | None, on_credit: bool) -> Equivalents:
    """A shared equivalent column's amount, put on the operation's side."""
    amount = format_money(abs(equivalent) if equivalent is not None else None)
    return Equivalents(None, amount) if on_credit else Equivalents(amount, None)
