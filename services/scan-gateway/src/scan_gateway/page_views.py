"""Each page as the analyst sees it beside the data: the image the words were read from (or the
rendered PDF page), small enough to send to a browser, in the same frame as the words' boxes
so a locator's box (fractions of the page) lands on what it points at."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from scan_gateway.words import PageWords

PAGES_NAME = "pages.json"
PAGES_FORMAT = 1
# Wide enough to read an amount at a screen's width, small enough to open at once.
VIEW_WIDTH = 1400
# A text-layer page is rendered at this resolution only to be looked at.
VIEW_DPI = 144
VIEW_QUALITY = 80


def view_image(page: Image.Image | np.ndarray[Any, Any]) -> bytes:
    """A grayscale JPEG of the page, no wider than ``VIEW_WIDTH`` (never enlarged)."""
    image = Image.fromarray(page) if isinstance(page, np.ndarray) else page
    image = image.convert("L")
    if image.width > VIEW_WIDTH:
        height = max(1, round(image.height * VIEW_WIDTH / image.width))
        image = image.resize((VIEW_WIDTH, height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=VIEW_QUALITY, optimize=True)
    return out.getvalue()


def render_view(pdf_page: Any) -> bytes:
    """A PDF page (pypdfium2) rendered to be looked at, as its text layer's words are placed:
    the whole page, upright as printed."""
    bitmap = pdf_page.render(scale=VIEW_DPI / 72, grayscale=True)
    return view_image(bitmap.to_pil())


def image_name(page: int) -> str:
    return f"page-{page}.jpg"


def page_views(pages: Sequence[PageWords]) -> dict[str, bytes]:
    """The raw files of the pages' images and their index ``pages.json``: ``{"format": 1,
    "pages": [{"page", "image", "source"}]}`` (``image`` is null where none was kept)."""
    files: dict[str, bytes] = {}
    index: list[dict[str, Any]] = []
    for page in pages:
        name = image_name(page.page) if page.view is not None else None
        if page.view is not None and name is not None:
            files[name] = page.view
        index.append({"page": page.page, "image": name, "source": page.source})
    files[PAGES_NAME] = json.dumps({"format": PAGES_FORMAT, "pages": index}).encode()
    return files
