"""Words on a page into a grid of cells, the shape ``document_extraction`` reads.

Rows: where the table is ruled, the bands between horizontal rules (a cell wrapped over
several lines stays one cell); elsewhere, lines of words, the lines of a wrapped cell joined
to the row of their amounts (``wrapped_cells``).

Columns: where the table is ruled, its vertical rules, taken per row so that a caption merged
over two columns lands in the first of them as in a workbook (on a scan, the table's borders
where pieces of rules were lost); elsewhere, the x ranges that no phrase of any table row
covers, and for OCR narrow gaps between words where a header caption starts (between the
characters of a row's leading numbers too: OCR reads a level, a row number and an account set
closer than a space as one word, and the characters' boxes show where it is to be cut).

Phrases: one cell's text: a text layer's run, or (OCR) words closer than a fraction of the
text height.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from document_extraction import BBox
from document_extraction.captions import is_column_number_row, words_of
from document_extraction.lookalikes import DIGIT_LOOKALIKES
from document_extraction.text import norm
from scan_gateway.words import PageWords, Rule, Word
from scan_gateway.wrapped_cells import (
    TableLine,
    ends_in_amount,
    fold_wrapped,
    is_dash,
    is_numeric,
    starts_with_date,
)

# Words closer than this (in text heights) belong to one phrase; a column gap is wider.
# OCR boxes are tight around the ink, so the same space looks wider next to them.
PHRASE_GAP = 0.5
OCR_PHRASE_GAP = 0.8
# An account code of two parts or more: "41.1", "60.01.1".
_CODE_PARTS = re.compile(r"\d{1,3}(?:\.\d{1,3}){1,3}")
_CODE = re.compile(r"^\d{1,3}(?:\.\d{1,3}){0,3}$|^[^\d]")
_ACCOUNT_CODE = re.compile(r"^\d{2,3}(?:\.\d{1,3}){0,3}$")
# An amount rather than a code or a column number: decimals, or four digits and more.
_AMOUNT_LIKE = re.compile(r"\d[.,]\d{1,2}\)?$|\d{4}")
_SPACED_AMOUNT = re.compile(r"^[-−(]?\d[\d ]*[.,]\d{2}\)?$")
# One number as a cell holds it, its thousands apart or not.
_ONE_NUMBER = re.compile(r"[-−(]?\d+(?: \d{3})*(?:[.,]\d+)?\)?")
_THOUSANDS_PARTED = re.compile(r"[-−(]?\d{1,3}(?: \d{3})+[.,]\d{2}\)?")
_SPACED_CODE = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)(?:\. | \.)(\d{1,3}(?:\.\d{1,3})*)(?=\s|$)")
_AMOUNT_FIRST = re.compile(r"^[-−(]?\d[\d ]*[.,]\d{2}\)?(?!\d)")
# Two cells are set at least this far apart (in text heights): the gaps between the letters
# or digits of one word are narrower.
NARROWEST_GAP = 0.25
# Digits of a row number or an outline level: what a border may cut off an account.
MAX_ROW_NUMBER = 3
# The most characters OCR reads an outline level's one digit as ("не" for 1).
MAX_LEVEL_READ = 2
# Words whose centres are closer than this (in text heights) vertically are on one line.
SAME_LINE = 0.5
# Rules shorter than this (in text heights) are glyph strokes or underscores, not borders;
# the border of a one-line table row is about twice the text height.
MIN_RULE = 1.2
# Characters OCR makes of a ruling line beside a word, and how near (in text heights) the
# line must be for them to be taken off.
_RULE_MARKS = frozenset("[]|!")
RULE_MARK = 0.6
# A box of this many rows or fewer with the table's lines below it frames a header only.
MAX_HEADER_BANDS = 4
# Dashes for nothing set apart from the amounts of their column: this share of them at
# least must read as dashes.
DASH_SHARE = 0.75
# A column's values say what it holds when this share of them do (OCR misreads the rest).
MOST = 0.75
# Rules closer than this (in text heights) are one border drawn twice.
SAME_RULE = 0.4
# How far (in text heights) OCR's box of a word may start left of the rule it stands right
# of: a letter touching the rule loses ink to it, or keeps a piece of it.
ON_RULE = 0.25
# A character no wider than this share of a letter's height is a sliver (a rule read as "1").
SLIVER = 0.2


@dataclass
class Phrase:
    words: list[Word]

    @property
    def x0(self) -> float:
        return self.words[0].x0

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class Line:
    words: list[Word]
    phrases: list[Phrase] = field(default_factory=list)

    @property
    def cy(self) -> float:
        return statistics.fmean(w.cy for w in self.words)

    @property
    def extent(self) -> float:
        return max(w.y1 for w in self.words) - min(w.y0 for w in self.words)


@dataclass
class PageGrid:
    """One page as a grid: cell texts, per-cell OCR confidence and box (fractions)."""

    page: int
    rows: list[list[str | None]]
    confidence: list[list[float | None]]
    boxes: list[list[BBox | None]]
    ocr: bool
    gaps: list[tuple[float, float]] = field(default_factory=list)
    """Column gaps (page units; a ruled table's rules as gaps of no width), for a page that
    continues the table."""

    @property
    def empty(self) -> bool:
        return not self.rows


def text_height(words: Sequence[Word]) -> float:
    heights = [w.height for w in words if w.height > 0]
    return statistics.median(heights) if heights else 1.0


def lines_of(words: Sequence[Word], height: float, gap: float = PHRASE_GAP) -> list[Line]:
    """Words grouped into lines, top to bottom, each sorted left to right."""
    lines: list[Line] = []
    for word in sorted(words, key=lambda w: (w.cy, w.x0)):
        if lines and abs(word.cy - lines[-1].cy) <= SAME_LINE * height:
            lines[-1].words.append(word)
        else:
            lines.append(Line([word]))
    for line in lines:
        line.words.sort(key=lambda w: w.x0)
        line.phrases = phrases_of(line.words, height, gap)
    return lines


def phrases_of(words: Sequence[Word], height: float, gap: float = PHRASE_GAP) -> list[Phrase]:
    """Words of one cell's text: of one run of the text layer, or (OCR) close together."""
    phrases: list[Phrase] = []
    for word in words:
        last = phrases[-1].words[-1] if phrases else None
        if last is not None and word.run is not None and last.run is not None:
            joined = word.run == last.run
        else:
            # A dash after an amount is the next column's nothing, however near it is
            # printed: an amount never ends in a dash set apart from its digits.
            joined = (
                last is not None
                and word.x0 - phrases[-1].x1 <= gap * height
                and not (is_dash(word.text) and ends_in_amount(last.text))
            )
        if joined:
            phrases[-1].words.append(word)
        else:
            phrases.append(Phrase([word]))
    return phrases


def column_gaps(
    lines: Sequence[Line], *, tolerance: float = 0.0, slack: float = 1.0, narrowest: float = 0.0
) -> list[tuple[float, float]]:
    """X ranges between table columns: covered by no phrase of a table line (three or more
    phrases, one of them a number), or by at most ``tolerance`` of them (a share, for OCR,
    where a missed gap joins two cells of one line). ``slack``: how far apart two edges may
    be and still be one; ``narrowest``: the narrowest gap between words or characters that
    may be a column's edge (page units)."""
    # The header ends where amounts begin (two on a line, or one after a date: a
    # statement's signed sum, which OCR may read into the name beside it): a quantity set
    # right between two amounts set left is no caption, and no cell of the body is a
    # caption's word.
    first_amounts = next(
        (
            k
            for k, line in enumerate(lines)
            if sum(ends_in_amount(p.text) for p in line.phrases) >= 2
            or (
                starts_with_date(line.words[0].text)
                and any(ends_in_amount(w.text) for w in line.words[1:])
            )
        ),
        len(lines),
    )
    # Above the amounts an outline level printed before a header line is no number of the
    # table's: the group captions on that line span the gaps between their columns.
    table = [
        k
        for k, line in enumerate(lines)
        if len(line.phrases) >= 3
        and any(is_numeric(p.text) for p in line.phrases[0 if k >= first_amounts else 1 :])
        and not _column_numbers(line)
        and not (k < first_amounts and _sides_line(line))
    ]
    if not table:
        return []
    # A printer may set one cell's line and the next cell's in one run (a caption's and the
    # next caption's, a wrapped name's and the indicator's), OCR reads a code set right and
    # the name set left beside it as one: runs are cut where a column of values set left
    # starts.
    starts = [
        *_shared_starts(lines[first_amounts:], narrowest),
        *_starts_within_runs(lines, narrowest),
    ]
    body = [
        Line(
            lines[k].words,
            [q for p in lines[k].phrases for q in _split_at_starts(p, starts, narrowest)],
        )
        for k in table
    ]
    spans = sorted((p.x0, p.x1) for line in body for p in line.phrases)
    allowed = int(tolerance * len(body))
    gaps = _uncovered(spans, allowed)
    right = max(x1 for _, x1 in spans)
    # A column empty in every table line (no credit in any line, no closing credit balance)
    # still has its caption in the header: phrases of header lines that fit inside a gap,
    # or start right of everything, open columns of their own there.
    captions = sorted(
        (p.x0, p.x1)
        for line in lines[:first_amounts]
        if len(line.phrases) >= 3 and not _column_numbers(line)
        for p in line.phrases[1:]
    )
    if tolerance:
        # OCR sets two cells as close as two words of one phrase: a narrow gap between the
        # words of every line, where a caption of the header starts, is a column's edge.
        # Only a caption's words: an amount of three digits that starts there is the
        # thousands of the longer amounts above and below it, not a column of its own, and
        # neither is an amount OCR read together with the name after it.
        words = sorted(span for line in body for span in _ink(line))
        texts = [
            p.x0 for line in lines for p in line.phrases[1:] if not is_numeric(p.words[0].text)
        ]
        for a, b in _uncovered(words, allowed):
            if b - a < narrowest:
                continue  # the spacing of letters or digits, not of cells
            captioned = any(abs(x0 - b) <= slack for x0 in texts)
            if captioned and not any(a < q and p < b for p, q in gaps):
                gaps.append((a, b))
        gaps += _glued_cells(body, lines[:first_amounts], gaps, allowed, narrowest, slack)
        gaps += _lone_digits_apart(body, gaps, allowed, narrowest)
        gaps.sort()
    for x0, x1 in captions:
        if x0 > right:
            gaps.append((right, x0))
            right = x1
    split: list[tuple[float, float]] = []
    for a, b in gaps:
        inside = _union([(x0, x1) for x0, x1 in captions if a < x0 and x1 < b])
        if inside and not any(abs(x0 - b) <= slack for x0, _ in captions):
            # The column right of the gap has no caption at its left edge: its values are
            # right-aligned, and the last caption in the gap is its own.
            inside.pop()
        edge = a
        for x0, x1 in inside:
            split.append((edge, x0))
            edge = x1
        split.append((edge, b))
    kept = _without_stray_columns(split, body, captions, slack)
    # Where the phrases of lines without values start: captions' left edges.
    heads = [p.x0 for line in lines if not _has_values(line) for p in line.phrases[1:]]
    return _dashes_with_their_amounts(kept, body, heads, slack)


def _glued_cells(
    body: Sequence[Line],
    header: Sequence[Line],
    gaps: Sequence[tuple[float, float]],
    allowed: int,
    narrowest: float,
    slack: float,
) -> list[tuple[float, float]]:
    """Column edges OCR read no space at: an amount set right against a name set left is
    one word ("20727,11000 «Сигма»"). Where the characters of every table line leave a gap,
    and two words start right after it, of header lines (a caption set left over its column,
    on its lines) or as a body line's cell of text ("Количество" under "Счет"), one cell
    ends and the next begins."""
    chars = sorted(span for line in body for word in line.words for span in _char_spans(word))
    # A header line's first word counts where it starts inside the table: a caption under
    # a group caption ("Списание/Дебет" under "Сумма"), not a title at the page's margin.
    inside = min(p.x0 for line in body for p in line.phrases) + slack
    starts = [
        w.x0
        for line in header
        for k, w in enumerate(line.words)
        if (k or w.x0 > inside) and not is_numeric(w.text)
    ]
    starts += [p.x0 for line in body for p in line.phrases[1:] if p.text[:1].isalpha()]
    # Where a number's thousands are set apart from the rest ("26 445,29"), the gap is inside
    # one cell, whatever caption or title word happens to start after it.
    numbers = [
        (p.x0, p.x1) for line in body for p in line.phrases if _THOUSANDS_PARTED.fullmatch(p.text)
    ]
    found: list[tuple[float, float]] = []
    for a, b in _uncovered(chars, allowed):
        if b - a < narrowest or any(a < q and p < b for p, q in [*gaps, *found]):
            continue
        if any(x0 < a and b < x1 for x0, x1 in numbers):
            continue
        if sum(abs(x0 - b) <= slack for x0 in starts) >= 2:
            found.append((a, b))
    return found


MIN_LONE_DIGITS = 2
# Of the lines beside a column of levels, one in this many may have the character after the
# level drawn starting early.
EARLY_SHARE = 4


def _lone_digits_apart(
    body: Sequence[Line], gaps: Sequence[tuple[float, float]], allowed: int, narrowest: float
) -> list[tuple[float, float]]:
    """The edge of a column of one digit per line (an outline level) that OCR read against the
    code set left beside it ("101.01" for 1 | 01.01, closer than a space): where the table's
    lines start with one digit each (or its look-alike letter: "о" for 0), and the characters
    after it start past a gap. Up to ``allowed`` lines may start otherwise (a level misread
    as a mark); OCR draws a character's box too wide now and then, so the gap ends where
    most lines' characters after the digit start, not where the earliest does."""
    led: list[tuple[float, float, float]] = []  # a digit's start and end, the next start
    others: list[float] = []
    for line in body:
        word = line.words[0]
        spans = _char_spans(word)
        after = spans[1][0] if len(word.text) > 1 else None
        if after is None and len(line.words) > 1:
            after = line.words[1].x0
        digit = DIGIT_LOOKALIKES.get(word.text[0], word.text[0]).isdigit()
        if not digit or len(spans) != len(word.text) or after is None:
            others.append(word.x0)
        else:
            led.append((word.x0, spans[0][1], after))
    # The digit is a word of its own on two lines at least (a level before a code set right,
    # or before a title): the first digit of a date or a code is not.
    alone = sum(len(line.words[0].text) == 1 for line in body)
    if not led or alone < MIN_LONE_DIGITS:
        return []
    # The levels' column, where most digit-led lines start: a line that starts past it (a
    # caption's, with a date in it) has no level.
    column = statistics.median(x0 for x0, _, _ in led)
    near = [(end, after) for x0, end, after in led if x0 <= column + narrowest]
    a = max(end for end, _ in near)
    b = sorted(after for _, after in near)[len(near) // EARLY_SHARE]
    if sum(x0 < a for x0 in others) > allowed:
        return []
    if b - a < narrowest or any(p < b and a < q for p, q in gaps):
        return []
    return [(a, b)]


def _char_spans(word: Word) -> list[tuple[float, float]]:
    return list(word.chars) if len(word.chars) == len(word.text) else [(word.x0, word.x1)]


# A column with no caption of its own and numbers other than amounts (quantities) on fewer
# than this share of the table's lines, or on lines without amounts, is no column: they are
# set right in the column left of it.
STRAY_SHARE = 0.25


def _without_stray_columns(
    gaps: list[tuple[float, float]],
    body: Sequence[Line],
    captions: Sequence[tuple[float, float]],
    slack: float,
) -> list[tuple[float, float]]:
    """Gaps with the columns between them that only a few numbers make dropped: quantities
    right-aligned in a column whose amounts are set left stand between two columns of
    amounts, and would open one of their own. Only where the header is on the page."""
    if not captions:
        return gaps
    out = [gaps[0]] if gaps else []
    for a, b in gaps[1:]:
        left = out[-1][1]
        lines = [line for line in body if any(left <= p.x0 and p.x1 <= a for p in line.phrases)]
        # A column where amounts start but none ends (OCR read them into the next cell's
        # values) is no column of a few numbers.
        amounts = any(
            left <= p.x0 < a and _AMOUNT_FIRST.match(p.text) for line in body for p in line.phrases
        )
        # A column no phrase of the body lies in, where every phrase that reaches into it
        # starts there with a number or has a row's level or number left of it, was opened
        # by the characters of those read into the account ("002", "126 Затраты"): it is no
        # column of a few numbers.
        reaching = [p for line in body for p in line.phrases if p.x0 < a and left < p.x1]
        glued = not lines and bool(reaching) and all(_number_before(p, left) for p in reaching)
        numbers = (
            not glued
            and not amounts
            and all(
                is_numeric(p.text) and not ends_in_amount(p.text)
                for line in lines
                for p in line.phrases
                if left <= p.x0 <= a
            )
        )
        captioned = any(out[-1][0] - slack <= x0 < a for x0, _ in captions)
        # Lines of quantities alone ("Кол." under each item) may be many.
        few = len(lines) < STRAY_SHARE * len(body) or not any(
            ends_in_amount(p.text) for line in lines for p in line.phrases
        )
        if numbers and not captioned and few and not _codes_before_amounts(body, left, a):
            # Where no phrase lies in the column alone, the phrases from the left run on
            # through it: the gap before it parted their words ("ОАО | «Приорбанк»"), and
            # the gap after it is their column's edge.
            out[-1] = (a, b) if not lines else (out[-1][0], b)
        else:
            out.append((a, b))
    # The last column, where no caption starts, holding only words that start with a small
    # letter: the end of a text wrapped in the column before it ("…материалы, в | т.ч."),
    # which starts no cell.
    if out:
        last = [p.text for line in body for p in line.phrases if p.x0 >= out[-1][1]]
        tail = bool(last) and all(text[:1].islower() for text in last)
        if tail and not any(x0 >= out[-1][0] - slack for x0, _ in captions):
            out.pop()
    return out


def _number_before(phrase: Phrase, x: float) -> bool:
    """A phrase that starts with a digit, and has left of ``x`` nothing, or only a row's
    level or number (a few digits; not a date's "02.02.202"). A level alone may be read as
    its look-alike ("О" for 0)."""
    word = phrase.words[0]
    if word.text in DIGIT_LOOKALIKES and word.x1 <= x and len(phrase.words) > 1:
        return True
    spans = _char_spans(word)
    if len(spans) != len(word.text):
        return word.x0 >= x and word.text[:1].isdigit()
    head = "".join(ch for ch, (x0, _) in zip(word.text, spans, strict=True) if x0 < x)
    return word.text[:1].isdigit() and (not head or (head.isdigit() and len(head) <= 3))


def _dashes_with_their_amounts(
    gaps: list[tuple[float, float]], body: Sequence[Line], captions: Sequence[float], slack: float
) -> list[tuple[float, float]]:
    """A zero typed as a dash is text, set left in its cell, whose amounts are set right: the
    band between them is empty on every line. A column of dashes alone is one with the
    columns right of it as long as no line has two values (a dash or an amount) in them,
    and up to a gap where a caption starts (``captions``: their left edges), which is a
    cell's edge."""
    out = list(gaps)
    # Rows of values only: a caption over two columns spans the band.
    rows = [line for line in body if _has_values(line)]
    k = 0
    while k + 1 < len(out):
        left, right = out[k][1], out[k + 1][0]
        inside = [p for line in rows for p in line.phrases if left <= p.x0 and p.x1 <= right]
        dashes = sum(is_dash(p.text) for p in inside)
        # One mark OCR read a dash as, or a quarter of them in a long column, is still one.
        misread = len(inside) - dashes
        if (
            dashes
            and all(_dash_like(p.text) for p in inside)
            and misread <= max(1, (1 - DASH_SHARE) * len(inside))
        ):
            while k + 1 < len(out):
                end = out[k + 2][0] if k + 2 < len(out) else math.inf
                cells = (
                    [p.text for p in line.phrases if left <= p.x0 and p.x1 <= end] for line in rows
                )
                after = out[k + 1][1]
                captioned = any(abs(x0 - after) <= slack for x0 in captions)
                if captioned or not all(_one_value(cell) for cell in cells):
                    break
                del out[k + 1]
        k += 1
    return out


def _has_values(line: Line) -> bool:
    return any(ends_in_amount(p.text) or is_dash(p.text) for p in line.phrases)


# What OCR reads a dash for nothing as, now and then, in a column of them.
_DASH_MISREADS = frozenset("<>*.,·•'`^")


def _dash_like(text: str) -> bool:
    return is_dash(text) or (len(text) <= 2 and all(ch in _DASH_MISREADS for ch in text))


def _one_value(texts: Sequence[str]) -> bool:
    """Phrases that are one cell's value at most: nothing, a dash (or its misread), or one
    number whose thousands OCR set apart (two dashes are two cells' zeros)."""
    if len(texts) == 1 and _dash_like(texts[0]):
        return True
    return not texts or bool(_ONE_NUMBER.fullmatch(" ".join(texts)))


def _codes_before_amounts(body: Sequence[Line], left: float, right: float) -> bool:
    """Accounts' codes set right, as numbers, between ``left`` and ``right`` and left of every
    amount: the code column's, which joins its codes set left as text (OCR may read them
    into the name beside them), not a stray column."""
    inside = [w.text for line in body for w in line.words if left <= w.x0 and w.x1 <= right]
    return (
        len(inside) >= 2
        and sum(bool(_ACCOUNT_CODE.match(text)) for text in inside) >= MOST * len(inside)
        and not any(
            ends_in_amount(p.text) and not _ACCOUNT_CODE.match(p.text)
            for line in body
            for p in line.phrases
            if p.x1 <= left
        )
    )


def _leading_numbers(words: Sequence[Word]) -> int:
    """How many words a line starts with that begin with a digit: the row's level, number
    and account, which OCR may read as one word when their cells are set closer than a
    space ("1201.01", "104")."""
    return next((i for i, w in enumerate(words) if not w.text[:1].isdigit()), len(words))


def _ink(line: Line) -> list[tuple[float, float]]:
    """Where a line has ink across the page: words' boxes, and the characters of its leading
    numbers. Only there: the digits of right-aligned amounts line up from row to row, and
    the gaps between them are no column's edge."""
    lead = _leading_numbers(line.words)
    if lead == len(line.words):
        lead = 0  # a line of numbers only: amounts
    spans: list[tuple[float, float]] = []
    for k, word in enumerate(line.words):
        if k == 0 and _number_and_name(word.text):
            continue  # where OCR's boxes of its characters run together, nothing is known
        if k < lead and len(word.chars) == len(word.text):
            spans += word.chars
        else:
            spans.append((word.x0, word.x1))
    return spans


def _number_and_name(text: str) -> bool:
    """A row's one-digit number read as its look-alike letter and the capitalised name after
    it as one word ("ЗЛист", "ЗКолос"; not "ООО" or "ЗАО")."""
    return text[:1] in DIGIT_LOOKALIKES and text[1:2].isupper() and text[2:3].islower()


def _uncovered(spans: Sequence[tuple[float, float]], allowed: int) -> list[tuple[float, float]]:
    """X ranges inside the spans' extent covered by at most ``allowed`` of them."""
    events = sorted([(x0, 1) for x0, _ in spans] + [(x1, -1) for _, x1 in spans])
    left = min(x0 for x0, _ in spans)
    right = max(x1 for _, x1 in spans)
    gaps: list[tuple[float, float]] = []
    depth = 0
    opened: float | None = None
    for x, delta in events:
        before = depth
        depth += delta
        if before > allowed >= depth and left < x < right:
            opened = x
        elif before <= allowed < depth and opened is not None:
            if x > opened:
                gaps.append((opened, x))
            opened = None
    return gaps


def _column_numbers(line: Line) -> bool:
    """The row of column numbers under a header (1 2 3 …): a header line, not the body's."""
    return is_column_number_row([p.text for p in line.phrases])


_SIDES = (frozenset({"дебет"}), frozenset({"кредит"}))


def _sides_line(line: Line) -> bool:
    """A header line that names debit and credit over their columns: the correspondent
    accounts' numbers beside them ("деб. 50 62 90") are captions, not a table's values."""
    return any(words_of(norm(p.text)) in _SIDES for p in line.phrases)


def _union(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for x0, x1 in sorted(spans):
        if out and x0 <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], x1))
        else:
            out.append((x0, x1))
    return out


def _column_of(x: float, bounds: Sequence[float]) -> int:
    """Index of the column that x falls in, given sorted boundaries between columns."""
    return bisect.bisect_right(bounds, x)


def _cells_text(cells: dict[int, list[Word]], height: float) -> dict[int, str]:
    """Words of each cell in reading order: lines joined by a newline."""
    out: dict[int, str] = {}
    for column, words in cells.items():
        out[column] = "\n".join(
            " ".join(w.text for w in line.words) for line in lines_of(words, height)
        )
    return out


def _joined_rules(
    rules: Sequence[Rule], orientation: Literal["h", "v"], height: float
) -> list[Rule]:
    """Collinear pieces of one border joined (a PDF draws a table border cell by cell),
    then everything too short to be a border dropped."""
    pieces = sorted(
        (r for r in rules if r.orientation == orientation), key=lambda r: (r.position, r.start)
    )
    joined: list[Rule] = []
    for rule in pieces:
        last = joined[-1] if joined else None
        if (
            last is not None
            and rule.position - last.position <= SAME_RULE * height
            and rule.start <= last.end + SAME_RULE * height
        ):
            joined[-1] = Rule(
                orientation, last.position, min(last.start, rule.start), max(last.end, rule.end)
            )
        else:
            joined.append(rule)
    return [r for r in joined if r.end - r.start >= MIN_RULE * height]


def _without_rule_marks(word: Word, vertical: Sequence[Rule], height: float) -> Word:
    """An OCR word with a piece of the ruling line beside it read into it ("[52 912,67",
    "0,00|") loses that mark: brackets and bars at an edge that touches a vertical rule."""
    text, x0, x1 = word.text, word.x0, word.x1
    near = RULE_MARK * height
    # Any rule's x: a scan keeps a border's pieces on some rows and loses them on others.
    positions = [r.position for r in vertical]
    step = (x1 - x0) / max(len(text), 1)
    chars = word.chars if len(word.chars) == len(text) else ()
    if text[:1] in _RULE_MARKS and any(abs(x - x0) <= near for x in positions):
        text, x0, chars = text[1:], x0 + step, chars[1:]
    if text[-1:] in _RULE_MARKS and any(abs(x - x1) <= near for x in positions):
        text, x1, chars = text[:-1], x1 - step, chars[:-1]
    if text == word.text:
        return word
    if chars and len(chars) == len(text):
        x0, x1 = chars[0][0], chars[-1][1]
    return replace(word, text=text, x0=x0, x1=x1, chars=chars)


def _cut_at_rules(
    word: Word, vertical: Sequence[Rule], table: tuple[float, float], height: float
) -> list[Word]:
    """An OCR word cut where a vertical rule that crosses its line passes between two of its
    characters: two cells set closer than a space ("1" of the row number and "04" of the
    account, read as "104"). ``table``: the top and bottom of the vertical rules."""
    reach = height / 2
    crossing = [r.position for r in vertical if r.start - reach <= word.cy <= r.end + reach]
    parts = _cut_word(word, crossing)
    if len(parts) > 1 or not word.text[:1].isdigit():
        return parts
    # A scan loses pieces of rules: inside the table, a border found on other rows cuts a
    # row number or level off the account it was read into ("1960.1.1" is 19 | 60.1.1).
    if not table[0] <= word.cy <= table[1]:
        return parts
    positions = [r.position for r in vertical]
    cut = _cut_word(word, positions)
    numbers = all(p.text.isdigit() and len(p.text) <= MAX_ROW_NUMBER for p in cut[:-1])
    if numbers and _CODE.match(cut[-1].text):
        return cut
    # A document's number and the amount after it ("9574139225,89" for 9574 | 39225,89), the
    # rule between them read as a sliver of a "1": the sliver shows the rule is there.
    slivers = [_without_sliver(p, positions, height) for p in cut]
    if (
        any(s is not p for s, p in zip(slivers, cut, strict=True))
        and all(is_numeric(p.text) for p in slivers)
        and ends_in_amount(slivers[-1].text)
        and not any(ends_in_amount(p.text) for p in slivers[:-1])
    ):
        return slivers
    return parts


def _without_sliver(word: Word, positions: Sequence[float], height: float) -> Word:
    """A word without a character at its edge as narrow as a rule, standing on one of
    ``positions``: the rule, read as a "1" or a bar."""
    chars = word.chars
    if len(chars) != len(word.text) or len(chars) < 2:
        return word
    for index in (0, len(chars) - 1):
        x0, x1 = chars[index]
        if x1 - x0 <= SLIVER * height and any(x0 <= x <= x1 for x in positions):
            kept = chars[:index] + chars[index + 1 :]
            text = word.text[:index] + word.text[index + 1 :]
            return replace(word, text=text, x0=kept[0][0], x1=kept[-1][1], chars=kept)
    return word


def _cut_word(word: Word, xs: Sequence[float]) -> list[Word]:
    """A word cut wherever one of ``xs`` falls between two of its characters' middles. Needs
    the characters' boxes; without them the word stays whole."""
    chars = word.chars
    if len(chars) != len(word.text) or len(chars) < 2 or not xs:
        return [word]
    middles = [(x0 + x1) / 2 for x0, x1 in chars]
    cuts = {i: x for i in range(1, len(chars)) for x in xs if middles[i - 1] < x < middles[i]}
    parts: list[Word] = []
    for start, end in itertools.pairwise([0, *cuts, len(chars)]):
        text = word.text[start:end]
        if text.strip():
            piece = chars[start:end]
            # Each piece is a run of its own: cut apart, the pieces are never one phrase. A
            # piece stands on its side of the cut, however far OCR's boxes of the characters
            # beside it run over it.
            x0 = max(piece[0][0], cuts.get(start, -math.inf))
            x1 = min(piece[-1][1], cuts.get(end, math.inf))
            parts.append(replace(word, text=text, x0=x0, x1=x1, chars=piece, run=~start))
    return parts if len(parts) > 1 else [word]


def _cut_at_gaps(word: Word, xs: Sequence[float], narrowest: float) -> list[Word]:
    """A word cut where one of ``xs`` falls in a gap between two of its characters at least
    ``narrowest`` wide (wider than a letter's spacing: text run on over a column's edge
    stays whole), or between a digit and a letter (a number set right against text set
    left, however OCR drew their boxes: "44БУ")."""
    chars = word.chars
    if len(chars) != len(word.text):
        return [word]
    cuts = []
    for k, ((x0, end), (start, x1)) in enumerate(itertools.pairwise(chars), start=1):
        apart = start - end >= narrowest
        left, right = (x0 + end) / 2, (start + x1) / 2
        kinds = word.text[k - 1].isdigit() and word.text[k].isalpha()
        cuts += [x for x in xs if (apart and end < x < start) or (kinds and left < x < right)]
    return _cut_word(word, cuts)


def _dash_apart(word: Word, height: float) -> list[Word]:
    """An OCR word of an amount and the dash of the cell beside it ("220409,99-" over
    "220409,99 | -"): a dash as far from the last digit as two cells are set apart is the
    next column's nothing; a ledger's trailing minus stands as close as a letter."""
    chars = word.chars
    if len(chars) != len(word.text) or len(chars) < 2 or not is_dash(word.text[-1]):
        return [word]
    if not ends_in_amount(word.text[:-1]) or chars[-1][0] - chars[-2][1] < NARROWEST_GAP * height:
        return [word]
    return _cut_word(word, [(chars[-2][1] + chars[-1][0]) / 2])


def _boxed_header_only(words: Sequence[Word], ys: Sequence[float], height: float) -> bool:
    """Rules bound a few rows at most, and more lines of words are set below them."""
    if len(ys) - 1 > MAX_HEADER_BANDS:
        return False
    below = lines_of([w for w in words if w.cy > ys[-1]], height)
    return len(below) > 2 * (len(ys) - 1)


def _with_lost_rules(
    xs: list[float],
    words: Sequence[Word],
    ys: Sequence[float],
    height: float,
    gap: float,
    tolerance: float,
) -> list[float]:
    """A box's rules with those OCR lost (read as a mark of a caption: "ДЕБ. |КРЕД."): where
    the body below the box has a column gap that no rule falls in, and the box's lowest band
    of captions has captions on both sides of a place in that gap and none across it (a gap
    between a quantity and an amount set in one cell lies under one caption). The rule is
    in the middle of the widest such place."""
    below = lines_of([w for w in words if w.cy > ys[-1]], height, gap)
    gaps = column_gaps(
        below, tolerance=tolerance, slack=gap * height, narrowest=NARROWEST_GAP * height
    )
    bands = [[w for w in words if top <= w.cy <= bottom] for top, bottom in itertools.pairwise(ys)]
    last = next((band for band in reversed(bands) if band), [])
    lost: list[float] = []
    for a, b in gaps:
        if not xs[0] < a < b < xs[-1] or any(a - height <= x <= b + height for x in xs):
            continue
        left = max(x for x in xs if x < a)
        right = min(x for x in xs if x > b)
        inside = [w for w in last if left < w.x0 and w.x1 < right]
        edges = sorted({a, b, *(e for w in inside for e in (w.x0, w.x1) if a < e < b)})
        free = [
            (x0, x1)
            for x0, x1 in itertools.pairwise(edges)
            if not any(w.x0 < (x0 + x1) / 2 < w.x1 for w in inside)
            and any(w.x1 <= x0 for w in inside)
            and any(w.x0 >= x1 for w in inside)
        ]
        if free:
            x0, x1 = max(free, key=lambda span: span[1] - span[0])
            lost.append((x0 + x1) / 2)
    return sorted([*xs, *lost])


def _framed(horizontal: list[Rule], vertical: Sequence[Rule], height: float) -> list[Rule]:
    """The horizontal rules of the table the vertical rules frame: a signature's underline or
    a rule far below a header boxed on its own bounds no row."""
    if not vertical:
        return horizontal
    top = min(r.start for r in vertical) - SAME_RULE * height
    bottom = max(r.end for r in vertical) + SAME_RULE * height
    return [r for r in horizontal if top <= r.position <= bottom]


def _positions(rules: Sequence[Rule], height: float) -> list[float]:
    positions: list[float] = []
    for rule in sorted(rules, key=lambda r: r.position):
        if positions and rule.position - positions[-1] <= SAME_RULE * height:
            continue
        positions.append(rule.position)
    return positions


def build_page_grid(
    page: PageWords,
    *,
    gap_tolerance: float = 0.0,
    gaps: Sequence[tuple[float, float]] | None = None,
) -> PageGrid:
    """``gaps``: column gaps to use instead of the page's own (a page that continues a table
    has too few rows of its own to show every column)."""
    ocr = page.source == "ocr"
    gap = OCR_PHRASE_GAP if ocr else PHRASE_GAP
    words = [w for w in page.words if w.text.strip()]
    if not words:
        return PageGrid(page.page, [], [], [], ocr)
    height = text_height(words)
    vertical = _joined_rules(page.rules, "v", height)
    if ocr:
        words = [w for w in (_without_rule_marks(w, vertical, height) for w in words) if w.text]
        if vertical:
            table = min(r.start for r in vertical), max(r.end for r in vertical)
            words = [part for w in words for part in _cut_at_rules(w, vertical, table, height)]
        words = [part for w in words for part in _dash_apart(w, height)]
    horizontal = _framed(_joined_rules(page.rules, "h", height), vertical, height)
    ys = _positions(horizontal, height)
    xs = _positions(vertical, height)
    ruled = len(ys) >= 2 and len(xs) >= 2
    if ruled and ocr and _boxed_header_only(words, ys, height):
        # A scan of a table boxed only around its header: the box's inner rules are often
        # too short to be found; where the body's alignment shows more columns than the box,
        # the columns are read off the body instead.
        body = column_gaps(lines_of(words, height, gap), tolerance=gap_tolerance)
        ruled = len(body) + 1 <= len(xs) - 1
        if ruled:
            xs = _with_lost_rules(xs, words, ys, height, gap, gap_tolerance)
    rows: list[dict[int, list[Word]]] = []
    if ruled:
        top, bottom = ys[0], ys[-1]
        above = [w for w in words if w.cy < top]
        inside = [w for w in words if top <= w.cy <= bottom]
        below = [w for w in words if w.cy > bottom]
        if ocr:
            # The body set below a box around the header only: no rule crosses its lines to
            # part a code set right from an amount set left beside it ("190,00" for 19 |
            # 0,00), but where the box's rule would pass, its characters stand apart.
            below = [part for w in below for part in _cut_at_gaps(w, xs, NARROWEST_GAP * height)]
        rows += _line_rows(lines_of(above, height, gap), xs, height, fold=False, on_rule=ocr)
        rows += _ruled_rows(inside, ys, xs, vertical, height, ocr=ocr)
        # A table boxed only around its header: its body is set below the box, by lines.
        below_lines = lines_of(below, height, gap)
        unit = statistics.median(line.extent for line in below_lines) if below_lines else height
        rows += _line_rows(below_lines, xs, unit, fold=True, gaps=[(x, x) for x in xs], on_rule=ocr)
    else:
        lines = lines_of(words, height, gap)
        found = (
            list(gaps)
            if gaps is not None
            else column_gaps(
                lines,
                tolerance=gap_tolerance,
                slack=gap * height,
                narrowest=NARROWEST_GAP * height,
            )
        )
        unit = statistics.median(line.extent for line in lines)
        bounds = _bounds(lines, found, unit)
        if ocr:
            # A word OCR read across a column's edge, its characters apart there ("44БУ"
            # for 44 | БУ: a code set right against an indicator set left), is two cells.
            cut = [part for w in words for part in _cut_at_gaps(w, bounds, NARROWEST_GAP * height)]
            if len(cut) > len(words):
                lines = lines_of(cut, height, gap)
        columns = len(found) + 1
        line_rows = _line_rows(lines, bounds, unit, fold=True, gaps=found)
        if gaps is not None:
            # The page before has already joined the columns these gaps part; a column
            # empty on this page's few rows is still a column.
            return _assemble(page, line_rows, height, ocr, found)
        first, moved = _captions_over_values(line_rows, columns)
        joined, merged = _one_column_set_two_ways(first, columns)
        rows += joined
        # The gaps of the columns as they end up: a page that continues the table with them
        # gets the same columns, although it has no caption line of its own to move them.
        final = [merged[moved[k]] for k in range(columns)]
        kept = [gap for k, gap in enumerate(found) if final[k] != final[k + 1]]
        return _assemble(page, rows, height, ocr, kept)
    # A page that continues this table without rules or a header of its own takes its
    # columns from these rules.
    return _assemble(page, rows, height, ocr, [(x, x) for x in xs])


def _bounds(
    lines: Sequence[Line], gaps: Sequence[tuple[float, float]], height: float
) -> list[float]:
    """Where one column ends and the next begins: the middle of the gap between their values,
    or just before the next column's values where they are set left (the cell's edge is
    there, and a caption of the column before, wider than its values, may run on past the
    middle of the gap: "Об. За Период Дт | 06. За Период Кт")."""
    near = NARROWEST_GAP * height
    return [
        max((a + b) / 2, b - near) if _set_left(lines, b, near) else (a + b) / 2 for a, b in gaps
    ]


def _set_left(lines: Sequence[Line], x: float, near: float) -> bool:
    """Values that start together at ``x`` (within ``near``) on two lines or more, and end
    apart: they are set left (values set right start together only where they are as wide)."""
    ends = [p.words[0].x1 for line in lines for p in line.phrases if abs(p.x0 - x) <= near]
    return len(ends) >= 2 and max(ends) - min(ends) > near


def _line_rows(
    lines: Sequence[Line],
    bounds: Sequence[float],
    height: float,
    *,
    fold: bool,
    gaps: Sequence[tuple[float, float]] = (),
    on_rule: bool = False,
) -> list[dict[int, list[Word]]]:
    """A row per line; phrases go to the column their left edge is in (a phrase starting in
    a gap belongs to the column right of it; with ``on_rule``, the bounds are the rules of a
    scan, and a phrase starting just left of one is right of it). With ``fold``, the lines
    of a wrapped cell join the row of their amounts (``height``: of a line of text)."""
    overlap = ON_RULE * height if on_rule else 0.0
    table: list[TableLine] = []
    # The columns whose values are set left, where a run may have to be cut (a caption's
    # line run on into the next cell's).
    near = NARROWEST_GAP * height
    shared = _shared_starts(lines, near)
    starts = [b for _, b in gaps if any(abs(b - x) <= near for x in shared)]
    # The gaps whose left column has values set right, ending together at the gap.
    ends = _shared_ends(lines, near)
    set_right = {a for a, _ in gaps if any(abs(a - x) <= near for x in ends)}
    # Where each column's values start (a gap's far side).
    edges = [b for _, b in gaps]
    # Where a caption set left in its cell starts, inside the gap before the column's values
    # (set right, they start further on).
    captions = [
        p.x0
        for line in lines
        for p in line.phrases[1:]
        if not is_numeric(p.text) and any(a + near < p.x0 <= b for a, b in gaps)
    ]
    table_seen = False
    for line in lines:
        row: dict[int, list[Word]] = {}
        texts: list[tuple[int, str]] = []
        ocr = line.words[0].confidence is not None
        if ocr and bounds:
            line = _number_read_as_letter(line, bounds)
        phrases = line.phrases
        lead, first = _leading_numbers(line.words), 0
        if not lead and len(line.words) > 1:
            # A first word in a column of its own is its cell whatever OCR read in it (a
            # level "1" read as "не"): the numbers after it may still be read as one word.
            words = line.words
            first = int(_bound_between(words[0], words[1], bounds))
            lead = first + _leading_numbers(words[first:]) if first else 0
        # A short first word alone in its column is a level whatever OCR read ("О", "не").
        level = first and len(line.words[0].text) <= MAX_LEVEL_READ
        if ocr and bounds and (first < lead or level) and lead < len(line.words):
            phrases = _cut_leading(phrases, line.words[first:lead], bounds)
            # A title's line too: the outline level printed before it ("0 ООО «Альфа»",
            # "О Валюта: BYN") is the level column's, where a column boundary parts them.
            phrases = [*_apart_after(phrases[0], bounds, gaps, lead), *phrases[1:]]
            head = phrases[0].words
            if level and len(head) == 1 and head[0].text in DIGIT_LOOKALIKES:
                phrases[0] = Phrase([replace(head[0], text=DIGIT_LOOKALIKES[head[0].text])])
        # Below the first line of three cells or more, a line of captions run together is
        # the header's (above it, a line run over the columns is a title).
        run_on = table_seen and _captions_run_on(phrases, bounds)
        table_seen = table_seen or len(phrases) >= 3
        if bounds and ocr and (len(phrases) >= 3 or run_on):
            # Where values start is a cell's edge on a row of amounts; a caption of a group
            # may have a word start there. On a caption's line, a word starts a cell where
            # another line's caption starts in the same gap: captions wrapped to their cells'
            # width end as close to the next one as the words of one.
            amounts = any(ends_in_amount(p.text) for p in phrases)
            starts_at = edges if amounts else captions
            phrases = [
                part for p in phrases for part in _split_at_bounds(p, bounds, starts_at, near)
            ]
            if not amounts:
                phrases = [part for p in phrases for part in _split_at_overflow(p, gaps, near)]
        elif len(phrases) >= 3 and starts and any(is_numeric(p.text) for p in phrases):
            # Only a line the columns were found on (a group caption centred over two
            # columns is one phrase across their boundary).
            phrases = [part for p in phrases for part in _split_at_starts(p, starts, near)]
        numbers = _column_numbers(line)
        for phrase in phrases:
            column = _column_of(phrase.x0 + overlap, bounds)
            for k, (a, b) in enumerate(gaps):
                if a <= phrase.x0 <= b:
                    # A caption starting in a gap is set left in the column right of it; a
                    # number set right against the gap's far side (as a spreadsheet sets
                    # it: a column number, a quantity) is the column's left of it, however
                    # near the gap's other side it starts (that column's values may be text
                    # set left, ending well before its right edge). Where that column's
                    # values are numbers ending together at the gap, a number no nearer the
                    # far side than the near one is set left in the next column.
                    to_b, from_a = b - phrase.x1, phrase.x0 - a
                    right_set = (
                        (numbers or is_numeric(phrase.text))
                        and phrase.x1 <= b
                        and (to_b < from_a or (a not in set_right and to_b <= PHRASE_GAP * height))
                    )
                    column = k if right_set else k + 1
            row.setdefault(column, []).extend(phrase.words)
            texts.append((column, phrase.text))
        table.append(TableLine(line.cy, row, texts))
    if fold:
        return fold_wrapped(table, height)
    return [line.cells for line in table]


def _captions_run_on(phrases: Sequence[Phrase], bounds: Sequence[float]) -> bool:
    """A line of a few phrases, one of which starts in the table (not in its first column)
    and runs on over two column boundaries or more: captions of neighbouring columns set as
    close as the words of one ("Сумма По Дебету Сумма По Кредиту …"). A title starts in the
    first column."""
    return bool(bounds) and any(
        p.x0 > bounds[0]
        and not ends_in_amount(p.text)
        and sum(p.x0 < bound < p.x1 for bound in bounds) >= 2
        for p in phrases
    )


def _number_read_as_letter(line: Line, bounds: Sequence[float]) -> Line:
    """A line whose first word is a row's one-digit number read as its look-alike letter and
    glued to the name in the next column ("ЗКолос СПК" for 3 | Колос СПК), cut at the column
    boundary between them, the number read as its digit."""
    head = line.words[0]
    if not _number_and_name(head.text):
        return line
    parts = _cut_word(head, bounds)
    if len(parts) != 2 or len(parts[0].text) != 1:
        return line
    number = replace(parts[0], text=DIGIT_LOOKALIKES[parts[0].text])
    first = line.phrases[0]
    return Line(
        [number, parts[1], *line.words[1:]],
        [Phrase([number]), Phrase([parts[1], *first.words[1:]]), *line.phrases[1:]],
    )


def _cut_leading(
    phrases: Sequence[Phrase], leading: Sequence[Word], bounds: Sequence[float]
) -> list[Phrase]:
    """A line's phrases with its leading numbers cut at the column boundaries that fall
    between their characters."""
    lead = {id(w) for w in leading}
    return [
        Phrase([part for w in p.words for part in (_cut_word(w, bounds) if id(w) in lead else [w])])
        for p in phrases
    ]


def _cut_before(phrase: Phrase, cut: Callable[[int, Word, Word], bool]) -> list[Phrase]:
    """A phrase in pieces: a new one starts at each word that ``cut`` (given the word's place
    from 1, the word before it and the word) says starts a cell."""
    parts = [Phrase([phrase.words[0]])]
    for k, (before, word) in enumerate(itertools.pairwise(phrase.words), start=1):
        if cut(k, before, word):
            parts.append(Phrase([word]))
        else:
            parts[-1].words.append(word)
    return parts


def _bound_between(before: Word, word: Word, bounds: Sequence[float]) -> bool:
    return any(before.x1 <= bound <= word.x0 for bound in bounds)


def _apart_after(
    phrase: Phrase, bounds: Sequence[float], gaps: Sequence[tuple[float, float]], count: int
) -> list[Phrase]:
    """A line's first phrase cut between its ``count`` leading numbers, and after them, where
    a column boundary falls there (an outline level before a code: "0 | 41 Товары"), or
    where a gap opens: an account's name set less indented than its subaccounts' starts in
    the gap after the levels ("0 | 76 Расчеты")."""
    if not 0 < count < len(phrase.words):
        return [phrase]
    return _cut_before(
        phrase,
        lambda k, before, word: (
            k <= count
            and (
                _bound_between(before, word, bounds)
                or any(before.x1 <= a < word.x0 for a, _ in gaps)
            )
        ),
    )


def _split_at_bounds(
    phrase: Phrase, bounds: Sequence[float], edges: Sequence[float], near: float
) -> list[Phrase]:
    """A phrase of a table row cut where a column boundary falls between two of its words,
    or before a word that starts where a column's values start (``edges``, within ``near``:
    a wrapped name's line may run on into the gap before it): OCR sets neighbouring cells as
    close as the words of one (a text layer's runs say where its cells end)."""
    return _cut_before(
        phrase,
        lambda _, before, word: (
            _bound_between(before, word, bounds)
            or any(before.x1 < edge and abs(word.x0 - edge) <= near for edge in edges)
        ),
    )


def _split_at_overflow(
    phrase: Phrase, gaps: Sequence[tuple[float, float]], near: float
) -> list[Phrase]:
    """A caption's line cut before a word that starts where a column's values start (a gap's
    far side, within ``near``), after a word that runs on into that gap: a caption wider
    than its column ("Наименование корреспондента") set as close to the next caption ("ИНН")
    as the words of one. Only a caption set left at its column's edge runs on so; a group
    caption centred over two columns ("НА | НАЧАЛО") may have a word start at a gap."""
    if not any(abs(phrase.x0 - b) <= near for _, b in gaps):
        return [phrase]
    return _cut_before(
        phrase,
        lambda _, before, word: any(
            a <= before.x1 < word.x0 and abs(word.x0 - b) <= near for a, b in gaps
        ),
    )


def _shared_starts(lines: Sequence[Line], near: float) -> list[float]:
    """Where phrases of text, or of different widths, on two or more table lines start
    (within ``near``): the left edges of columns whose values are set left (right-aligned
    amounts of as many digits start together too, and end together)."""
    spans = sorted((p.x0, p.x1, not is_numeric(p.text)) for line in lines for p in line.phrases[1:])
    return [
        b0
        for (a0, a1, a_text), (b0, b1, b_text) in itertools.pairwise(spans)
        if b0 - a0 <= near and (near < abs(b1 - a1) or (a_text and b_text))
    ]


_CURRENCIES = frozenset({"BYN", "BYR", "RUB", "RUR", "USD", "EUR", "KZT", "KGS", "CNY"})


def _starts_within_runs(lines: Sequence[Line], near: float) -> list[float]:
    """Where cells that OCR read into the run before them start together (within ``near``)
    on two lines or more: names after an amount set right against them, closer than a space
    ("-46601,7 ООО «Сигма»"; a name is capitalised, no currency's code, and runs on past its
    first word), and documents' numbers after a date ("09.09.2024 80089": a value date and
    the number beside it; a time is the date's own)."""

    def after(before: str, word: str, last: bool) -> bool:
        if starts_with_date(before) and ":" not in before:
            return word.isdigit()
        return (
            not last
            and ends_in_amount(before)
            and (word[:1].isupper() or word[:1] in '«"')
            and word.upper() not in _CURRENCIES
        )

    xs = sorted(
        p.words[k].x0
        for line in lines
        for p in line.phrases
        for k in range(1, len(p.words))
        if after(p.words[k - 1].text, p.words[k].text, k == len(p.words) - 1)
    )
    return [b for a, b in itertools.pairwise(xs) if b - a <= near]


def _shared_ends(lines: Sequence[Line], near: float) -> list[float]:
    """Where numbers of different widths on two or more lines end (within ``near``): the
    right edges of columns whose values are set right."""
    spans = sorted((p.x1, p.x0) for line in lines for p in line.phrases if is_numeric(p.text))
    return [
        b1 for (a1, a0), (b1, b0) in itertools.pairwise(spans) if b1 - a1 <= near < abs(b0 - a0)
    ]


def _split_at_starts(phrase: Phrase, starts: Sequence[float], near: float) -> list[Phrase]:
    """A run cut before a word that starts where a column's values start (within ``near``):
    a printer may set a caption's first line and the next cell's in one run."""
    return _cut_before(
        phrase,
        lambda _, before, word: (
            before.x1 < word.x0 and any(abs(word.x0 - b) <= near for b in starts)
        ),
    )


Moved = tuple[list[dict[int, list[Word]]], list[int]]


def _captions_over_values(rows: list[dict[int, list[Word]]], columns: int) -> Moved:
    """A caption set left in its column over values set right opens a column of its own
    between the gaps of the body; such a column, empty in every row of amounts, whose
    neighbour on the right has values but no caption beside it on any line, is that
    neighbour's caption, and goes. Also gives where each of ``columns`` went."""

    def amounts(row: dict[int, list[Word]]) -> bool:
        texts = (" ".join(w.text for w in words) for words in row.values())
        return sum(_amount_like(t) for t in texts) >= 2

    width = max(max((max(row) for row in rows if row), default=-1) + 1, columns)
    same = list(range(width))
    body = [row for row in rows if amounts(row)]
    if not body:
        return rows, same
    used = {c for row in body for c in row}
    moved: dict[int, int] = {}
    for column in range(width - 1):
        right = column + 1
        if column in used or right not in used or right in moved.values():
            continue
        lines = [row for row in rows if column in row]
        if lines and all(right not in row for row in lines):
            moved[column] = right
    if not moved:
        return rows, same
    # The caption's own column goes: a header composes groups over adjacent columns.
    shift = [sum(1 for m in moved if m < c) for c in range(width)]
    where = [(c := moved.get(k, k)) - shift[c] for k in range(width)]
    return [{where[k]: words for k, words in row.items()} for row in rows], where


def _amount_like(text: str) -> bool:
    """An amount as any sheet prints it: with decimals (one in thousands) or four digits."""
    return is_numeric(text) and bool(_AMOUNT_LIKE.search(text))


def _one_column_set_two_ways(rows: list[dict[int, list[Word]]], columns: int) -> Moved:
    """Two neighbouring columns that no line of values fills both of: one column whose
    values are set two ways (codes as text set left, codes as numbers set right; a dash for
    nothing set left, amounts set right), which the gap between them split. Also gives where
    each of ``columns`` went."""
    width = max(max((max(row) for row in rows if row), default=-1) + 1, columns)
    merged = [c for c in range(1, width) if _set_two_ways(rows, c - 1, c)]
    if not merged:
        return rows, list(range(width))
    final: dict[int, int] = {}
    for column in range(width):
        final[column] = final[column - 1] if column in merged else len(set(final.values()))
    out: list[dict[int, list[Word]]] = []
    for row in rows:
        joined: dict[int, list[Word]] = {}
        for column, words in sorted(row.items()):
            joined.setdefault(final[column], []).extend(words)
        out.append(joined)
    return out, [final[c] for c in range(width)]


def _set_two_ways(rows: Sequence[dict[int, list[Word]]], left: int, right: int) -> bool:
    lefts = [row for row in rows if left in row]
    rights = [row for row in rows if right in row]
    if len(lefts) < 2 or len(rights) < 2:
        return False

    def text(words: list[Word]) -> str:
        return " ".join(w.text for w in words)

    def texts(column: int, side: list[dict[int, list[Word]]]) -> list[str]:
        # Rows of the table only: a caption line may fill both.
        return [text(row[column]) for row in side if len(row) > 2]

    # A long code set left that the gap cut at a dot ("41.1. | 1", "10.1 | .1") is one
    # cell, not two.
    both = [
        text(row[left])
        for row in lefts
        if right in row and not _cut_at_dot(text(row[left]), text(row[right]))
    ]
    left_texts, right_texts = texts(left, lefts), texts(right, rights)
    # Codes (short digits and dots) or text on both sides, never amounts: a debit and a
    # credit column are never one.
    if not both and all(_CODE.match(t.strip(".")) for t in (*left_texts, *right_texts)):
        return True
    # Dashes for nothing set left over amounts set right (with quantities set right too),
    # the dashes under the caption: in the rows that hold amounts. A group caption may
    # fill both ("На | 01.01.2024"); a line with a value on the left never does.
    if any(is_numeric(t) or is_dash(t) for t in both):
        return False
    dashes = [
        text(row[left]) for row in lefts if any(_amount_like(text(words)) for words in row.values())
    ]
    # OCR reads some of the dashes as noise ("=", "еае"): most are dashes, none a number.
    # The same goes for the amounts: a column's number read as a letter ("У" for 7), a dash
    # read into an amount ("—2738989,1").
    return (
        sum(is_dash(t) for t in dashes) >= DASH_SHARE * len(dashes) > 0
        and not any(ch.isdigit() for t in dashes for ch in t)
        and sum(is_numeric(t) for t in right_texts) >= MOST * len(right_texts)
        and any(_amount_like(t) for t in right_texts)
    )


def _cut_at_dot(left: str, right: str) -> bool:
    return (left.endswith(".") or right.startswith(".")) and bool(
        _CODE_PARTS.fullmatch(left + right)
    )


def _ruled_rows(
    words: Sequence[Word],
    ys: Sequence[float],
    xs: Sequence[float],
    vertical: Sequence[Rule],
    height: float,
    *,
    ocr: bool,
) -> list[dict[int, list[Word]]]:
    """A row per band between horizontal rules; columns from the vertical rules crossing
    that band, each cell named by the table column its left border starts."""
    bands: list[list[Word]] = [[] for _ in range(len(ys) - 1)]
    for word in words:
        band = min(max(bisect.bisect_right(ys, word.cy) - 1, 0), len(bands) - 1)
        bands[band].append(word)
    rows: list[dict[int, list[Word]]] = []
    for members in bands:
        if not members:
            continue
        row: dict[int, list[Word]] = {}
        # Each line of a band by the rules that cross it: a header's band holds a group
        # caption over two columns above the captions of each, with a rule between those only.
        for line in lines_of(members, height, OCR_PHRASE_GAP):
            crossing = _positions(
                [r for r in vertical if r.start - height / 2 <= line.cy <= r.end + height / 2],
                height,
            )
            local = crossing or list(xs)
            if ocr:
                # A scan loses pieces of rules: where none crosses the line, the table's
                # border still divides it unless a phrase runs across (a caption merged over
                # columns), more than by a box that starts or ends on the rule.
                margin = ON_RULE * height
                spans = [(p.x0 + margin, p.x1 - margin) for p in line.phrases]
                local = sorted({*local, *(x for x in xs if not any(a < x < b for a, b in spans))})
            for word in line.words:
                cell = bisect.bisect_right(local, word.cx)
                left_border = local[cell - 1] if cell > 0 else None
                column = _column_of(left_border, xs) if left_border is not None else 0
                row.setdefault(column, []).append(word)
        rows.append(row)
    return rows


def _assemble(
    page: PageWords,
    rows: list[dict[int, list[Word]]],
    height: float,
    ocr: bool,
    gaps: list[tuple[float, float]],
) -> PageGrid:
    width = max((max(row) + 1 for row in rows if row), default=0)
    texts: list[list[str | None]] = []
    confidence: list[list[float | None]] = []
    boxes: list[list[BBox | None]] = []
    for row in rows:
        if not row:
            continue
        cell_text = _cells_text(row, height)
        if ocr:
            cell_text = {c: _code_spacing(_amount_spacing(t)) for c, t in cell_text.items()}
        texts.append([cell_text.get(c) for c in range(width)])
        confidence.append(
            [
                min((w.confidence for w in row[c] if w.confidence is not None), default=None)
                if c in row
                else None
                for c in range(width)
            ]
        )
        boxes.append([_box(row[c], page) if c in row else None for c in range(width)])
    return PageGrid(page.page, texts, confidence, boxes, ocr, gaps)


def _amount_spacing(text: str) -> str:
    """OCR keeps or drops the thin spaces between digit groups at random ("2160 681,17"):
    inside a cell that is one amount, spaces carry no digits and are dropped."""
    if " " in text and _SPACED_AMOUNT.match(text):
        return text.replace(" ", "")
    return text


def _code_spacing(text: str) -> str:
    """A cell that starts with an account's code OCR set a space beside one of its dots
    ("68.1. 1", "10.1 .1"): the code is one word, whatever follows it."""
    return _SPACED_CODE.sub(r"\1.\2", text, count=1)


def _box(words: Sequence[Word], page: PageWords) -> BBox:
    def clamp(value: float) -> float:
        return round(min(max(value, 0.0), 1.0), 4)

    return BBox(
        clamp(min(w.x0 for w in words) / page.width),
        clamp(min(w.y0 for w in words) / page.height),
        clamp(max(w.x1 for w in words) / page.width),
        clamp(max(w.y1 for w in words) / page.height),
    )
