"""The raw output stored beside the result: every page's words with boxes and confidences."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from scan_gateway.words import PageWords

RAW_NAME = "words.json"
RAW_FORMAT = 1


def raw_words(pages: Sequence[PageWords]) -> bytes:
    """``{"format": 1, "pages": [{page, source, width, height, unit, angle, words: [{text,
    bbox: [x0, y0, x1, y1] as fractions of the page, confidence}]}]}``; ``source`` is
    ``text`` (PDF text layer, confidence null) or ``ocr``."""
    out: list[dict[str, Any]] = []
    for page in pages:
        out.append(
            {
                "page": page.page,
                "source": page.source,
                "width": round(page.width, 2),
                "height": round(page.height, 2),
                "unit": "px" if page.source == "ocr" else "pt",
                "angle": page.angle,
                "words": [
                    {
                        "text": w.text,
                        "bbox": [
                            round(w.x0 / page.width, 5),
                            round(w.y0 / page.height, 5),
                            round(w.x1 / page.width, 5),
                            round(w.y1 / page.height, 5),
                        ],
                        "confidence": w.confidence,
                    }
                    for w in page.words
                ],
            }
        )
    return json.dumps({"format": RAW_FORMAT, "pages": out}, ensure_ascii=False).encode()
