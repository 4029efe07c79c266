"""OCR look-alikes inside numbers, put right only where the reading is unambiguous.

A word made of digits and number punctuation with one or two letters that OCR confuses with
digits (``О`` for ``0``, ``l`` for ``1``, ``З`` for ``3``) is a number misread: the letters
become the digits they resemble. A word with more letters than that, or letters with no
digit look-alike, is left as it is: an IBAN, a BIC or a name must not turn into digits.
Nothing is ever added: a character that is not there stays missing. Each repair lowers the
word's confidence, so that the row reports it.
"""

from __future__ import annotations

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


def repair_word(word: Word) -> Word:
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
