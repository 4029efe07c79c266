"""The OCR engine interface: an image in, words with boxes and confidences out.

Engines run inside the recognition child process; they are built there from an
``EngineConfig`` (a plain picklable value), never passed in as live objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from PIL import Image

from scan_gateway.words import Word


class OcrError(Exception):
    """The engine could not recognise the image (it answered, but badly)."""


class OcrTimeout(OcrError):
    """The engine did not answer in time."""


class OcrUnavailable(OcrError):
    """The engine cannot be reached or is not installed."""


class OcrEngine(Protocol):
    def recognize(self, image: Image.Image) -> list[Word]:
        """Words of a grayscale page image, boxes in its pixels, confidences 0-100."""
        ...


@dataclass(frozen=True)
class EngineConfig:
    kind: Literal["tesseract", "http"] = "tesseract"
    tesseract_cmd: str = "tesseract"
    languages: str = "rus+eng"
    page_segmentation: int = 6
    """Tesseract ``--psm``: 6 reads the page as one block of lines, which keeps table rows
    whole; the automatic modes split a table into column blocks."""
    timeout_seconds: float = 120.0
    """One page; over it, the job ends with TIMEOUT."""
    http_url: str | None = None
    http_timeout_seconds: float = 60.0


def make_engine(config: EngineConfig) -> OcrEngine:
    if config.kind == "http":
        from scan_gateway.http_engine import HttpOcrEngine

        if not config.http_url:
            raise OcrUnavailable("OCR_HTTP_URL is not set")
        return HttpOcrEngine(
            config.http_url, timeout=config.http_timeout_seconds, languages=config.languages
        )
    from scan_gateway.tesseract import TesseractEngine

    return TesseractEngine(
        config.tesseract_cmd,
        languages=config.languages,
        page_segmentation=config.page_segmentation,
        timeout=config.timeout_seconds,
    )
