"""What a page is made of before it becomes a grid: words with boxes, and ruling lines.

Coordinates are in the page's own units (points for a PDF text layer, pixels for an image),
origin top-left; ``PageWords.width`` and ``height`` turn them into fractions of the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Literal


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    confidence: float | None = None
    """0-100 from OCR; ``None`` for text read from a PDF's text layer (exact)."""
    run: int | None = None
    """Text layer: the run of characters the word was set in. Words joined by a space
    character are one run, i.e. one cell's text; two cells are two runs however close.
    ``None`` for OCR words, where only the gaps tell."""
    chars: tuple[tuple[float, float], ...] = ()
    """OCR: each character's left and right edge, when the engine gives them (one per
    character of ``text``)."""

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    @property
    def height(self) -> float:
        return self.y1 - self.y0


def letter_height(words: Sequence[Word]) -> float | None:
    """The typical height of a page's words of two characters or more (single marks, dashes
    and specks have heights of their own); None on a page without any."""
    heights = [w.height for w in words if len(w.text) > 1]
    return median(heights) if heights else None


@dataclass(frozen=True, slots=True)
class Rule:
    """A ruling line: horizontal at ``position`` = y from ``start`` to ``end`` (x), or
    vertical at x from ``start`` to ``end`` (y)."""

    orientation: Literal["h", "v"]
    position: float
    start: float
    end: float


@dataclass
class PageWords:
    page: int
    width: float
    height: float
    words: list[Word]
    rules: list[Rule] = field(default_factory=list)
    source: Literal["text", "ocr"] = "text"
    angle: float = 0.0
    """Degrees the scan was turned by to straighten it (OCR pages)."""
    view: bytes | None = field(default=None, repr=False)
    """The page as the analyst sees it (``page_views``), in the frame of ``words``."""
