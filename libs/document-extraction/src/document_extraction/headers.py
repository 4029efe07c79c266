"""Finding the table header of a trial balance or a statement from its captions, never by
position: every column's caption is a set of words composed over the header rows (see
``captions``), and a header is the first block of one to four rows whose columns name what the
document needs, chosen where the body below fits it.

Captions are read exactly first. Where that finds no header in a block, or a statement header
that explains fewer columns, the block is read again with misread words taken for the caption
words they are nearest to through OCR's confusions (``captions.caption_vocabulary``); such a
reading counts only where the body confirms it (money columns hold amounts, date columns dates),
so that a misread word does not lose a document and fuzziness never makes a header of an
ordinary table. A header found that way is a little less certain."""

from __future__ import annotations

import datetime
import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from document_extraction.accounts import is_plain_code
from document_extraction.captions import (
    DATE_WORD,
    MAX_COLUMNS,
    NUMBER_WORD,
    Column,
    HeaderCaptions,
    caption_vocabulary,
    is_column_number_row,
)
from document_extraction.checks import row_balances
from document_extraction.dates import parse_date_cell
from document_extraction.grid import CellValue
from document_extraction.identifiers import normalize_tax_id, readable_account, tax_id_valid
from document_extraction.lookalikes import (
    LEGAL_FORMS,
    Vocabulary,
    latin_spelling,
    legal_form_spelled,
)
from document_extraction.numbers import parse_amount, read_cents
from document_extraction.readings import direction_of
from document_extraction.row_numbers import is_running_sequence
from document_extraction.text import as_text, is_counter, is_empty
from document_extraction.vocabulary import (
    ACCOUNT_WORDS,
    AMOUNT_WORDS,
    BALANCE_WORDS,
    BANK_WORDS,
    BIC_WORDS,
    CAPTION_WORDS,
    CARD_WORDS,
    CODE_WORDS,
    CREDIT_WORDS,
    DATE_PREFERRED,
    DEBIT_WORDS,
    DIRECTION_WORDS,
    EQUIVALENT_WORDS,
    INCOME_WORDS,
    INDICATOR_TEXTS,
    LABEL_WORDS,
    NAME_WORDS,
    NOT_NAME_WORDS,
    NUMBER_WORDS,
    OUTGO_WORDS,
    PURPOSE_WORDS,
    SEQUENCE_WORDS,
    STATUS_WORDS,
    TAX_ID_WORDS,
    TAX_REGISTRATION_WORDS,
    UNNAMED_WORDS,
)
from recognition_contract import MONEY_FIELDS

__all__ = [
    "HEADER_SCAN_ROWS",
    "MAX_COLUMNS",
    "MONEY_FIELDS",
    "OsvHeader",
    "StatementHeader",
    "find_osv_header",
    "find_statement_header",
]

# Headers sit near the top: title lines, parameters, a filter block. Deeper than this is not a
# header but data that happens to contain the words.
HEADER_SCAN_ROWS = 80
# A header spans at most this many rows (group captions, sides, a period line, numbers).
MAX_HEADER_ROWS = 4
# Caption rows above a header block that join it: a page without cell borders sets each line
# of a wrapped caption as a row of its own ("Сальдо" / "на" / "начало периода").
MAX_PAGE_HEADER_ROWS = 6
# Confidence of a header whose columns were placed by assumption rather than read.
INFERRED_LABEL_CONFIDENCE = 95
# Body rows looked at to tell which of two candidate columns the body fits.
FIT_ROWS = 200
# Money fields captions may leave open for the body's arithmetic to place, and how many rows
# must balance under the placement at least.
MAX_OPEN_FIELDS = 3
MIN_BALANCED_ROWS = 2
# Confidence a header loses per column it named through a misread caption word, and the least it
# keeps: its captions were not read as printed, but its body confirmed them.
GUESSED_CAPTION_PENALTY = 2
GUESSED_CAPTION_FLOOR = 90


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


def _blocks(rows: Sequence[Sequence[CellValue]]) -> list[tuple[int, int]]:
    """Header blocks (first, last) to try: the block that ends earliest first, and of those the
    shallowest, so that a title line above a one-row header never joins it."""
    blocks: list[tuple[int, int]] = []
    for last in range(min(len(rows), HEADER_SCAN_ROWS)):
        if all(is_empty(c) for c in rows[last][:MAX_COLUMNS]):
            continue
        for depth in range(1, MAX_HEADER_ROWS + 1):
            first = last - depth + 1
            if first < 0:
                break
            blocks.append((first, last))
    return blocks


def _header_end(rows: Sequence[Sequence[CellValue]], last: int, money: Iterable[int] = ()) -> int:
    """The last header row, counting the column-number rows printed under the captions and,
    given the ``money`` columns, the last lines of wrapped captions that a page without cell
    borders sets as rows of their own (words in money columns, no digit anywhere)."""
    wanted = set(money)
    while last + 1 < len(rows):
        row = rows[last + 1]
        if not (is_column_number_row(row) or (wanted and _caption_line(row, wanted))):
            break
        last += 1
    return last


def _caption_line(row: Sequence[CellValue], money: set[int]) -> bool:
    filled = [(c, cell) for c, cell in enumerate(row[:MAX_COLUMNS]) if not is_empty(cell)]
    return _words_only(row) and any(c in money and _LETTER.search(str(cell)) for c, cell in filled)


def _words_only(row: Sequence[CellValue]) -> bool:
    """Text without a digit in every filled cell: a caption's line, no line of values."""
    return all(
        isinstance(cell, str) and not any(ch.isdigit() for ch in cell)
        for cell in row[:MAX_COLUMNS]
        if not is_empty(cell)
    )


def _amounts_below(rows: Sequence[Sequence[CellValue]], start: int, columns: Iterable[int]) -> bool:
    """Whether the body from ``start`` holds amounts where captions say money stands: more
    amounts than words in its money columns (dashes and marks for nothing count for neither)."""
    amounts = words = 0
    wanted = sorted(set(columns))
    for row in rows[start : start + FIT_ROWS]:
        for col in wanted:
            cell = row[col] if col < len(row) else None
            if _is_amount(cell):
                amounts += 1
            elif isinstance(cell, str) and len(_LETTER.findall(cell)) >= 2:
                words += 1
    return amounts > words


def _reads_better(
    exact: Mapping[int, object] | None, guessed: Mapping[int, object], columns: Sequence[Column]
) -> bool:
    """Whether a block's roles read through misreads explain it better than those read exactly:
    where the exact reading finds a header, they differ only in columns whose captions were
    misread, and name as many columns at least."""
    if exact is None:
        return True
    misread = {column.index for column in columns if column.guessed}
    changed = {i for i in exact.keys() | guessed.keys() if exact.get(i) != guessed.get(i)}
    return bool(changed) and changed <= misread and len(guessed) >= len(exact)


def _misread(columns: Iterable[Column], used: Iterable[int | None]) -> tuple[int, ...]:
    """The columns a header uses whose captions were misread."""
    wanted = set(used)
    return tuple(
        sorted(column.index for column in columns if column.guessed and column.index in wanted)
    )


def _guessed_confidence(confidence: float, misread: Sequence[int]) -> float:
    if not misread:
        return confidence
    return min(confidence, max(GUESSED_CAPTION_FLOOR, 100 - GUESSED_CAPTION_PENALTY * len(misread)))


_LETTER = re.compile(r"[^\W\d_]")


# --- trial balance ---------------------------------------------------------------------------


def _side(words: frozenset[str]) -> str | None:
    debit, credit = "дебет" in words, "кредит" in words
    if debit == credit:
        return None
    return "debit" if debit else "credit"


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
    side = _side(column.own) or _side(column.above)
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
    money = _named_money(columns)
    return money if len(money) == 6 else None


def _named_money(columns: Sequence[Column]) -> dict[str, int]:
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


def _money_by_arithmetic(
    rows: Sequence[Sequence[CellValue]], start: int, columns: Sequence[Column], unsided: bool
) -> dict[str, int] | None:
    """The six money columns where captions name three to five of them and leave the others
    open among columns of money (a side misread beyond recognition: «Обороты за период fit»
    beside a currency column), or (``unsided``) name the three groups and none of the sides:
    the body's arithmetic chooses, the choice under which most rows balance, if at least half
    of the rows with amounts do."""
    named = _named_money(columns)
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
    start = _header_end(rows, last, money.values()) + 1
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
        last_row=_header_end(rows, last, money.values()),
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
    guessed_columns = captions.columns(first, last, _VOCABULARY)
    start = _header_end(rows, last) + 1
    if any(column.guessed for column in guessed_columns):
        guessed_money = osv_money_columns(guessed_columns)
        exact_roles = None if exact is None else _osv_roles(columns)
        if (
            guessed_money is not None
            and _reads_better(exact_roles, _osv_roles(guessed_columns), guessed_columns)
            and _amounts_below(rows, start, guessed_money.values())
        ):
            return _VOCABULARY, guessed_columns, guessed_money
    if exact is not None:
        return exact
    completed = _money_by_arithmetic(rows, start, guessed_columns, unsided)
    if completed is None:
        return None
    # A column the arithmetic had to place counts as a misread caption.
    placed = set(completed.values()) - set(_named_money(guessed_columns).values())
    marked = [replace(c, guessed=True) if c.index in placed else c for c in guessed_columns]
    return _VOCABULARY, marked, completed


def find_osv_header(rows: Sequence[Sequence[CellValue]]) -> OsvHeader | None:
    captions = HeaderCaptions(rows)
    # Groups without sides are read as pairs only where no block of the header names sides:
    # a header's row of groups alone, above its row of sides, is no header of its own.
    for unsided in (False, True):
        for first, last in _blocks(rows):
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
    misread = _misread(columns, used)
    confidence = _guessed_confidence(header.confidence, misread)
    return replace(header, confidence=confidence, misread_columns=misread)


# --- bank statement --------------------------------------------------------------------------


# Every word the roles above look for: a misread caption word is taken for the one it is nearest.
_VOCABULARY: Vocabulary = caption_vocabulary(CAPTION_WORDS)


def statement_role(words: frozenset[str]) -> str | None:
    """What a statement column holds, from its caption words; the first rule that fits wins,
    so specific captions (the bank, the equivalent) come before generic ones (an account)."""
    if words & TAX_REGISTRATION_WORDS:
        return None
    if words & SEQUENCE_WORDS and words <= SEQUENCE_WORDS | NUMBER_WORDS | {"n"}:
        return "sequence"
    if words & PURPOSE_WORDS:
        return "purpose"
    if words & EQUIVALENT_WORDS:
        side = _side(words)
        return "equivalent" if side is None else f"{side}_equivalent"
    if words & BIC_WORDS or ("код" in words and "банк" in words):
        return "bic"
    if words & BANK_WORDS:
        return None if "счет" in words or "корр" in words else "bank"
    if words & TAX_ID_WORDS:
        return "tax_id"
    debit, credit = bool(words & DEBIT_WORDS), bool(words & CREDIT_WORDS)
    if (debit and credit) or words & DIRECTION_WORDS:
        return "direction"
    if debit:
        return "debit"
    if credit:
        return "credit"
    if words & AMOUNT_WORDS:
        return "amount"
    if words & BALANCE_WORDS:
        return "balance"  # a running balance, not an amount or an account
    if "валюта" in words:
        return "currency"
    if words & STATUS_WORDS:
        return "status"
    if words & ACCOUNT_WORDS:
        return "account"
    if "дата" in words or DATE_WORD in words:
        return "date"
    if (words & NUMBER_WORDS or words == {"n"}) and not words & CARD_WORDS:
        return "number"
    if words & NAME_WORDS and not words & NOT_NAME_WORDS:
        return "name"
    return None


def _statement_roles(columns: Sequence[Column]) -> dict[int, str]:
    roles: dict[int, str] = {}
    for column in columns:
        role = statement_role(column.own)
        if role in (None, "name", "account", "number") and column.above:
            # "Наименование" under "Банк корреспондента" names the bank.
            wider = statement_role(column.words)
            if wider in ("bank", "bic"):
                role = wider
        if role is not None:
            roles[column.index] = role
    return roles


def _fit(rows: Sequence[Sequence[CellValue]], col: int, test: Callable[[CellValue], bool]) -> int:
    return sum(1 for row in rows if col < len(row) and test(row[col]))


def _constant(rows: Sequence[Sequence[CellValue]], col: int, least: int = 2) -> bool:
    """Whether a column holds one and the same account on every line that has a readable
    one (``least`` of them or more): OCR's look-alikes on some lines ("В\\90ВАРВЗ01…") are
    the same account, and a misread one tells of no other."""
    accounts = [
        account
        for row in rows
        if col < len(row)
        and not is_empty(row[col])
        and (account := readable_account(str(row[col]))) is not None
    ]
    return len(accounts) >= least and len(set(accounts)) == 1


# Lines that must show one and the same account before it is taken for the statement's own.
MIN_OWN_ACCOUNT_LINES = 3


def _own_account(lines: Sequence[Sequence[CellValue]], candidates: Sequence[Column]) -> bool:
    return (
        len(candidates) == 1
        and not candidates[0].words & NAME_WORDS
        and _constant(lines, candidates[0].index, MIN_OWN_ACCOUNT_LINES)
    )


def _counts_lines(lines: Sequence[Sequence[CellValue]], column: int, least: int) -> bool:
    cells = [row[column] if column < len(row) else None for row in lines]
    return is_running_sequence(cells, least=least)


def _lines(
    rows: Sequence[Sequence[CellValue]], start: int, money: Sequence[int], dates: Sequence[int]
) -> list[Sequence[CellValue]]:
    """The body rows with an amount in a money column and a date in a date column: the
    operations, not the balance, totals and day lines between them."""
    return [
        row
        for row in rows[start : start + FIT_ROWS]
        if any(c < len(row) and _is_amount(row[c]) for c in money)
        and any(c < len(row) and _is_date(row[c]) for c in dates)
    ]


def _is_date(cell: CellValue) -> bool:
    if isinstance(cell, datetime.date):
        return True
    return parse_date_cell(cell)[0] is not None


def _is_amount(cell: CellValue) -> bool:
    if is_empty(cell) or isinstance(cell, datetime.date):
        return False
    amount = parse_amount(cell)
    return amount.value is not None and amount.problem is None


def _best(
    rows: Sequence[Sequence[CellValue]],
    candidates: list[Column],
    test: Callable[[CellValue], bool],
    preferred: frozenset[str],
) -> int:
    """The candidate column the body fills best; the caption's preferred words break ties."""
    return max(
        candidates,
        key=lambda c: (_fit(rows, c.index, test), bool(c.words & preferred), -c.index),
    ).index


def _statement_block(
    columns: list[Column],
) -> tuple[list[Column], dict[int, str]] | None:
    roles = _statement_roles(columns)
    found = set(roles.values())
    if "date" not in found or not ({"debit", "credit"} <= found or "amount" in found):
        return None
    return columns, roles


def _lines_below(rows: Sequence[Sequence[CellValue]], last: int, roles: dict[int, str]) -> bool:
    """Whether operations stand under the header: lines with a date in a date column and an
    amount in a money column, and amounts most of what the money columns hold."""
    body = _header_end(rows, last) + 1
    money = [i for i, role in roles.items() if role in ("debit", "credit", "amount")]
    dates = [i for i, role in roles.items() if role == "date"]
    return bool(_lines(rows, body, money, dates)) and _amounts_below(rows, body, money)


def _statement_reading(
    captions: HeaderCaptions, first: int, last: int
) -> tuple[list[Column], dict[int, str]] | None:
    """The block read exactly, or through misreads where that reads it better and the body
    confirms it."""
    exact = _statement_block(captions.columns(first, last))
    guessed_columns = captions.columns(first, last, _VOCABULARY)
    if not any(column.guessed for column in guessed_columns):
        return exact
    guessed = _statement_block(guessed_columns)
    if guessed is None or not _reads_better(exact and exact[1], guessed[1], guessed[0]):
        return exact
    return guessed if _lines_below(captions.rows, last, guessed[1]) else exact


_VALUE_TESTS: dict[str, Callable[[CellValue], bool]] = {
    "date": _is_date,
    "debit": _is_amount,
    "credit": _is_amount,
    "amount": _is_amount,
}


def _captions_beside_values(
    body: Sequence[Sequence[CellValue]], columns: list[Column], roles: dict[int, str]
) -> tuple[list[Column], dict[int, str]]:
    """Columns whose caption stands left of their values: a page that set the caption left
    and the dates or amounts right in their cell may give each a column of its own. A date
    or money caption over no value of its kind, beside a column with no caption and such
    values, is that column's."""
    moved = {}
    for index, role in roles.items():
        test = _VALUE_TESTS.get(role)
        right = index + 1
        if test is None or right in roles or _fit(body, index, test):
            continue
        if _fit(body, right, test):
            moved[index] = right
    if not moved:
        return columns, roles
    shifted = [replace(c, index=moved.get(c.index, c.index)) for c in columns]
    return shifted, {moved.get(i, i): role for i, role in roles.items()}


# A column where this share of the operations say a side, in a word or letter of their own
# (and never more than a few words), is their direction column, whatever its caption says:
# "Д/К" over it is two letters OCR may read as anything.
FLAG_SHARE = 0.75
FLAG_WORDS = 2


def _flag_column(lines: Sequence[Sequence[CellValue]], taken: set[int]) -> int | None:
    """The first column not ``taken`` whose cells on the operation ``lines`` say a side."""
    width = max((len(row) for row in lines), default=0)
    for index in range(width):
        if index in taken:
            continue
        cells = [row[index] if index < len(row) else None for row in lines]
        said = [
            cell
            for cell in cells
            if direction_of(cell) is not None and len(str(cell).split()) <= FLAG_WORDS
        ]
        if len(lines) >= 2 and len(said) >= FLAG_SHARE * len(lines):
            return index
    return None


_WHOLE_NUMBER = re.compile(r"\d+")


def _number_beside_amounts(
    lines: Sequence[Sequence[CellValue]],
    chosen: dict[str, int],
    by_index: Mapping[int, Column],
    roles: dict[int, str],
) -> dict[str, int]:
    """ "№ док" and "Сумма" read into one caption over the numbers' column, the amounts in
    the column beside it without a caption of their own, or under the rest of the sum's
    caption ("в валюте счета", which names a currency): the body says which is which. The
    captioned column holds whole numbers only, the one right of it amounts on most lines."""
    amount = chosen["amount"]
    right = amount + 1
    captioned = right in by_index and by_index[right].words
    if (
        "number" in chosen
        or (captioned and roles.get(right) != "currency")
        or not by_index[amount].words & NUMBER_WORDS
    ):
        return chosen
    numbers = [row[amount] for row in lines if amount < len(row) and not is_empty(row[amount])]
    whole = bool(numbers) and all(
        type(cell) is int or (isinstance(cell, str) and _WHOLE_NUMBER.fullmatch(cell.strip()))
        for cell in numbers
    )
    if whole and 2 * _fit(lines, right, _is_amount) > len(lines):
        kept = {role: index for role, index in chosen.items() if index != right}
        return {**kept, "number": amount, "amount": right}
    return chosen


# A counterparty as a statement names it: a legal form before a quoted name, or "ИП"
# before a person's name.
_NAMED = re.compile(rf"^(?:{'|'.join(sorted(LEGAL_FORMS))})\s*«|^ИП\s+\w")
# A SWIFT BIC: bank, country, location and an optional branch, in Latin capitals and digits
# (not ``identifiers.normalize_bic``, which takes a Russian БИК of nine digits too, as an
# УНП column holds them).
_SWIFT_BIC = re.compile(r"[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?")


def _names_a_party(text: str) -> bool:
    return bool(_NAMED.match(legal_form_spelled(text)))


def _is_swift_bic(text: str) -> bool:
    return bool(_SWIFT_BIC.fullmatch(latin_spelling(text.replace(" ", ""))))


def _is_tax_id(text: str) -> bool:
    """A taxpayer's number whose check digit holds (a document's number or an amount does
    so by chance only now and then)."""
    tax_id = normalize_tax_id(text)
    return tax_id is not None and tax_id.isdigit() and tax_id_valid(tax_id)


# The body says what a column holds when OCR misread its caption ("ПолучателыПлательщик",
# "BUK" for "БИК", "yon" for "УНП").
_BY_BODY: Final = (("name", _names_a_party), ("bic", _is_swift_bic), ("tax_id", _is_tax_id))


def _column_by_body(
    lines: Sequence[Sequence[CellValue]], taken: set[int | None], holds: Callable[[str], bool]
) -> int | None:
    """The first column not ``taken`` whose cells, on most operations, hold what ``holds``
    tells: an organisation's or a person's name, a bank's BIC."""
    width = max((len(row) for row in lines), default=0)
    for index in range(width):
        if index in taken:
            continue
        held = sum(holds(as_text(row[index]) or "") for row in lines if index < len(row))
        if len(lines) >= 2 and held >= FLAG_SHARE * len(lines):
            return index
    return None


def _has_sides(roles: dict[int, str]) -> bool:
    return {"debit", "credit"} <= set(roles.values())


def find_statement_header(rows: Sequence[Sequence[CellValue]]) -> StatementHeader | None:
    captions = HeaderCaptions(rows)
    for first, last in _blocks(rows):
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
            elif wider is not None and not passed and _words_only(rows[deeper]):
                passed = True
            else:
                break
        sides = _has_sides(roles)
        end = _header_end(rows, last)
        body = end + 1
        columns, roles = _captions_beside_values(rows[body : body + FIT_ROWS], columns, roles)
        by_index = {c.index: c for c in columns}
        columns_of: dict[str, list[Column]] = {}
        for index in sorted(roles):
            columns_of.setdefault(roles[index], []).append(by_index[index])
        chosen: dict[str, int] = {}
        extra: dict[str, int] = {}
        money = [c.index for r in ("debit", "credit", "amount") for c in columns_of.get(r, [])]
        lines = _lines(rows, body, money, [c.index for c in columns_of["date"]])
        for role, candidates in columns_of.items():
            if role == "date":
                chosen[role] = _best(lines, candidates, _is_date, DATE_PREFERRED)
            elif role == "amount":
                chosen[role] = _best(lines, candidates, _is_amount, frozenset({"счет"}))
            elif role == "account" and _own_account(lines, candidates):
                # One account on every line, under a caption that names no counterparty
                # (its counterparty's account column went unread): the statement's own.
                extra["own_account"] = candidates[0].index
                continue
            elif role == "account" and len(candidates) > 1:
                # The statement's own account printed on every line beside the counterparty's:
                # the one whose value never changes, unless the captions say whose is whose.
                theirs = [c for c in candidates if c.words & NAME_WORDS] or [
                    c for c in candidates if not _constant(lines, c.index)
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
                    if _counts_lines(
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
            chosen = _number_beside_amounts(lines, chosen, by_index, roles)
            if direction is None:
                direction = _flag_column(lines, {*chosen.values(), *extra.values()})
        for role, holds in _BY_BODY:
            taken = {*chosen.values(), *extra.values(), direction}
            if role not in chosen and (found := _column_by_body(lines, taken, holds)) is not None:
                chosen[role] = found
        date_candidates = tuple(c.index for c in columns_of["date"])
        misread = _misread(columns, [*chosen.values(), *extra.values(), direction])
        return StatementHeader(
            row=end,
            columns=chosen,
            confidence=_guessed_confidence(100.0, misread),
            misread_columns=misread,
            extra=extra,
            first_row=first,
            direction_col=direction,
            date_candidates=date_candidates if len(date_candidates) > 1 else (),
        )
    return None
