"""Straightening a scan: the angle at which its text rows are most sharply horizontal.

Rows of text (and ruling lines) give the projection of dark pixels onto the vertical axis
sharp peaks and empty valleys when the page is straight; turned a little, both smear. The
angle with the sharpest profile is searched coarsely, then finely around the best.
"""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

Gray = npt.NDArray[np.uint8]
Image = npt.NDArray[np.integer[Any] | np.floating[Any]]

MAX_ANGLE: Final = 5.0
COARSE_STEP: Final = 0.25
FINE_STEP: Final = 0.05
# The search runs on a copy this wide: the angle does not need every pixel.
SEARCH_WIDTH: Final = 1200


def _rotate(image: Image, angle: float, fill: int) -> Image:
    height, width = image.shape[:2]
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    rotated: Image = cv2.warpAffine(
        image,
        matrix,
        (width, height),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=fill,
    )
    return rotated


def _sharpness(binary: Image, angle: float) -> float:
    profile = _rotate(binary, angle, 0).sum(axis=1, dtype=np.float64)
    return float(np.square(np.diff(profile)).sum())


def estimate_angle(gray: Gray) -> float:
    """Degrees (counter-clockwise) to turn the image by to make its rows horizontal."""
    height, width = gray.shape[:2]
    scale = min(1.0, SEARCH_WIDTH / max(width, 1))
    small = cv2.resize(gray, (max(1, int(width * scale)), max(1, int(height * scale))))
    _, binary = cv2.threshold(small, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    if not binary.any():
        return 0.0
    angles = np.arange(-MAX_ANGLE, MAX_ANGLE + COARSE_STEP / 2, COARSE_STEP)
    best = max(angles, key=lambda a: _sharpness(binary, float(a)))
    fine = np.arange(best - COARSE_STEP, best + COARSE_STEP + FINE_STEP / 2, FINE_STEP)
    refined = max(fine, key=lambda a: _sharpness(binary, float(a)))
    return round(float(refined), 2)


def straighten(gray: Gray) -> tuple[Gray, float]:
    """The image turned upright (white where the turn uncovers the corners), and the angle."""
    angle = estimate_angle(gray)
    if abs(angle) < FINE_STEP / 2:
        return gray, 0.0
    return np.asarray(_rotate(gray, angle, 255), dtype=np.uint8), angle
