"""Ruling lines of a scanned table: found by morphology, kept as rules, erased before OCR.

Tesseract reads a ruled table badly: borders become ``|`` and ``_`` glued to the numbers,
or whole rows are dropped. The borders are long straight runs of dark pixels, which an
opening with a long thin kernel keeps and text does not; their positions become the rows and
columns of the grid, and the image goes to OCR without them.

Not every long dark run is a border. The flat bottoms of a row of bold letters join into one
(ink lies right above it, not paper); the edge of a sheet against a darker desk, or the
border of a crop, is a step from dark to light (paper on one side only). A rule is kept only
where paper lies on both sides of it.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import cv2
import numpy as np
import numpy.typing as npt

from scan_gateway.page_image import text_height
from scan_gateway.words import Rule

Gray = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.integer[Any] | np.floating[Any]]

# Kernel lengths as a share of the page: longer than any glyph stroke, shorter than a border
# of the narrowest cell.
HORIZONTAL_SHARE: Final = 1 / 50
VERTICAL_SHARE: Final = 1 / 35
MIN_KERNEL: Final = 15
# A vertical rule is at least this many letter heights long.
VERTICAL_LETTERS: Final = 2.5
# Erase a little around each line: scanned borders are blurred and a few pixels thick.
ERASE_MARGIN: Final = 2
# Pixels beside a line where paper is looked for.
PROBE: Final = 2
# A side with more ink than this along the line is text, not the paper around a border.
MAX_SIDE_INK: Final = 0.35
# Paper on each side is at least this much lighter than the line (share of the line's
# contrast with the lighter side): less, and the "line" is the dark side of an edge.
MIN_SIDE_CONTRAST: Final = 0.5
# Pieces of one drawn line lie within this many pixels of each other.
SAME_LINE: Final = 4.0
# A line touching the image's edge (pixels) is the edge of the sheet or of a crop.
EDGE: Final = 3


def find_rules(gray: Gray, letter: float | None = None) -> tuple[list[Rule], Gray]:
    """The ruling lines of the page and the page with them erased (white). ``letter``: the
    height of the page's letters in pixels, when the caller has measured it already."""
    height, width = gray.shape[:2]
    binary = cv2.adaptiveThreshold(
        gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 31, 15
    )
    h_len = max(MIN_KERNEL, int(width * HORIZONTAL_SHARE))
    v_len = max(MIN_KERNEL, int(height * VERTICAL_SHARE))
    if letter is None:
        letter = text_height(gray)
    if letter is not None:
        # The border between two cells of one header row is about three letters high, often
        # shorter than a share of the page: a kernel of a few letters finds it, and is still
        # longer than any letter's stroke.
        v_len = max(MIN_KERNEL, min(v_len, int(VERTICAL_LETTERS * letter)))
    # Close one-pixel breaks first: noise and JPEG artefacts cut thin borders.
    h_mask = cv2.morphologyEx(
        cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((1, 3), np.uint8)),
        cv2.MORPH_OPEN,
        np.ones((1, h_len), np.uint8),
    )
    v_mask = cv2.morphologyEx(
        cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((3, 1), np.uint8)),
        cv2.MORPH_OPEN,
        np.ones((v_len, 1), np.uint8),
    )
    h_mask = _between_paper(np.asarray(h_mask, np.uint8), np.asarray(binary, np.uint8), gray, "h")
    v_mask = _between_paper(np.asarray(v_mask, np.uint8), np.asarray(binary, np.uint8), gray, "v")
    rules = _aligned(_components(h_mask, "h", h_len)) + _aligned(_components(v_mask, "v", v_len))
    mask = cv2.dilate(
        cv2.bitwise_or(h_mask, v_mask),
        np.ones((2 * ERASE_MARGIN + 1, 2 * ERASE_MARGIN + 1), np.uint8),
    )
    cleaned = gray.copy()
    cleaned[mask > 0] = 255
    return rules, cleaned


def _between_paper(mask: Gray, binary: Gray, gray: Gray, orientation: Literal["h", "v"]) -> Gray:
    """``mask`` without the runs that are not rules: ink right beside them, no paper on one
    side, or touching the image's edge."""
    if orientation == "v":
        return np.ascontiguousarray(_between_paper(mask.T, binary.T, gray.T, "h").T)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count < 2:
        return mask
    height = mask.shape[0]
    inside = mask > 0
    ys, xs = np.nonzero(inside)
    line = np.asarray(labels, dtype=np.int32)[ys, xs]
    # Per column of each run, the pixels just outside its top and its bottom.
    top = inside[np.maximum(ys - 1, 0), xs]
    bottom = inside[np.minimum(ys + 1, height - 1), xs]
    above_y = np.clip(ys[~top] - PROBE, 0, height - 1)
    below_y = np.clip(ys[~bottom] + PROBE, 0, height - 1)
    ink_above = _mean_by(line[~top], binary[above_y, xs[~top]] > 0, count)
    ink_below = _mean_by(line[~bottom], binary[below_y, xs[~bottom]] > 0, count)
    paper_above = _mean_by(line[~top], gray[above_y, xs[~top]], count)
    paper_below = _mean_by(line[~bottom], gray[below_y, xs[~bottom]], count)
    darkness = _mean_by(line, gray[ys, xs], count)
    lighter = np.maximum(paper_above, paper_below)
    darker = np.minimum(paper_above, paper_below)
    keep = (np.maximum(ink_above, ink_below) <= MAX_SIDE_INK) & (
        darker - darkness >= MIN_SIDE_CONTRAST * (lighter - darkness)
    )
    x, y, w, h = (stats[:, k] for k in range(4))
    keep &= (x >= EDGE) & (y >= EDGE) & (x + w <= mask.shape[1] - EDGE) & (y + h <= height - EDGE)
    keep[0] = False
    return np.where(keep[labels], np.uint8(255), np.uint8(0)).astype(np.uint8)


def _mean_by(
    labels: npt.NDArray[np.int32], values: npt.NDArray[Any], count: int
) -> npt.NDArray[np.float64]:
    sums = np.bincount(labels, weights=values.astype(np.float64), minlength=count)
    sizes = np.bincount(labels, minlength=count)
    return np.asarray(sums / np.maximum(sizes, 1), dtype=np.float64)


def _components(mask: Mask, orientation: str, minimum: int) -> list[Rule]:
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    rules: list[Rule] = []
    for index in range(1, count):
        x, y, w, h = (int(v) for v in stats[index][:4])
        if orientation == "h" and w >= minimum:
            rules.append(Rule("h", y + h / 2, float(x), float(x + w)))
        elif orientation == "v" and h >= minimum:
            rules.append(Rule("v", x + w / 2, float(y), float(y + h)))
    return rules


def _aligned(rules: list[Rule]) -> list[Rule]:
    """Pieces of one drawn line (cut where text touches it, or between two tables) at one
    position, the mean of theirs weighted by length: a half-pixel apart, they would sort
    as different lines."""
    out: list[Rule] = []
    group: list[Rule] = []
    for rule in [*sorted(rules, key=lambda r: r.position), None]:
        if group and (rule is None or rule.position - group[-1].position > SAME_LINE):
            weights = [max(r.end - r.start, 1.0) for r in group]
            position = sum(r.position * w for r, w in zip(group, weights, strict=True)) / sum(
                weights
            )
            out += [Rule(r.orientation, round(position, 1), r.start, r.end) for r in group]
            group = []
        if rule is not None:
            group.append(rule)
    return out
