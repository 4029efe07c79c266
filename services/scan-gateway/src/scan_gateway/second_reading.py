"""Words OCR was unsure of, read a second time on their own.

Tesseract reads a word worse amid a table than alone: beside a column's edge it loses
confidence in words it reads right ("Возврат" at 47), misreads an IBAN's look-alikes
("8В\\90Р]СВЗ01…") that it reads right once the word stands alone, and where a wrapped cell's
short second line stands right under the first line's first word ("Оплата по счету … НДС"
over "20%") it may take the two for one tall word and read neither ("ее").

Every such word on a page is cut out, the cut-outs are stacked on a blank sheet and read in
one more call (a page of many such words fills several sheets: Tesseract refuses an image
over 32,767 pixels high):
* a doubtful word (confidence under DOUBTFUL) as tall as two lines gives way to what the
  second reading finds in its box when that is surer by GAIN;
* another doubtful word takes the second reading when it is surer by GAIN, or keeps its
  letters with the surer confidence when both readings agree. A short word, and a word of
  letters the second reading spells in the other alphabet, keep their letters: alone they
  lack the phrase that tells script and case ("ИП" alone reads "un", "Оплата" "Onnata").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

import numpy as np
from PIL import Image

from document_extraction.lookalikes import is_cyrillic_text
from scan_gateway.ocr import OcrEngine
from scan_gateway.words import Word, letter_height

# Taller than this many typical words' heights, a word may hold two lines of text.
TALL: Final = 1.7
# Below this confidence a word is read again on its own.
DOUBTFUL: Final = 70.0
# How much surer the second reading must be to replace the first's letters.
GAIN: Final = 10.0
# Words this short keep the first reading's letters.
SHORT: Final = 3
# Space kept above and below each cut-out and between the cut-outs, in word heights.
MARGIN: Final = 1.0
# The tallest sheet of cut-outs read in one call, in pixels (well under Tesseract's limit).
SHEET_HEIGHT: Final = 16_000


@dataclass(frozen=True)
class _Cut:
    word: Word
    tall: bool
    left: int
    top: int
    right: int
    bottom: int
    dx: int = 0
    dy: int = 0
    """From the sheet the cut-outs are read on back to the page."""

    def holds(self, word: Word) -> bool:
        """A word of the page this cut-out's second reading replaces: the word, and for a
        tall one the scraps inside its box."""
        if not self.tall:
            return word is self.word
        own = self.word
        return _centre_in(word, own.x0, own.y0, own.x1, own.y1)

    def found(self, word: Word) -> bool:
        """A word of the second reading (in page pixels) that belongs to this cut-out."""
        if self.tall:
            return _centre_in(word, self.left, self.top, self.right, self.bottom)
        own = self.word
        return _centre_in(word, own.x0, own.y0, own.x1, own.y1)


def _centre_in(word: Word, left: float, top: float, right: float, bottom: float) -> bool:
    return left <= word.cx <= right and top <= word.cy <= bottom


def read_again(
    words: list[Word], page: Image.Image, engine: OcrEngine, sheet_height: int = SHEET_HEIGHT
) -> list[Word]:
    """``words`` with the tall and the doubtful ones read a second time on their own."""
    image = np.asarray(page)
    typical = letter_height(words)
    if typical is None:
        return words
    margin = max(1, round(typical * MARGIN))
    doubtful = [w for w in words if w.confidence is not None and w.confidence < DOUBTFUL]
    cuts = [_cut(image, w, True, margin) for w in doubtful if w.height > TALL * typical]
    doubtful = [w for w in doubtful if len(w.text) > 1]
    cuts += [
        _cut(image, w, False, margin) for w in doubtful if not any(cut.holds(w) for cut in cuts)
    ]
    if not cuts:
        return words
    # Which cut-out each word of the page goes with, if any: the only pass over them all.
    owner = [next((k for k, cut in enumerate(cuts) if cut.holds(w)), None) for w in words]
    held = [[w for w, k in zip(words, owner, strict=True) if k == c] for c in range(len(cuts))]
    kept = [w for w, k in zip(words, owner, strict=True) if k is None]
    again: list[list[Word]] = [[] for _ in cuts]
    for batch in _batches(cuts, margin, sheet_height):
        sheet, placed = _stacked(
            image, [cuts[k] for k in batch], [held[k] for k in batch], words, margin
        )
        sheet.info["dpi"] = page.info.get("dpi", (300, 300))
        read = engine.recognize(sheet)
        for index, cut in zip(batch, placed, strict=True):
            cuts[index] = cut
            again[index] = [
                moved
                for w in read
                if cut.found(moved := _moved(w, cut))
                and not any(_covered(moved, other) for other in kept)
            ]
    # Each cut-out's words stand where the first word it replaces stood: reading order.
    out: list[Word] = []
    done: set[int] = set()
    for word, k in zip(words, owner, strict=True):
        if k is None:
            out.append(word)
        elif k not in done:
            done.add(k)
            out += _better(cuts[k], held[k], again[k])
    return out


def _batches(cuts: list[_Cut], margin: int, sheet_height: int) -> list[list[int]]:
    """The cut-outs in page order, parted into runs that each stack under ``sheet_height``."""
    batches: list[list[int]] = [[]]
    height = margin
    for k, cut in enumerate(cuts):
        step = cut.bottom - cut.top + margin
        if batches[-1] and height + step > sheet_height:
            batches.append([])
            height = margin
        batches[-1].append(k)
        height += step
    return batches


def _better(cut: _Cut, first: list[Word], again: list[Word]) -> list[Word]:
    if not again:
        # Nothing read the second time: the first reading stays, poor as it is.
        return first
    word = cut.word
    before = word.confidence or 0.0
    after = min(w.confidence or 0.0 for w in again)
    if cut.tall:
        return again if after >= before + GAIN else first
    text = "".join(w.text for w in again)
    if text.casefold() == word.text.casefold():
        # The same letters (perhaps parted where the print has a thin space): surer now.
        return [replace(word, confidence=max(before, after))]
    if len(word.text) > SHORT and after >= before + GAIN and not _script_flipped(word.text, text):
        return again
    return first


def _script_flipped(first: str, second: str) -> bool:
    """A word of letters alone read in the other alphabet: alone, Tesseract reads a Russian
    word in English look-alikes ("Onnata" for "Оплата"), which no check would catch. Codes
    with digits (an IBAN, a BIC) may change alphabet: their check digits and shape judge."""
    if any(c.isdigit() for c in first + second):
        return False
    return is_cyrillic_text([first]) != is_cyrillic_text([second])


def _covered(word: Word, other: Word) -> bool:
    """Most of ``word`` lies on ``other``: a piece of a neighbour the cut-out took in."""
    width = min(word.x1, other.x1) - max(word.x0, other.x0)
    height = min(word.y1, other.y1) - max(word.y0, other.y0)
    area = (word.x1 - word.x0) * (word.y1 - word.y0)
    return width > 0 and height > 0 and width * height > area / 2


def _cut(image: np.ndarray, word: Word, tall: bool, margin: int) -> _Cut:
    """The word's box with room above and below; sideways the next word may be close."""
    height, width = image.shape[:2]
    side = max(1, margin // 4)
    return _Cut(
        word,
        tall,
        max(0, int(word.x0) - side),
        max(0, int(word.y0) - margin),
        min(width, int(word.x1) + 1 + side),
        min(height, int(word.y1) + 1 + margin),
    )


def _stacked(
    image: np.ndarray,
    cuts: list[_Cut],
    held: list[list[Word]],
    words: list[Word],
    margin: int,
) -> tuple[Image.Image, list[_Cut]]:
    """The cut-outs one under another on a blank sheet, where the neighbouring words that
    reach into a cut-out (any but those it holds) are blanked: read again, their pieces would
    be words of their own."""
    width = max(c.right - c.left for c in cuts) + 2 * margin
    height = sum(c.bottom - c.top + margin for c in cuts) + margin
    sheet = np.full((height, width), 255, dtype=np.uint8)
    placed = []
    top = margin
    for cut, own in zip(cuts, held, strict=True):
        rows, cols = cut.bottom - cut.top, cut.right - cut.left
        piece = image[cut.top : cut.bottom, cut.left : cut.right].copy()
        for word in words:
            reaches_in = (
                word.x1 >= cut.left
                and word.x0 < cut.right
                and word.y1 >= cut.top
                and word.y0 < cut.bottom
            )
            if reaches_in and not any(word is mine for mine in own):
                piece[
                    max(0, int(word.y0) - cut.top) : int(word.y1) + 1 - cut.top,
                    max(0, int(word.x0) - cut.left) : int(word.x1) + 1 - cut.left,
                ] = 255
        sheet[top : top + rows, margin : margin + cols] = piece
        placed.append(replace(cut, dx=cut.left - margin, dy=cut.top - top))
        top += rows + margin
    return Image.fromarray(sheet), placed


def _moved(word: Word, cut: _Cut) -> Word:
    dx, dy = cut.dx, cut.dy
    return replace(
        word,
        x0=word.x0 + dx,
        x1=word.x1 + dx,
        y0=word.y0 + dy,
        y1=word.y1 + dy,
        chars=tuple((a + dx, b + dx) for a, b in word.chars),
    )
