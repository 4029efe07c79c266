"""Decoding scans safely and preparing a page image for OCR."""

from __future__ import annotations

import io
import warnings

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from recognition_contract import ErrorCode
from recognition_worker import RecognitionError
from scan_gateway.deskew import straighten
from scan_gateway.lines import find_rules
from scan_gateway.ocr import OcrEngine
from scan_gateway.ocr_repair import repair_words
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


def ocr_page(image: Image.Image, page: int, engine: OcrEngine) -> PageWords:
    """Straighten, find and erase the ruling lines, read the words."""
    dpi = image.info.get("dpi", (DEFAULT_DPI, DEFAULT_DPI))
    gray = np.asarray(image, dtype=np.uint8)
    upright, angle = straighten(gray)
    rules, cleaned = find_rules(upright)
    prepared = Image.fromarray(cleaned)
    prepared.info["dpi"] = dpi
    words = repair_words(engine.recognize(prepared))
    height, width = cleaned.shape[:2]
    return PageWords(
        page=page,
        width=float(width),
        height=float(height),
        words=words,
        rules=rules,
        source="ocr",
        angle=angle,
    )
