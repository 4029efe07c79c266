"""Cleaning a page image before OCR: the paper found and cut out of a photo, uneven light
evened out, the text brought to the size Tesseract reads best.

A phone photo shows the sheet as a bright quadrilateral on a darker desk, turned and seen
slightly from the side, lit more on one side than the other. Left as it is, the sheet's
edges look like ruling lines, the dark side defeats a global threshold and the small text of
a far-away page is read badly. A flatbed scan has none of this, and each step leaves it as it
is when it finds nothing to do.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

Gray = npt.NDArray[np.uint8]
Points = npt.NDArray[np.float32]

# Median height (pixels) of the letters Tesseract reads best; smaller text is enlarged to it.
OCR_TEXT_HEIGHT: Final = 20
# Enlarging by less than this gains nothing worth the time; by more, nothing but blur.
MIN_ENLARGE: Final = 1.15
MAX_ENLARGE: Final = 3.0
# Pixels of an enlarged page at most: about an A4 page at 350 dpi.
MAX_OCR_PIXELS: Final = 12_000_000
# The paper is searched on a copy this large: its outline needs no fine detail.
OUTLINE_SIZE: Final = 900
# Shares of the image: a smaller bright region is not the sheet, a larger one is a scan
# with no desk around it.
MIN_PAPER_AREA: Final = 0.35
MAX_PAPER_AREA: Final = 0.97
# The desk must be this much darker than the paper (grey levels) to be told apart.
MIN_DESK_CONTRAST: Final = 30
# Where between the desk's grey and the paper's brightest the sheet's edge is drawn: low,
# because the far side of the sheet may lie in shadow.
PAPER_SIDE: Final = 0.3
# How far the outline is allowed to stray from a quadrilateral (a share of its perimeter).
QUAD_TOLERANCE: Final = 0.02
# The cut goes this share of the page inside the paper's edge, so that no desk is left.
PAPER_INSET: Final = 0.004


def page_area(gray: Gray) -> Points | None:
    """The four corners of the sheet (top-left, top-right, bottom-right, bottom-left, in
    pixels) when the image shows a sheet lying on a darker surface; ``None`` for a scan."""
    height, width = gray.shape[:2]
    scale = min(1.0, OUTLINE_SIZE / max(height, width))
    small = cv2.resize(
        gray, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA
    )
    # Closing fills text and rules with the paper around them: left is the sheet's light.
    size = max(3, round(min(small.shape) / 60)) | 1
    light = cv2.morphologyEx(
        cv2.GaussianBlur(small, (5, 5), 0),
        cv2.MORPH_CLOSE,
        cv2.getStructuringElement(cv2.MORPH_RECT, (size, size)),
    )
    desk = float(np.median(np.concatenate([light[0], light[-1], light[:, 0], light[:, -1]])))
    paper = float(np.percentile(light, 90))
    if paper - desk < MIN_DESK_CONTRAST:
        return None
    # Nearer the desk than the paper's brightest: the far, shadowed side is still paper.
    bright = (light > desk + PAPER_SIDE * (paper - desk)).astype(np.uint8)
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(outline)
    share = cv2.contourArea(hull) / (small.shape[0] * small.shape[1])
    if not MIN_PAPER_AREA <= share <= MAX_PAPER_AREA:
        return None
    quad = cv2.approxPolyDP(hull, QUAD_TOLERANCE * cv2.arcLength(hull, True), True)
    if len(quad) != 4:
        return None
    corners = _ordered(quad.reshape(4, 2).astype(np.float32))
    fitted = _fitted_corners(outline.reshape(-1, 2).astype(np.float32), corners)
    return np.asarray(fitted / scale, dtype=np.float32)


def _fitted_corners(outline: Points, corners: Points) -> Points:
    """Corners where straight lines fitted to the four sides meet: the outline's own
    corners are rounded off by the blur, a side's middle is not."""
    lines = []
    for index in range(4):
        start, end = corners[index], corners[(index + 1) % 4]
        side = end - start
        length = float(np.linalg.norm(side))
        along = (outline - start) @ side / max(length**2, 1e-6)
        across = np.abs(_cross(side, outline - start)) / max(length, 1e-6)
        # The middle of the side, off the rounded corners and clear of other sides.
        near = outline[(along > 0.1) & (along < 0.9) & (across < 0.02 * length + 2)]
        if len(near) < 10:
            return corners
        vx, vy, x0, y0 = cv2.fitLine(near, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float32), np.array([vx, vy], np.float32)))
    fitted = []
    for index in range(4):
        (p, u), (q, v) = lines[index - 1], lines[index]
        denominator = float(_cross(u, v))
        if abs(denominator) < 1e-3:
            return corners
        t = float(_cross(q - p, v)) / denominator
        fitted.append(p + t * u)
    return np.array(fitted, dtype=np.float32)


def _ordered(corners: Points) -> Points:
    """Top-left, top-right, bottom-right, bottom-left."""
    sums = corners.sum(axis=1)
    diffs = np.diff(corners, axis=1).ravel()
    return np.array(
        [
            corners[np.argmin(sums)],
            corners[np.argmin(diffs)],
            corners[np.argmax(sums)],
            corners[np.argmax(diffs)],
        ],
        dtype=np.float32,
    )


def _cross(a: Points, b: Points) -> Points:
    """The z component of the cross product of 2-D vectors (or rows of them)."""
    return np.asarray(a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0], dtype=np.float32)


def cut_out_page(gray: Gray, corners: Points) -> Gray:
    """The sheet inside ``corners`` warped to an upright rectangle of about the same size:
    the turn and the perspective undone, the desk left out."""
    top = np.linalg.norm(corners[1] - corners[0])
    bottom = np.linalg.norm(corners[2] - corners[3])
    left = np.linalg.norm(corners[3] - corners[0])
    right = np.linalg.norm(corners[2] - corners[1])
    width, height = round((top + bottom) / 2), round((left + right) / 2)
    inset_x, inset_y = PAPER_INSET * width, PAPER_INSET * height
    target = np.array(
        [
            [-inset_x, -inset_y],
            [width + inset_x, -inset_y],
            [width + inset_x, height + inset_y],
            [-inset_x, height + inset_y],
        ],
        dtype=np.float32,
    )
    matrix = cv2.getPerspectiveTransform(corners, target)
    warped = cv2.warpPerspective(
        gray, matrix, (width, height), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(warped, dtype=np.uint8)


def flatten_illumination(gray: Gray) -> Gray:
    """The page divided by its own background light: paper white everywhere, ink as dark
    as it was against the paper around it, whatever the shadow or the fall-off of light."""
    height, width = gray.shape[:2]
    scale = min(1.0, 600 / max(height, width))
    small = cv2.resize(
        gray, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA
    )
    # Wider than a character, so a dilation (the brightest pixel around) sees paper.
    size = max(3, round(max(small.shape) / 60)) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (size, size))
    background = cv2.morphologyEx(small, cv2.MORPH_CLOSE, kernel)
    background = cv2.GaussianBlur(background, (size, size), 0)
    background = cv2.resize(background, (width, height), interpolation=cv2.INTER_LINEAR)
    flat = gray.astype(np.float32) / np.maximum(background.astype(np.float32), 1.0)
    return np.clip(flat * 255.0, 0, 255).astype(np.uint8)


# On a page of flattened light: darker than this is ink; a page with less of it than
# ``SPARSE_INK`` (a share of its pixels) holds a line or two; lighter than ``GRAIN_LEVEL`` of
# the paper's median is the paper's grain.
INK_LEVEL: Final = 128
SPARSE_INK: Final = 0.005
GRAIN_LEVEL: Final = 0.85


def without_grain(gray: Gray) -> Gray:
    """A page with next to no ink (the last page, with the signatures) with its paper's grain
    made white: OCR binarises between the page's darkest and lightest, and with no ink to
    speak of the threshold falls into the grain, which then reads as thousands of specks
    (minutes of OCR for nothing). A page of text keeps its grain below OCR's threshold."""
    if (gray < INK_LEVEL).mean() >= SPARSE_INK:
        return gray
    paper = float(np.median(gray))
    return np.where(gray >= GRAIN_LEVEL * paper, np.uint8(255), gray).astype(np.uint8)


def text_height(gray: Gray) -> float | None:
    """Median height in pixels of the letters on the page (connected components of
    letter size), ``None`` when there are too few to tell."""
    _, binary = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    count, _, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    if count < 2:
        return None
    heights = stats[1:, cv2.CC_STAT_HEIGHT]
    widths = stats[1:, cv2.CC_STAT_WIDTH]
    areas = stats[1:, cv2.CC_STAT_AREA]
    page = max(gray.shape[:2])
    letters = (heights >= 4) & (heights <= page / 20) & (widths <= heights * 3) & (areas >= 6)
    if letters.sum() < 20:
        return None
    return float(np.median(heights[letters]))


def to_ocr_resolution(gray: Gray, dpi: float, height: float | None = None) -> tuple[Gray, float]:
    """The page enlarged so that its letters are about ``OCR_TEXT_HEIGHT`` pixels high, and
    the resolution that makes them; as it was when they are that high already. The letters
    are measured (``height``, when the caller has), not the stated resolution: a photo's is
    meaningless."""
    if height is None:
        height = text_height(gray)
    if height is None:
        return gray, dpi
    rows, columns = gray.shape[:2]
    # No larger than OCR reads in its time limit: a page of tiny text stays a little small.
    factor = min(MAX_ENLARGE, OCR_TEXT_HEIGHT / height, (MAX_OCR_PIXELS / (rows * columns)) ** 0.5)
    if factor < MIN_ENLARGE:
        return gray, dpi
    enlarged = cv2.resize(
        gray, (round(columns * factor), round(rows * factor)), interpolation=cv2.INTER_CUBIC
    )
    return np.asarray(enlarged, dtype=np.uint8), dpi * factor
