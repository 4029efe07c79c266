"""OCR look-alikes inside numbers, put right only where the reading is unambiguous.

A word made of digits and number punctuation with one or two letters that OCR confuses with
digits (``О`` for ``0``, ``l`` for ``1``, ``З`` for ``3``) is a number misread: the letters
become the digits they resemble. A word with more letters than that, or letters with no
digit look-alike, is left as it is: an IBAN, a BIC or a name must not turn into digits.
Nothing is ever added: a character that is not there stays missing. Each repair lowers the
word's confidence, so that the row reports it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from scan_gateway.words import Word

LOOKALIKES: Final = {
    "O": "0", "o": "0", "О": "0", "о": "0", "D": "0", "Q": "0",
    "l": "1", "I": "1", "|": "1", "i": "1", "!": "1",
    "З": "3", "з": "3",
    "S": "5", "s": "5",
    "б": "6", "G": "6",
    "B": "8", "В": "8",
    "g": "9", "q": "9",
}  # fmt: skip
_PUNCTUATION: Final = set(",.-−()/:")
MAX_REPAIRS: Final = 2
# Confidence a repaired word is left with at most, and loses per repaired character.
REPAIRED_CEILING: Final = 75.0
REPAIR_COST: Final = 10.0


# A Belarusian IBAN: BY, two check digits, a four-letter bank code, four digits of the
# balance account, sixteen letters or digits. Where the format says digit, a look-alike is one.
_BY_IBAN = re.compile(r"^BY(..)([A-Z]{4})(....)([A-Z0-9]{16})$")


def _repair_iban(word: Word) -> Word | None:
    match = _BY_IBAN.match(word.text)
    if match is None:
        return None
    check, bank, balance, rest = match.groups()
    fixed_check = "".join(LOOKALIKES.get(ch, ch) for ch in check)
    fixed_balance = "".join(LOOKALIKES.get(ch, ch) for ch in balance)
    if not (fixed_check + fixed_balance).isdigit():
        return None
    repairs = sum(a != b for a, b in zip(check + balance, fixed_check + fixed_balance, strict=True))
    if repairs == 0:
        return word
    confidence = word.confidence if word.confidence is not None else 100.0
    confidence = min(REPAIRED_CEILING, confidence - REPAIR_COST * repairs)
    text = f"BY{fixed_check}{bank}{fixed_balance}{rest}"
    return replace(word, text=text, confidence=max(0.0, confidence))


def repair_word(word: Word) -> Word:
    iban = _repair_iban(word)
    if iban is not None:
        return iban
    text = word.text
    digits = sum(ch.isdigit() for ch in text)
    suspects = [i for i, ch in enumerate(text) if ch in LOOKALIKES]
    others = [
        ch for ch in text if not ch.isdigit() and ch not in _PUNCTUATION and ch not in LOOKALIKES
    ]
    if others or not suspects or len(suspects) > MAX_REPAIRS or digits < 2 * len(suspects):
        return word
    chars = list(text)
    for i in suspects:
        chars[i] = LOOKALIKES[chars[i]]
    confidence = word.confidence if word.confidence is not None else 100.0
    confidence = min(REPAIRED_CEILING, confidence - REPAIR_COST * len(suspects))
    return replace(word, text="".join(chars), confidence=max(0.0, confidence))


def repair_words(words: list[Word]) -> list[Word]:
    return [repair_word(w) for w in words]
