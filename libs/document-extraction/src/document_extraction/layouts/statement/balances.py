"""A statement's opening and closing balances from a running balance column, and the words that
say which reading of the sides the balances and totals chose."""

from __future__ import annotations

from collections.abc import Sequence

from document_extraction.checks import (
    StatementLine,
)
from document_extraction.findings import INFO, Locate, warning
from document_extraction.grid import CellValue
from document_extraction.layouts.statement.head import Head
from document_extraction.numbers import (
    format_money,
    parse_amount,
)
from document_extraction.readings import (
    read_running_balance,
)
from recognition_contract import Warning

READING_REASONS = {
    "direction": "Стороны операций взяты из колонки направления: при этом сходятся остатки и итоги",
    "direction_completed": "Сторона операций с нечитаемой отметкой направления взята из "
    "остатков и итогов: только при этом они сходятся",
    "credit_positive": "Положительные суммы прочитаны как поступления: при этом сходятся остатки "
    "и итоги",
    "debit_positive": "Положительные суммы прочитаны как списания, отрицательные как поступления: "
    "только при этом сходятся остатки и итоги",
    "swapped": "Колонки дебета и кредита прочитаны наоборот (списания из колонки «Кредит», "
    "поступления из колонки «Дебет»): только при этом сходятся остатки и итоги",
}


def balances_from_running_balance(
    head: Head,
    rows: Sequence[Sequence[CellValue]],
    col: int,
    lines: Sequence[StatementLine],
    locate: Locate,
    warnings: list[Warning],
) -> None:
    """A running-balance column checks every line against the one before it, and gives the
    balances a statement without balance lines does not print."""
    balances = [
        parse_amount(rows[line.index][col] if col < len(rows[line.index]) else None).value
        for line in lines
    ]
    running = read_running_balance(balances, [(line.debit, line.credit) for line in lines])
    if running is None:
        return
    for position in running.broken[:1]:
        line = lines[position]
        warnings.append(
            warning(
                "RUNNING_BALANCE_MISMATCH",
                "Остаток после операции не равен предыдущему остатку с учетом операции",
                locate.row(line.index, col),
            )
        )
    if head.opening is None and head.closing is None and not running.broken:
        head.opening, head.closing = running.opening, running.closing
        warnings.append(
            warning(
                "BALANCES_FROM_RUNNING_BALANCE",
                f"Остатки взяты из колонки остатка: входящий {format_money(running.opening)}, "
                f"исходящий {format_money(running.closing)}",
                locate.where(),
                INFO,
            )
        )
