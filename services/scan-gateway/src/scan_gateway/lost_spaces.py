"""Spaces OCR did not read beside a one-letter word.

Tesseract may read the conjunction ending a wrapped name's line into the word before it
("поставщикамии" for "поставщиками и"), or a preposition into the word after it ("вт.ч." for
"в т.ч."). Its character boxes set that letter apart, and the page shows a blank between
them as wide as a space: the letter is a word of its own. The page decides, not the boxes:
on a photo a box may stand apart from a letter printed close, or take in two letters.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

import numpy as np
from PIL import Image

from scan_gateway.page_image import INK_LEVEL
from scan_gateway.words import Word, letter_height

# Russian words of one letter that stand before or after a longer word.
ONE_LETTER_WORDS: Final = frozenset("ивску")
# A blank this wide (in letter heights) is a space; letters of a word stand closer.
SPACE: Final = 0.4
# Words that a one-letter word starts when OCR reads no space after it, which no word of
# the language starts ("вт.ч." is "в т.ч."): the text decides, whatever the page shows.
NO_WORD_STARTS: Final = ("вт.ч",)
# A box wider than this (in letter heights) holds more than one such letter: OCR's boxes
# went astray.
WIDEST: Final = 0.8


def with_lost_spaces(words: list[Word], page: Image.Image) -> list[Word]:
    """``words`` with a one-letter word OCR read into its neighbour parted from it."""
    letter = letter_height(words)
    if letter is None:
        return words
    image = np.asarray(page)
    return [part for word in words for part in _parted(word, image, letter)]


def _parted(word: Word, image: np.ndarray, letter: float) -> list[Word]:
    text, chars = word.text, word.chars
    if len(text) < 3 or len(chars) != len(text):
        return [word]
    if text.startswith(NO_WORD_STARTS):
        return [_piece(word, 0, 1), _piece(word, 1, len(text))]
    narrow = [b - a <= WIDEST * letter for a, b in chars]
    if (
        text[-1] in ONE_LETTER_WORDS
        and text[-2].isalpha()
        and narrow[-1]
        and narrow[-2]
        and _blank(image, word, chars[-2][1], chars[-1][0], letter)
    ):
        return [_piece(word, 0, len(text) - 1), _piece(word, len(text) - 1, len(text))]
    if (
        text[0].lower() in ONE_LETTER_WORDS
        and text[1].isalpha()
        and narrow[0]
        and narrow[1]
        and _blank(image, word, chars[0][1], chars[1][0], letter)
    ):
        return [_piece(word, 0, 1), _piece(word, 1, len(text))]
    return [word]


def _blank(image: np.ndarray, word: Word, left: float, right: float, letter: float) -> bool:
    """Whether the page between ``left`` and ``right``, over the word's height, holds a run
    of columns without ink as wide as a space."""
    if right - left < SPACE * letter:
        return False
    strip = image[int(word.y0) : int(word.y1) + 1, int(left) + 1 : int(right)]
    empty = np.logical_not((strip < INK_LEVEL).any(axis=0)).tolist()
    run = longest = 0
    for column in empty:
        run = run + 1 if column else 0
        longest = max(longest, run)
    return longest >= SPACE * letter


def _piece(word: Word, start: int, end: int) -> Word:
    chars = word.chars[start:end]
    return replace(word, text=word.text[start:end], x0=chars[0][0], x1=chars[-1][1], chars=chars)
