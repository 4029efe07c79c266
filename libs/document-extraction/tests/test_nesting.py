"""Subconto rows nested by their sums where a page shows no hierarchy: a counterparty is the
sum of the contracts below it, and the account's sums must confirm the nesting."""

from __future__ import annotations

from document_extraction.layouts.trial_balance.document import osv_row
from document_extraction.nesting import nested_by_sums
from recognition_contract import Locator, TrialBalanceRow


def rows(*lines: tuple[str, int, int]) -> list[TrialBalanceRow]:
    """(name, opening debit, turnover credit) per row: an account first, subconto below it."""
    out = []
    for number, (name, opening, turnover) in enumerate(lines, start=1):
        account = number == 1
        out.append(
            osv_row(
                number,
                None if account else 1,
                "account" if account else "subconto",
                0 if account else 1,
                "41" if account else None,
                name,
                [opening * 100, None, None, turnover * 100, None, None],
                100.0,
                Locator(row=number),
            )
        )
    return out


def shape(result: list[TrialBalanceRow]) -> list[tuple[str | None, int | None, int]]:
    return [(row.name, row.parent, row.level) for row in result]


def test_counterparties_take_the_contracts_their_sums_are_made_of() -> None:
    flat = rows(
        ("Товары", 100, 9),
        ("Болт", 60, 5), ("Договор 1", 40, 2), ("Договор 2", 20, 3),
        ("Фанера", 40, 4), ("Договор 3", 40, 4),
    )  # fmt: skip
    assert shape(nested_by_sums(flat)) == [
        ("Товары", None, 0),
        ("Болт", 1, 1), ("Договор 1", 2, 2), ("Договор 2", 2, 2),
        ("Фанера", 1, 1), ("Договор 3", 5, 2),
    ]  # fmt: skip


def test_a_flat_list_that_adds_up_to_its_account_stays_flat() -> None:
    flat = rows(("Товары", 100, 9), ("Болт", 60, 5), ("Фанера", 40, 4))
    assert nested_by_sums(flat) == flat


def test_a_nesting_the_accounts_sums_do_not_confirm_is_not_taken() -> None:
    # "Болт" happens to equal the two rows below it, but then the account does not add up.
    flat = rows(("Товары", 150, 9), ("Болт", 60, 5), ("Фанера", 40, 2), ("Гвозди", 20, 3))
    assert nested_by_sums(flat) == flat
