"""OCR look-alikes put right where the reading is unambiguous, and pieces of lines dropped.

A word made of digits and number punctuation with one or two letters that OCR confuses with
digits (``О`` for ``0``, ``l`` for ``1``, ``З`` for ``3``) is a number misread: the letters
become the digits they resemble (``repair_number``). A word with more letters than that, or
letters with no digit look-alike, is left as it is: an IBAN, a BIC or a name must not turn into
digits. Nothing is ever added: a character that is not there stays missing. Each digit repair
lowers the word's confidence, so that the row reports it.

A word of a Cyrillic page that OCR read with Latin look-alikes or digits among its letters
("OOO", "Дeбет", "0бороты") is spelled in Cyrillic (``fold_lookalikes``); the glyph printed
was the same either way, so its confidence stays.

A preposition or conjunction inside a lower-case Cyrillic phrase that OCR read in Latin ("no"
for "по", "or" or "of" for "от") or in capitals ("Товары На складах") is spelled as printed
(``repair_words``): such words stand in lower case between lower-case words. So is the number
sign read in Latin before a number ("Ne 653"), and a percent sign read apart from the number
it is printed against.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from document_extraction.lookalikes import (
    DIGIT_LOOKALIKES,
    fold_lookalikes,
    is_cyrillic_text,
    repair_number,
)
from scan_gateway.words import Word
from scan_gateway.wrapped_cells import ends_in_amount

# Confidence a repaired word is left with at most, and loses per repaired character.
REPAIRED_CEILING: Final = 75.0
REPAIR_COST: Final = 10.0


_STROKE_GLYPHS = frozenset("-\u2013\u2014\u2212_|!/\\")
# A dash-like word this many times taller than wide is a stroke of a line, not a dash.
STROKE_ASPECT: Final = 1.5


# A Belarusian IBAN: BY, two check digits, a four-letter bank code, four digits of the
# balance account, sixteen letters or digits. Where the format says digit, a look-alike is one.
_BY_IBAN = re.compile(r"^BY(..)([A-Z]{4})(....)([A-Z0-9]{16})$")


# An amount whose decimal comma OCR read as a colon ("39:27"); a time of day may look so.
_COLON_FOR_COMMA = re.compile(r"^(-?\d+):(\d{2})$")
_LAST_HOUR, _LAST_MINUTE = 23, 59
# An account's code whose dot OCR read as a colon ("90:1", "41:1.2"): one digit after the
# colon, as neither a clock nor an amount prints.
_COLON_IN_CODE = re.compile(r"^(\d{2,3}):(\d(?:\.\d{1,3})*)$")
# A minus read twice ("—-34 906,03"): two dash glyphs over one printed sign before digits.
_DOUBLED_MINUS = re.compile(r"^[-\u2212\u2013\u2014]{2}(?=\d)")
_SIGNED = re.compile(r"^[-\u2212\u2013\u2014]\d")


def _repaired(word: Word, text: str, repairs: int) -> Word:
    if repairs == 0:
        return word
    confidence = word.confidence if word.confidence is not None else 100.0
    confidence = min(REPAIRED_CEILING, confidence - REPAIR_COST * repairs)
    chars = word.chars
    if len(chars) == len(word.text) and len(text) != len(word.text):
        chars = chars[len(word.text) - len(text) :]  # characters were taken off the front
    return replace(word, text=text, confidence=max(0.0, confidence), chars=chars)


def _repair_iban(word: Word) -> Word | None:
    match = _BY_IBAN.match(word.text)
    if match is None:
        return None
    check, bank, balance, rest = match.groups()
    fixed_check = "".join(DIGIT_LOOKALIKES.get(ch, ch) for ch in check)
    fixed_balance = "".join(DIGIT_LOOKALIKES.get(ch, ch) for ch in balance)
    if not (fixed_check + fixed_balance).isdigit():
        return None
    repairs = sum(a != b for a, b in zip(check + balance, fixed_check + fixed_balance, strict=True))
    return _repaired(word, f"BY{fixed_check}{bank}{fixed_balance}{rest}", repairs)


# A digit's box this many times wider than its word's typical digit swallowed more ink.
SWALLOWED_WIDTH: Final = 2.0


def _without_swallowed_ink(word: Word) -> Word:
    """An amount whose last (or first) digit's box took in the next cell's dash ("759,70" over
    the ink of "759,70 —"): the box cut to a digit's width, so the column edge it hid shows."""
    chars = word.chars
    if len(chars) != len(word.text) or not ends_in_amount(word.text):
        return word
    digits = sorted(b - a for (a, b), ch in zip(chars, word.text, strict=True) if ch.isdigit())
    if len(digits) < 3:
        return word
    typical = digits[len(digits) // 2]
    (first_x0, first_x1), (last_x0, last_x1) = chars[0], chars[-1]
    if word.text[-1].isdigit() and last_x1 - last_x0 > SWALLOWED_WIDTH * typical:
        chars = (*chars[:-1], (last_x0, last_x0 + typical))
    if word.text[0].isdigit() and first_x1 - first_x0 > SWALLOWED_WIDTH * typical:
        chars = ((first_x1 - typical, first_x1), *chars[1:])
    if chars == word.chars:
        return word
    return replace(word, x0=chars[0][0], x1=chars[-1][1], chars=chars)


def repair_word(word: Word, cyrillic_page: bool | None = None) -> Word:
    """One word with its look-alikes put right; ``cyrillic_page`` says whether a word of Latin
    look-alikes only stands among Cyrillic words (judged from the word alone when not given)."""
    word = _without_swallowed_ink(word)
    iban = _repair_iban(word)
    if iban is not None:
        return iban
    if _DOUBLED_MINUS.match(word.text):
        word = _repaired(word, "-" + word.text[2:], 1)
    text, repairs = repair_number(word.text)
    if repairs:
        return _repaired(word, text, repairs)
    amount = _colon_for_comma(word.text)
    if amount is not None:
        return _repaired(word, amount, 1)
    code = _COLON_IN_CODE.match(word.text)
    if code is not None:
        return _repaired(word, f"{code[1]}.{code[2]}", 1)
    folded = fold_lookalikes(word.text, cyrillic_page)
    return word if folded == word.text else replace(word, text=folded)


def _colon_for_comma(text: str) -> str | None:
    """Digits, a colon and two digits that no clock shows ("39:27", "1250:00"): an amount
    whose comma OCR read as a colon. A time ("12:50") stays."""
    match = _COLON_FOR_COMMA.match(text)
    if match is None:
        return None
    units, hundredths = match.groups()
    hours = units.lstrip("-")
    if len(hours) <= 2 and int(hours) <= _LAST_HOUR and int(hundredths) <= _LAST_MINUTE:
        return None
    return f"{units},{hundredths}"


def is_stroke(word: Word) -> bool:
    """A piece of a ruling line read as a dash or a bar: dash glyphs in a box taller than it
    is wide (a printed dash is wide and flat)."""
    return (
        bool(word.text)
        and set(word.text) <= _STROKE_GLYPHS
        and word.height > STROKE_ASPECT * (word.x1 - word.x0)
    )


_SIGN_GLYPHS = frozenset("-\u2212\u2013\u2014=~")
# How near (in the amount's heights) a dash may stand before a signed amount and be its sign
# read a second time.
SIGN_REREAD: Final = 0.6


def _signs_read_twice(words: list[Word]) -> set[int]:
    """Dash-only words right before an amount that has its own minus ("=" and "-16 125,51"
    for one printed "-16 125,51"): OCR read the sign twice."""
    signed = [w for w in words if _SIGNED.match(w.text)]
    out: set[int] = set()
    for k, word in enumerate(words):
        if not word.text or not set(word.text) <= _SIGN_GLYPHS:
            continue
        if any(
            abs(amount.cy - word.cy) <= amount.height / 2
            and 0 <= amount.x0 - word.x1 <= SIGN_REREAD * amount.height
            for amount in signed
        ):
            out.add(k)
    return out


# Short Russian words OCR reads in Latin letters that have no Cyrillic look-alike ("no" for
# "по", "or" and "of" for "от"), with a digit ("3а" for "за") or with a capital ("На", "ВО"
# among lower-case words): prepositions and conjunctions, which stand inside a phrase in
# lower case.
_LATIN_READINGS: Final = {"no": "по", "or": "от", "of": "от", "3а": "за", "3a": "за"}
_SMALL_WORDS: Final = frozenset(
    {"в", "во", "на", "по", "с", "со", "и", "к", "ко", "о", "об", "от", "за", "до", "из", "у"}
)
# Words of one phrase stand at most this far apart (in their heights).
PHRASE_NEIGHBOUR = 1.5
# "№" as Tesseract reads it in Latin: before a number it is the number sign.
_NUMBER_SIGN_READINGS: Final = frozenset({"Ne", "N°", "Nº"})
# A sign closer than this (in the number's height) to the number before it is printed with
# it, not a space apart ("20%" read as "20" and "%").
TIGHT = 0.25


def _in_phrase(before: Word, after: Word) -> bool:
    height = max(before.height, after.height)
    return (
        abs(before.cy - after.cy) <= height / 2
        and -height / 4 <= after.x0 - before.x1 <= PHRASE_NEIGHBOUR * height
    )


def _beside(words: Sequence[Word], k: int, *, before: bool) -> Word | None:
    """The word of the same phrase right before (or after) word ``k``, found by position:
    OCR's order interleaves the lines of a wrapped cell with those of the cells beside it."""
    word = words[k]
    pairs = [(w, word) if before else (word, w) for i, w in enumerate(words) if i != k]
    near = [pair for pair in pairs if _in_phrase(*pair)]
    if not near:
        return None
    left, right = min(near, key=lambda pair: pair[1].x0 - pair[0].x1)
    return left if before else right


def _lower_start(text: str) -> bool:
    return bool(text) and text[0].islower() and is_cyrillic_text([text])


def _lower_end(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and letters[-1].islower() and is_cyrillic_text([text])


def _small_word(words: Sequence[Word], k: int) -> str | None:
    """A preposition or conjunction inside a lower-case Cyrillic phrase, spelled as printed,
    where OCR read it in Latin or in capitals, and the number sign read in Latin before a
    number; None for any other word."""
    text = words[k].text
    if text in _NUMBER_SIGN_READINGS:
        after = _beside(words, k, before=False)
        return "№" if after is not None and after.text[:1].isdigit() else None
    wanted = _LATIN_READINGS.get(text) or (text.lower() if text.lower() in _SMALL_WORDS else None)
    if wanted is None or wanted == text:
        return None
    before = _beside(words, k, before=True)
    after = _beside(words, k, before=False)
    lower_before = before is not None and _lower_end(before.text)
    if after is None:
        # Read in Latin or with a digit, or a capital after a small letter ("оТ"): no word is
        # printed so. At the end of a wrapped cell's line, the phrase before it tells.
        misread = text in _LATIN_READINGS or text[:1].islower()
        return wanted if misread and lower_before else None
    if not _lower_start(after.text) and not after.text[:1].isdigit():
        return None
    if text in _LATIN_READINGS or text[:1].islower():
        return wanted
    return wanted if lower_before else None


def _percent_joined(words: list[Word]) -> list[Word]:
    """A percent sign OCR read apart from the number it is printed against is that number's.
    The two need not follow each other in OCR's order: a wrapped cell's lines interleave."""
    out = list(words)
    joined: set[int] = set()
    for k, word in enumerate(words):
        if word.text != "%":
            continue
        numbers = [
            i
            for i, last in enumerate(out)
            if i not in joined
            and last.text[-1:].isdigit()
            and abs(last.cy - word.cy) <= last.height / 2
            and 0 <= word.x0 - last.x1 < TIGHT * last.height
        ]
        if not numbers:
            continue
        i = min(numbers, key=lambda i: word.x0 - out[i].x1)
        last = out[i]
        chars = (*last.chars, *word.chars) if last.chars and word.chars else ()
        confidence = min(last.confidence or 0.0, word.confidence or 0.0)
        out[i] = replace(last, text=last.text + "%", x1=word.x1, confidence=confidence, chars=chars)
        joined.add(k)
    return [w for k, w in enumerate(out) if k not in joined]


def repair_words(words: list[Word]) -> list[Word]:
    """Look-alikes put right; pieces of ruling lines and signs read twice dropped; a percent
    sign joined to its number; a short word of a Cyrillic phrase spelled as printed."""
    cyrillic_page = is_cyrillic_text(w.text for w in words)
    twice = _signs_read_twice(words)
    kept = _percent_joined(
        [
            repair_word(w, cyrillic_page)
            for k, w in enumerate(words)
            if not is_stroke(w) and k not in twice
        ]
    )
    if not cyrillic_page:
        return kept
    return [
        replace(w, text=small) if (small := _small_word(kept, k)) is not None else w
        for k, w in enumerate(kept)
    ]
