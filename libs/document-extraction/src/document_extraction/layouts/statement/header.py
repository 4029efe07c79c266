"""A statement's table header: the block whose captions name a date and amounts and whose
body holds lines of them, deepened by the sub-captions below, each role's column chosen where
the lines fit it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from document_extraction.captions import (
    Column,
    HeaderCaptions,
)
from document_extraction.grid import CellValue
from document_extraction.layouts.header_blocks import (
    FIT_ROWS,
    MAX_HEADER_ROWS,
    MISREAD_VOCABULARY,
    amounts_below,
    guessed_confidence,
    header_blocks,
    header_end,
    is_amount_cell,
    is_date_cell,
    misread_columns_of,
    reads_better,
    words_only,
)
from document_extraction.layouts.protocol import TableHeader
from document_extraction.layouts.statement.columns import (
    BY_BODY,
    best_fit,
    captions_beside_values,
    column_by_body,
    counts_lines,
    flag_column,
    has_sides,
    is_constant,
    is_own_account,
    lines_of,
    number_beside_amounts,
)
from document_extraction.layouts.statement.entry_accounts import (
    accounts_by_side,
    holds_accounts,
    party_blocks,
)
from document_extraction.layouts.statement.roles import statement_roles
from document_extraction.vocabulary import (
    DATE_PREFERRED,
    NAME_WORDS,
    NUMBER_WORDS,
    SEQUENCE_WORDS,
)


@dataclass(frozen=True)
class StatementHeader:
    row: int  # the last header row: lines start below it
    columns: dict[str, int]
    confidence: float
    extra: dict[str, int] = field(default_factory=dict)
    first_row: int = 0  # the first header row: title lines end above it
    direction_col: int | None = None  # a column that says which side a signed amount is on
    # Candidate columns the captions could not tell apart (the body chose among them).
    date_candidates: tuple[int, ...] = ()
    misread_columns: tuple[int, ...] = ()  # columns named by a misread caption word

    @property
    def table(self) -> TableHeader:
        return TableHeader(self.first_row, self.row, dict(self.columns))


def _statement_block(
    columns: list[Column],
) -> tuple[list[Column], dict[int, str]] | None:
    roles = statement_roles(columns)
    found = set(roles.values())
    if "date" not in found or not ({"debit", "credit"} <= found or "amount" in found):
        return None
    return columns, roles


def _lines_below(rows: Sequence[Sequence[CellValue]], last: int, roles: dict[int, str]) -> bool:
    """Whether operations stand under the header: lines with a date in a date column and an
    amount in a money column, and amounts most of what the money columns hold."""
    body = header_end(rows, last) + 1
    below = rows[body : body + FIT_ROWS]
    # A side's column holding the entry's accounts is no money column (see entry_accounts).
    money = [
        i
        for i, role in roles.items()
        if role in ("debit", "credit", "amount") and not holds_accounts(below, i)
    ]
    dates = [i for i, role in roles.items() if role == "date"]
    return bool(lines_of(rows, body, money, dates)) and amounts_below(rows, body, money)


def _statement_reading(
    captions: HeaderCaptions, first: int, last: int
) -> tuple[list[Column], dict[int, str]] | None:
    """The block read exactly, or through misreads where that reads it better and the body
    confirms it."""
    exact = _statement_block(captions.columns(first, last))
    guessed_columns = captions.columns(first, last, MISREAD_VOCABULARY)
    if not any(column.guessed for column in guessed_columns):
        return exact
    guessed = _statement_block(guessed_columns)
    if guessed is None or not reads_better(exact and exact[1], guessed[1], guessed[0]):
        return exact
    return guessed if _lines_below(captions.rows, last, guessed[1]) else exact


def find_statement_header(rows: Sequence[Sequence[CellValue]]) -> StatementHeader | None:
    captions = HeaderCaptions(rows)
    for first, last in header_blocks(rows):
        block = _statement_reading(captions, first, last)
        if block is None:
            continue
        columns, roles = block
        # Sub-captions in the rows below ("Сумма" over "Дебет | Кредит", "Корреспондент" over
        # "Наименование | УНП | Счет"): the deeper block names more columns. A line of a
        # wrapped caption ("валютирования") between names none and is passed over once.
        passed = False
        for deeper in range(last + 1, min(first + MAX_HEADER_ROWS, len(rows))):
            wider = _statement_reading(captions, first, deeper)
            if wider is not None and len(wider[1]) > len(roles):
                (columns, roles), last = wider, deeper
            elif wider is not None and not passed and words_only(rows[deeper]):
                passed = True
            else:
                break
        end = header_end(rows, last)
        body = end + 1
        columns, roles = captions_beside_values(rows[body : body + FIT_ROWS], columns, roles)
        by_index = {c.index: c for c in columns}
        columns_of = _columns_of(roles, by_index)
        lines = _lines(rows, body, columns_of)
        # A side's column holding the entry's accounts, not amounts: lines are read again by
        # the amounts that remain.
        by_side = party_blocks(columns, accounts_by_side(lines, roles))
        if by_side != roles:
            roles = by_side
            columns_of = _columns_of(roles, by_index)
            lines = _lines(rows, body, columns_of)
        sides = has_sides(roles)
        chosen: dict[str, int] = {}
        extra: dict[str, int] = {}
        for role, candidates in columns_of.items():
            if role == "date":
                chosen[role] = best_fit(lines, candidates, is_date_cell, DATE_PREFERRED)
            elif role == "amount":
                chosen[role] = best_fit(lines, candidates, is_amount_cell, frozenset({"счет"}))
            elif role == "account" and is_own_account(lines, candidates):
                # One account on every line, under a caption that names no counterparty
                # (its counterparty's account column went unread): the statement's own.
                extra["own_account"] = candidates[0].index
                continue
            elif role == "account" and len(candidates) > 1:
                # The statement's own account printed on every line beside the counterparty's:
                # the one whose value never changes, unless the captions say whose is whose.
                theirs = [c for c in candidates if c.words & NAME_WORDS] or [
                    c for c in candidates if not is_constant(lines, c.index)
                ]
                theirs = theirs or candidates
                chosen[role] = theirs[0].index
                own = [c for c in candidates if c not in theirs]
                if own:
                    extra["own_account"] = own[0].index
                continue
            elif role == "sequence":
                extra["sequence"] = candidates[0].index
                continue
            elif role == "number":
                # A column counting the lines (№ п/п) beside the document number is not it.
                # Beside another number column, or under «п/п», two lines counting suffice.
                few = len(candidates) > 1
                counting = [
                    c
                    for c in candidates
                    if counts_lines(
                        lines, c.index, least=2 if few or c.words & SEQUENCE_WORDS else 4
                    )
                ]
                if counting:
                    extra["sequence"] = counting[0].index
                numbers = [c for c in candidates if c not in counting]
                if numbers:
                    chosen[role] = numbers[0].index
                continue
            else:
                chosen[role] = candidates[0].index
            for other in candidates:
                if other.index != chosen[role]:
                    extra.setdefault(role, other.index)
        direction = chosen.pop("direction", None)
        if sides:
            amount = chosen.pop("amount", None)
            direction = None
            # "№ док." with the group caption "Сумма" over the sides beside it, read into
            # one cell: the number's column, the sums are the sides'.
            if amount is not None and by_index[amount].words & NUMBER_WORDS:
                chosen.setdefault("number", amount)
        elif "amount" in chosen:
            chosen = number_beside_amounts(lines, chosen, by_index, roles)
            if direction is None:
                direction = flag_column(lines, {*chosen.values(), *extra.values()})
        for role, holds in BY_BODY:
            taken = {*chosen.values(), *extra.values(), direction}
            if role not in chosen and (found := column_by_body(lines, taken, holds)) is not None:
                chosen[role] = found
        date_candidates = tuple(c.index for c in columns_of["date"])
        misread = misread_columns_of(columns, [*chosen.values(), *extra.values(), direction])
        return StatementHeader(
            row=end,
            columns=chosen,
            confidence=guessed_confidence(100.0, misread),
            misread_columns=misread,
            extra=extra,
            first_row=first,
            direction_col=direction,
            date_candidates=date_candidates if len(date_candidates) > 1 else (),
        )
    return None


def _columns_of(roles: dict[int, str], by_index: dict[int, Column]) -> dict[str, list[Column]]:
    columns_of: dict[str, list[Column]] = {}
    for index in sorted(roles):
        columns_of.setdefault(roles[index], []).append(by_index[index])
    return columns_of


def _lines(
    rows: Sequence[Sequence[CellValue]], body: int, columns_of: dict[str, list[Column]]
) -> list[Sequence[CellValue]]:
    money = [c.index for r in ("debit", "credit", "amount") for c in columns_of.get(r, [])]
    return lines_of(rows, body, money, [c.index for c in columns_of.get("date", [])])
