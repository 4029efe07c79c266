"""A trial balance's table header: the label, name and indicator columns left of the six money
columns, read from captions (exactly, or through misread words the body confirms), widened by
caption rows above it."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from document_extraction.accounts import is_plain_code
from document_extraction.captions import (
    MAX_COLUMNS,
    Column,
    HeaderCaptions,
)
from document_extraction.grid import CellValue
from document_extraction.layouts.header_blocks import (
    FIT_ROWS,
    INFERRED_LABEL_CONFIDENCE,
    MAX_PAGE_HEADER_ROWS,
    MISREAD_VOCABULARY,
    amounts_below,
    guessed_confidence,
    header_blocks,
    header_end,
    misread_columns_of,
    reads_better,
)
from document_extraction.layouts.protocol import TableHeader
from document_extraction.layouts.trial_balance.money_columns import (
    MOVEMENT,
    money_by_arithmetic,
    money_role,
    named_money,
    osv_money_columns,
)
from document_extraction.misreads import Vocabulary
from document_extraction.text import is_counter
from document_extraction.vocabulary import (
    CODE_WORDS,
    INDICATOR_TEXTS,
    LABEL_WORDS,
    NUMBER_WORD,
)


@dataclass(frozen=True)
class OsvHeader:
    first_row: int  # index of the first caption row
    last_row: int  # index of the last header row (same as first_row for one-row headers)
    label_col: int
    name_col: int | None
    indicator_col: int | None
    money: dict[str, int]
    label_caption: str
    confidence: float
    # Turnovers captioned «Приход | Расход»: which is the debit the body's arithmetic decides.
    turnover_assumed: bool = False
    misread_columns: tuple[int, ...] = ()  # columns named by a misread caption word

    @property
    def table(self) -> TableHeader:
        labels = {"label": self.label_col, "name": self.name_col, "indicator": self.indicator_col}
        placed = {role: column for role, column in labels.items() if column is not None}
        return TableHeader(self.first_row, self.last_row, {**placed, **self.money})


def _label_kind(column: Column) -> str | None:
    """What a column left of the money names by its caption: "indicator", "name", "code",
    "label" (a counterparty, an item), or None."""
    # A column number read into the header is no caption: the one above it names the column.
    own = column.own if column.own - {NUMBER_WORD} else column.above
    if "корр" in own:
        return None
    if "показатели" in own or column.text in INDICATOR_TEXTS:
        return "indicator"
    # "Наименование счета" wrapped into a band of its own over "счета".
    if "наименование" in own or ("наименование" in column.above and own <= {"счет"}):
        return "name"
    if own & CODE_WORDS:
        return "code"
    if own & LABEL_WORDS:
        return "label"
    return None


def _osv_roles(columns: Sequence[Column]) -> dict[int, object]:
    roles: dict[int, object] = {}
    for column in columns:
        role = money_role(column) or _label_kind(column)
        if role is not None:
            roles[column.index] = role
    return roles


def _osv_header(
    rows: Sequence[Sequence[CellValue]],
    first: int,
    last: int,
    columns: Sequence[Column],
    money: dict[str, int],
) -> OsvHeader:
    money_cols = set(money.values())
    first_money = min(money_cols)
    found: dict[str, int] = {}
    for column in columns:
        if column.index in money_cols or column.index > first_money:
            continue
        kind = _label_kind(column)
        if kind is not None:
            found.setdefault(kind, column.index)
    code_col, name_col = found.get("code"), found.get("name")
    label_col, indicator_col = found.get("label"), found.get("indicator")
    captions = {c.index: c.text for c in columns}
    confidence = 100.0
    start = header_end(rows, last, money.values()) + 1
    if code_col is None and name_col is not None:
        others = [c for c in range(first_money) if c not in (name_col, indicator_col)]
        code_col = _codes_by_body(rows, start, others)
        if code_col is not None:
            confidence = INFERRED_LABEL_CONFIDENCE
    if code_col is not None:
        label_col, name_col = code_col, name_col
    elif name_col is not None:
        label_col, name_col = name_col, None
    elif label_col is None:
        candidates = [c for c in range(first_money) if c != indicator_col]
        label_col = _label_by_body(rows, start, candidates)
        confidence = INFERRED_LABEL_CONFIDENCE
    label_caption = captions.get(label_col, "")
    if name_col == label_col:
        name_col = None
    # A money column the rows' arithmetic placed may have no caption to read a role from.
    turnover = next((c for c in columns if c.index == money["turnover_debit"]), None)
    turnover_role = money_role(turnover) if turnover is not None else None
    return OsvHeader(
        first_row=first,
        last_row=header_end(rows, last, money.values()),
        label_col=label_col,
        name_col=name_col,
        indicator_col=indicator_col,
        money=money,
        label_caption=label_caption,
        confidence=confidence,
        turnover_assumed=turnover_role is not None and turnover_role[0] == MOVEMENT,
    )


def _label_by_body(rows: Sequence[Sequence[CellValue]], start: int, columns: Sequence[int]) -> int:
    """The label column no caption names (OCR read "Счет" as "Cuer"): of the ``columns``
    left of the money, the one whose body holds the most labels (texts, and codes of two
    digits or more: a row-number column beside it holds neither), the first on a tie."""

    def labels(column: int) -> int:
        return sum(
            isinstance(cell := row[column] if column < len(row) else None, str)
            and bool(cell.strip())
            and (not is_counter(cell) or is_plain_code(cell.strip()))
            for row in rows[start : start + FIT_ROWS]
        )

    return max(columns, key=lambda column: (labels(column), -column), default=0)


# A column beside a name column is its codes where this share of its filled cells are codes.
CODE_SHARE = 0.6
# Row numbers run on by one on at least this share of their neighbouring pairs.
RUN_SHARE = 0.8


def _codes_by_body(
    rows: Sequence[Sequence[CellValue]], start: int, columns: Sequence[int]
) -> int | None:
    """The code column no caption names ("счет" read as "cuer") beside a captioned name
    column: of the ``columns``, the first whose body is mostly account codes that do not run
    on by one (a row-number column does)."""
    for column in columns:
        cells = [row[column] for row in rows[start : start + FIT_ROWS] if column < len(row)]
        texts = [c.strip() for c in cells if isinstance(c, str) and c.strip()]
        codes = [t for t in texts if is_plain_code(t)]
        if len(codes) < 2 or len(codes) < CODE_SHARE * len(texts):
            continue
        numbers = [int(t) for t in codes if t.isdigit()]
        steps = [b - a == 1 for a, b in itertools.pairwise(numbers)]
        if len(numbers) == len(codes) and sum(steps) >= RUN_SHARE * len(steps):
            continue
        return column
    return None


def _caption_row(row: Sequence[CellValue]) -> bool:
    """Two texts or more, a printed row number or level not counted (a title line beside
    a level column is no caption row)."""
    return (
        sum(1 for c in row[:MAX_COLUMNS] if isinstance(c, str) and c.strip() and not is_counter(c))
        >= 2
    )


def _osv_reading(
    captions: HeaderCaptions, first: int, last: int, unsided: bool = False
) -> tuple[Vocabulary | None, list[Column], dict[str, int]] | None:
    """The block's columns and six money columns, read exactly or through misreads where that
    reads the block better and the body holds amounts under them; with the vocabulary it took
    (None: read exactly)."""
    rows = captions.rows
    columns = captions.columns(first, last)
    money = osv_money_columns(columns)
    exact = None if money is None else (None, columns, money)
    guessed_columns = captions.columns(first, last, MISREAD_VOCABULARY)
    start = header_end(rows, last) + 1
    if any(column.guessed for column in guessed_columns):
        guessed_money = osv_money_columns(guessed_columns)
        exact_roles = None if exact is None else _osv_roles(columns)
        if (
            guessed_money is not None
            and reads_better(exact_roles, _osv_roles(guessed_columns), guessed_columns)
            and amounts_below(rows, start, guessed_money.values())
        ):
            return MISREAD_VOCABULARY, guessed_columns, guessed_money
    if exact is not None:
        return exact
    completed = money_by_arithmetic(rows, start, guessed_columns, unsided)
    if completed is None:
        return None
    # A column the arithmetic had to place counts as a misread caption.
    placed = set(completed.values()) - set(named_money(guessed_columns).values())
    marked = [replace(c, guessed=True) if c.index in placed else c for c in guessed_columns]
    return MISREAD_VOCABULARY, marked, completed


def find_osv_header(rows: Sequence[Sequence[CellValue]]) -> OsvHeader | None:
    captions = HeaderCaptions(rows)
    # Groups without sides are read as pairs only where no block of the header names sides:
    # a header's row of groups alone, above its row of sides, is no header of its own.
    for unsided in (False, True):
        for first, last in header_blocks(rows):
            header = _osv_block(captions, first, last, unsided)
            if header is not None:
                return header
    return None


def _osv_block(captions: HeaderCaptions, first: int, last: int, unsided: bool) -> OsvHeader | None:
    rows = captions.rows
    reading = _osv_reading(captions, first, last, unsided)
    if reading is None:
        return None
    vocabulary, columns, money = reading
    # Caption rows right above the block belong to it ("Счет" over two rows of money
    # captions) as long as the money columns stay what they are.
    while last - first + 1 < MAX_PAGE_HEADER_ROWS and first > 0 and _caption_row(rows[first - 1]):
        wider = _osv_reading(captions, first - 1, last, unsided)
        if wider is None or wider[2] != money:
            break
        first, (vocabulary, columns, _) = first - 1, wider
    header = _osv_header(rows, first, last, columns, money)
    if vocabulary is None:
        return header
    used = [*money.values(), header.label_col, header.name_col, header.indicator_col]
    misread = misread_columns_of(columns, used)
    confidence = guessed_confidence(header.confidence, misread)
    return replace(header, confidence=confidence, misread_columns=misread)
