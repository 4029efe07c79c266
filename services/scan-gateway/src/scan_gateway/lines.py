"""Ruling lines of a scanned table: found by morphology, kept as rules, erased before OCR.

Tesseract reads a ruled table badly: borders become ``|`` and ``_`` glued to the numbers,
or whole rows are dropped. The borders are long straight runs of dark pixels, which an
opening with a long thin kernel keeps and text does not; their positions become the rows and
columns of the grid, and the image goes to OCR without them.
"""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from scan_gateway.words import Rule

Gray = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.integer[Any] | np.floating[Any]]

# Kernel lengths as a share of the page: longer than any glyph stroke, shorter than a border
# of the narrowest cell.
HORIZONTAL_SHARE: Final = 1 / 50
VERTICAL_SHARE: Final = 1 / 35
MIN_KERNEL: Final = 15
# Erase a little around each line: scanned borders are blurred and a few pixels thick.
ERASE_MARGIN: Final = 2


def find_rules(gray: Gray) -> tuple[list[Rule], Gray]:
    """The ruling lines of the page and the page with them erased (white)."""
    height, width = gray.shape[:2]
    binary = cv2.adaptiveThreshold(
        gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 31, 15
    )
    h_len = max(MIN_KERNEL, int(width * HORIZONTAL_SHARE))
    v_len = max(MIN_KERNEL, int(height * VERTICAL_SHARE))
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
    rules = _components(h_mask, "h", h_len) + _components(v_mask, "v", v_len)
    mask = cv2.dilate(
        cv2.bitwise_or(h_mask, v_mask),
        np.ones((2 * ERASE_MARGIN + 1, 2 * ERASE_MARGIN + 1), np.uint8),
    )
    cleaned = gray.copy()
    cleaned[mask > 0] = 255
    return rules, cleaned


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
