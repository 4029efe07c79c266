"""Subconto rows nested by their sums, where the page shows no hierarchy.

A printed trial balance loses a workbook's outline: a counterparty and the contracts under it
are set as one flat list under the account. The arithmetic still says which is which: a
counterparty's amounts are the sums of the contracts below it, and the account's amounts the
sums of its counterparties. A nesting is taken only where the account's own sums confirm it
and the flat list does not add up.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from recognition_contract import MONEY_FIELDS, TrialBalanceRow

_AMOUNTS = attrgetter(*MONEY_FIELDS)


def written_cents_of(row: TrialBalanceRow) -> list[int]:
    """A row's amounts in cents, read back exactly from the text format_cents wrote."""
    return [int(text.replace(".", "")) if text is not None else 0 for text in _AMOUNTS(row)]


def sums_by_parent(rows: Sequence[TrialBalanceRow]) -> tuple[dict[int, list[int]], list[int]]:
    """Sums in cents of each parent's children, by the parent's id, and of the top-level rows."""
    children: dict[int, list[int]] = {}
    top = [0] * len(MONEY_FIELDS)
    for row in rows:
        sums = top if row.parent is None else children.setdefault(row.parent, [0] * len(top))
        for column, cents in enumerate(written_cents_of(row)):
            sums[column] += cents
    return children, top


def nested_by_sums(rows: Sequence[TrialBalanceRow]) -> list[TrialBalanceRow]:
    """``rows`` with the subconto rows under each account nested where their sums say so."""
    out = list(rows)
    siblings: dict[int, list[int]] = {}
    for index, row in enumerate(out):
        if row.kind == "subconto" and row.parent is not None:
            siblings.setdefault(row.parent, []).append(index)
    for parent, members in siblings.items():
        account = out[parent - 1]
        if account.kind != "account" or _sum(out, members) == written_cents_of(account):
            continue
        trial = list(out)
        top = _nest(trial, members)
        if _sum(trial, top) == written_cents_of(account):
            out = trial
    return out


def _nest(rows: list[TrialBalanceRow], members: list[int]) -> list[int]:
    """Nest the sibling rows ``members`` (indices, in order) in place: a row whose amounts are
    the sums of the rows right below it takes them as its children. Gives the top ones."""
    top: list[int] = []
    position = 0
    while position < len(members):
        head = members[position]
        top.append(head)
        target = written_cents_of(rows[head])
        end = _children_end(rows, members, position, target) if any(target) else None
        if end is None:
            position += 1
            continue
        children = members[position + 1 : end]
        parent = rows[head]
        for index in children:
            rows[index] = rows[index]._replace(parent=parent.id, level=parent.level + 1)
        _nest(rows, children)
        position = end
    return top


def _children_end(
    rows: Sequence[TrialBalanceRow], members: list[int], position: int, target: list[int]
) -> int | None:
    """Where the run of rows after ``members[position]`` that adds up to ``target`` ends
    (exclusive), or None."""
    total = [0] * len(target)
    for end in range(position + 1, len(members)):
        for k, value in enumerate(written_cents_of(rows[members[end]])):
            total[k] += value
        if total == target:
            return end + 1
    return None


def _sum(rows: Sequence[TrialBalanceRow], members: Sequence[int]) -> list[int]:
    total = [0] * len(MONEY_FIELDS)
    for index in members:
        for column, cents in enumerate(written_cents_of(rows[index])):
            total[column] += cents
    return total
