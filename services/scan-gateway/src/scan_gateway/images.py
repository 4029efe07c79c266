"""Decoding scans safely and preparing a page image for OCR."""

from __future__ import annotations

import io
import warnings
from typing import Any

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from recognition_contract import ErrorCode
from recognition_worker import RecognitionError
from scan_gateway.deskew import straighten
from scan_gateway.lines import find_rules
from scan_gateway.lost_spaces import with_lost_spaces
from scan_gateway.ocr import OcrEngine
from scan_gateway.ocr_repair import repair_words
from scan_gateway.page_image import (
    cut_out_page,
    flatten_illumination,
    page_area,
    text_height,
    to_ocr_resolution,
    without_grain,
)
from scan_gateway.page_views import view_image
from scan_gateway.second_reading import read_again
from scan_gateway.unread_dashes import with_unread_dashes
from scan_gateway.words import PageWords

# Resolution assumed for an image that does not state its own.
DEFAULT_DPI = 200


def open_image(source: bytes, max_pixels: int) -> Image.Image:
    """A grayscale image, upright by its EXIF orientation; the pixel count is checked from
    the header, before anything is decoded."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(source))
            width, height = image.size
            if width * height > max_pixels:
                raise RecognitionError(
                    ErrorCode.UNREADABLE,
                    f"the image is {width}x{height} pixels, more than the {max_pixels} allowed",
                )
            image.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise RecognitionError(
            ErrorCode.UNREADABLE, f"the image declares more than {max_pixels} pixels"
        ) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise RecognitionError(
            ErrorCode.UNREADABLE, f"the image cannot be decoded: {exc}"
        ) from None
    dpi = image.info.get("dpi", (DEFAULT_DPI, DEFAULT_DPI))
    upright = ImageOps.exif_transpose(image).convert("L")
    upright.info["dpi"] = dpi
    return upright


def scanned_page(page: Any, number: int, max_pixels: int) -> Image.Image | None:
    """The one upright image that covers the whole page, decoded as it is stored; ``None``
    when the page is anything else (several objects, a turned or clipped image)."""
    import pypdfium2.raw as pdfium_c

    if page.get_rotation() != 0:
        return None
    objects = list(page.get_objects(max_depth=1))
    if len(objects) != 1 or objects[0].type != pdfium_c.FPDF_PAGEOBJ_IMAGE:
        return None
    image = objects[0]
    a, b, c, d, _, _ = image.get_matrix().get()
    width, height = page.get_size()
    left, bottom, right, top = image.get_bounds()
    upright = b == 0 and c == 0 and a > 0 and d > 0
    covers = (right - left) * (top - bottom) >= 0.9 * width * height
    if not (upright and covers):
        return None
    columns, rows = image.get_px_size()
    if columns * rows > max_pixels:
        raise RecognitionError(
            ErrorCode.UNREADABLE,
            f"page {number} holds a {columns}x{rows} image, more than the "
            f"{max_pixels} pixels allowed",
        )
    decoded: Image.Image = image.get_bitmap(render=False).to_pil().convert("L")
    dpi = round(decoded.width / (a / 72), 1)
    decoded.info["dpi"] = (dpi, dpi)
    return decoded


def ocr_page(image: Image.Image, page: int, engine: OcrEngine) -> PageWords:
    """Cut the sheet out of a photo, even out its light, straighten it, bring its text to
    the size OCR reads best, find and erase the ruling lines, read the words."""
    dpi = float(image.info.get("dpi", (DEFAULT_DPI, DEFAULT_DPI))[0] or DEFAULT_DPI)
    gray = np.asarray(image, dtype=np.uint8)
    corners = page_area(gray)
    if corners is not None:
        gray = cut_out_page(gray, corners)
    gray = without_grain(flatten_illumination(gray))
    upright, angle = straighten(gray)
    # Letters are measured once: enlarging scales them, the rules' kernel depends on them.
    letter = text_height(upright)
    resized, enlarged_dpi = to_ocr_resolution(upright, dpi, letter)
    scale = enlarged_dpi / dpi
    rules, cleaned = find_rules(resized, letter * scale if letter is not None else None)
    dpi = enlarged_dpi
    prepared = Image.fromarray(cleaned)
    prepared.info["dpi"] = (dpi, dpi)
    words = repair_words(
        with_lost_spaces(read_again(engine.recognize(prepared), prepared, engine), prepared)
    )
    # After the repair: a dash whose box OCR drew as tall as the line went with the strokes.
    words = with_unread_dashes(words, prepared)
    height, width = cleaned.shape[:2]
    return PageWords(
        page=page,
        width=float(width),
        height=float(height),
        words=words,
        rules=rules,
        source="ocr",
        angle=angle,
        # Straightened and enlarged as read, ruling lines still in: the words' frame.
        view=view_image(resized),
    )
