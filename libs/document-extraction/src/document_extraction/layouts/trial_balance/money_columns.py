"""A trial balance's six money columns: named by their captions (group and side), or, where
captions leave some open, placed by the body's arithmetic (the placement under which most rows
balance)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from document_extraction.captions import (
    Column,
)
from document_extraction.checks import row_balances
from document_extraction.grid import CellValue
from document_extraction.layouts.header_blocks import (
    FIT_ROWS,
    MAX_OPEN_FIELDS,
    MIN_BALANCED_ROWS,
    side_of,
)
from document_extraction.numbers import read_cents
from document_extraction.vocabulary import (
    INCOME_WORDS,
    NUMBER_WORD,
    OUTGO_WORDS,
    UNNAMED_WORDS,
)
from recognition_contract import MONEY_FIELDS


def _money_group(words: frozenset[str]) -> str | None:
    if "оборот" in words:
        return "turnover"
    start, end = "начало" in words, "конец" in words
    if start != end:
        return "opening" if start else "closing"
    if "сальдо" in words:
        return "balance"  # "Сальдо на 01.01.2025": which one is told by its place
    return None


MOVEMENT = "movement"


def money_role(column: Column) -> tuple[str, str | None] | None:
    """(group, side) of a trial balance money column, or None for any other column."""
    words = column.words
    if "корр" in words or "количество" in column.own or "итого" in words:
        return None
    side = side_of(column.own) or side_of(column.above)
    group = _money_group(words)
    if group is None:
        # "Сумма по дебету" between the balances: a turnover that does not say so (or whose
        # word for it OCR read as digits, "06." for "Об.").
        if side is not None and words - {NUMBER_WORD} <= UNNAMED_WORDS:
            return "unnamed", side
        # "Приход | Расход": turnovers whose side the body's arithmetic confirms or turns.
        if column.own & INCOME_WORDS:
            return MOVEMENT, "debit"
        if column.own & OUTGO_WORDS:
            return MOVEMENT, "credit"
        return None
    return group, side


def osv_money_columns(columns: Sequence[Column]) -> dict[str, int] | None:
    """The six money columns named by the captions, or None unless all six are."""
    money = named_money(columns)
    return money if len(money) == 6 else None


def named_money(columns: Sequence[Column]) -> dict[str, int]:
    """The money columns the captions name, by field."""
    roles = {c.index: role for c in columns if (role := money_role(c)) is not None}
    turnover = sorted(i for i, (g, _) in roles.items() if g == "turnover")

    def _placed(group: str, index: int) -> str | None:
        if group != "balance":
            return group
        if not turnover:
            return None
        return "opening" if index < turnover[0] else "closing"

    money: dict[str, int] = {}
    for index in sorted(roles):
        group, side = roles[index]
        placed = _placed(group, index)
        if side is not None and placed is not None:
            money.setdefault(f"{placed}_{side}", index)
    for group in ("opening", "closing"):
        if f"{group}_debit" in money or f"{group}_credit" in money:
            continue
        # One balance column without a side: a signed balance, debit positive.
        unsided = [i for i, (g, side) in roles.items() if side is None and _placed(g, i) == group]
        if len(unsided) == 1:
            money[f"{group}_debit"] = money[f"{group}_credit"] = unsided[0]
    for stand_in in ("unnamed", MOVEMENT):
        if "turnover_debit" not in money and "turnover_credit" not in money:
            for side in ("debit", "credit"):
                if f"{stand_in}_{side}" in money:
                    money[f"turnover_{side}"] = money[f"{stand_in}_{side}"]
    return {f: c for f, c in money.items() if f.split("_")[0] not in ("unnamed", MOVEMENT)}


# The groups a money column of each field may have been captioned with.
_GROUPS_OF = {
    "opening": ("opening", "balance"),
    "turnover": ("turnover", "unnamed", MOVEMENT),
    "closing": ("closing", "balance"),
}


def money_by_arithmetic(
    rows: Sequence[Sequence[CellValue]], start: int, columns: Sequence[Column], unsided: bool
) -> dict[str, int] | None:
    """The six money columns where captions name three to five of them and leave the others
    open among columns of money (a side misread beyond recognition: «Обороты за период fit»
    beside a currency column), or (``unsided``) name the three groups and none of the sides:
    the body's arithmetic chooses, the choice under which most rows balance, if at least half
    of the rows with amounts do."""
    named = named_money(columns)
    missing = [f for f in MONEY_FIELDS if f not in named]
    used = set(named.values())
    pairs = _unsided_pairs(columns) if unsided else None
    if pairs is not None:
        named, missing, used = {}, list(MONEY_FIELDS), set()
        options = [[pairs[f.split("_")[0]], pairs[f.split("_")[0]] + 1] for f in missing]
    elif not 1 <= len(missing) <= MAX_OPEN_FIELDS or len(used) < len(named):
        return None  # a signed balance column stands for two fields: no row equation
    else:
        options = [_captioned_for(name, columns, used) for name in missing]
    wanted = sorted(used.union(*options))
    body = [_row_cents(row, wanted) for row in rows[start : start + FIT_ROWS]]
    lines = [cents for cents in body if cents is not None and any(cents.values())]
    best: tuple[int, dict[str, int]] | None = None
    for chosen in itertools.product(*options):
        if len(set(chosen)) < len(chosen):
            continue
        money = {**named, **dict(zip(missing, chosen, strict=True))}
        balanced = sum(row_balances([cents[money[f]] for f in MONEY_FIELDS]) for cents in lines)
        # Ties go to the leftmost columns, as a caption's first column of a kind does.
        if best is None or balanced > best[0]:
            best = balanced, money
    if best is None or best[0] < max(MIN_BALANCED_ROWS, len(lines) / 2):
        return None
    return best[1]


def _captioned_for(name: str, columns: Sequence[Column], used: set[int]) -> list[int]:
    """The columns not yet taken whose captions allow money field ``name``."""
    group, side = name.split("_")
    return [
        c.index
        for c in columns
        if c.index not in used
        and (role := money_role(c)) is not None
        and role[0] in _GROUPS_OF[group]
        and role[1] in (None, side)
    ]


def _unsided_pairs(columns: Sequence[Column]) -> dict[str, int] | None:
    """The first column of each of the three groups (opening, turnover, closing) where no
    side is captioned and each group's caption stands over its column and a column no
    caption names: the row of sides went unread (a photo's line lost), and each group is a
    pair of sides for the arithmetic to order. None where any side is named."""
    roles = {c.index: money_role(c) for c in columns}
    if any(role is not None and role[1] is not None for role in roles.values()):
        return None
    pairs: dict[str, int] = {}
    for index, role in sorted(roles.items(), key=lambda item: item[0]):
        if role is None or role[0] not in _GROUPS_OF or index + 1 in roles:
            continue
        pairs.setdefault(role[0], index)
    return pairs if len(pairs) == len(_GROUPS_OF) else None


def _row_cents(row: Sequence[CellValue], columns: Sequence[int]) -> dict[int, int] | None:
    """A body row's amounts in cents by column (empty and dashes as 0), or None for a row
    with a cell that is no amount."""
    out: dict[int, int] = {}
    for col in columns:
        cents = read_cents(row[col] if col < len(row) else None)
        if cents.problem is not None:
            return None
        out[col] = cents.value or 0
    return out
