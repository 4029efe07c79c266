"""Dashes OCR left unread between two words of a line.

Tesseract often reads no word for a hyphen standing alone between spaces, or reads it in a
box as tall as the line, which is dropped as a piece of a ruling line: the period
"01.04.2024 - 30.04.2024" comes back as two dates side by side. The page still shows it: a
short flat bar of ink, alone in the gap between the two words, at the height of the middle
of their letters. Such a bar becomes a "-" word of its own.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Final

import numpy as np
from PIL import Image

from scan_gateway.page_image import INK_LEVEL
from scan_gateway.words import Word, letter_height

# Gaps narrower than this many letter heights have no room for " - ".
ROOM: Final = 0.6
# A dash's bar, in letter heights: at most this thick, and this long.
THICKEST: Final = 0.25
SHORTEST: Final = 0.25
LONGEST: Final = 1.5
# Where a dash's middle stands between the top and the bottom of the words beside it.
MIDDLE: Final = (0.35, 0.8)


def with_unread_dashes(words: list[Word], page: Image.Image) -> list[Word]:
    """``words`` with a "-" put between two neighbours on a line wherever the gap between
    them holds a dash OCR did not read."""
    letter = letter_height(words)
    if len(words) < 2 or letter is None:
        return words
    image = np.asarray(page)
    out = [words[0]]
    for before, after in itertools.pairwise(words):
        dash = _dash_between(image, before, after, letter)
        if dash is not None:
            out.append(dash)
        out.append(after)
    return out


def _dash_between(image: np.ndarray, before: Word, after: Word, letter: float) -> Word | None:
    top, bottom = min(before.y0, after.y0), max(before.y1, after.y1)
    overlap = min(before.y1, after.y1) - max(before.y0, after.y0)
    low = min(before.height, after.height)
    if overlap < low / 2 or after.x0 - before.x1 < ROOM * letter:
        return None
    left, right = int(before.x1) + 1, int(after.x0)
    gap = image[int(top) : int(bottom) + 1, left:right] < INK_LEVEL
    if not gap.any():
        return None
    rows = np.flatnonzero(gap.any(axis=1))
    cols = np.flatnonzero(gap.any(axis=0))
    height = rows[-1] - rows[0] + 1
    width = cols[-1] - cols[0] + 1
    middle = (rows[0] + rows[-1]) / 2 / max(1.0, bottom - top)
    bar = (
        height <= THICKEST * letter
        and SHORTEST * letter <= width <= LONGEST * letter
        and MIDDLE[0] <= middle <= MIDDLE[1]
        # Blank columns on both sides: the bar is no piece of a letter of either word.
        and cols[0] > 0
        and cols[-1] < gap.shape[1] - 1
    )
    if not bar:
        return None
    sure = [w.confidence for w in (before, after) if w.confidence is not None]
    return replace(
        before,
        text="-",
        x0=float(left + cols[0]),
        x1=float(left + cols[-1] + 1),
        y0=float(int(top) + rows[0]),
        y1=float(int(top) + rows[-1] + 1),
        confidence=min(sure) if sure else None,
        chars=(),
    )
