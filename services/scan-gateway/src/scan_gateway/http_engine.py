"""An external OCR service over HTTP, so that another engine can replace Tesseract.

Request: ``POST <url>`` with ``Content-Type: application/json``::

    {"image": "<PNG, base64>", "width": 2339, "height": 1654, "languages": "rus+eng"}

Response ``200`` with ``application/json``::

    {"words": [{"text": "Итого", "x0": 120, "y0": 800, "x1": 190, "y1": 822,
                "confidence": 93.5}, ...]}

Boxes are in pixels of the image sent, origin top-left; ``confidence`` is 0-100 (optional,
100 when absent). Anything else is an engine failure.
"""

from __future__ import annotations

import base64
import io
import json
import socket
import urllib.error
import urllib.request
from typing import Any

from PIL import Image

from scan_gateway.ocr import OcrError, OcrTimeout, OcrUnavailable
from scan_gateway.words import Word

MAX_RESPONSE_BYTES = 64 * 1024**2


class HttpOcrEngine:
    def __init__(self, url: str, *, timeout: float = 60.0, languages: str = "rus+eng") -> None:
        self.url = url
        self.timeout = timeout
        self.languages = languages

    def recognize(self, image: Image.Image) -> list[Word]:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        body = json.dumps(
            {
                "image": base64.b64encode(buffer.getvalue()).decode("ascii"),
                "width": image.width,
                "height": image.height,
                "languages": self.languages,
            }
        ).encode()
        request = urllib.request.Request(  # noqa: S310 - the URL is the operator's setting
            self.url, data=body, headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                payload = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise OcrUnavailable(f"OCR service at {self.url} answered HTTP {exc.code}") from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError | socket.timeout):
                raise OcrTimeout(
                    f"OCR service at {self.url} did not answer within {self.timeout:g} s"
                ) from None
            raise OcrUnavailable(
                f"OCR service at {self.url} is unreachable: {exc.reason}"
            ) from None
        except TimeoutError:
            raise OcrTimeout(
                f"OCR service at {self.url} did not answer within {self.timeout:g} s"
            ) from None
        except OSError as exc:
            raise OcrUnavailable(f"OCR service at {self.url} is unreachable: {exc}") from None
        if len(payload) > MAX_RESPONSE_BYTES:
            raise OcrError(f"OCR service at {self.url} answered more than 64 MiB")
        return parse_response(payload)


def parse_response(payload: bytes) -> list[Word]:
    try:
        data: Any = json.loads(payload)
        items = data["words"]
        if not isinstance(items, list):
            raise TypeError("words is not a list")
        words = []
        for item in items:
            text = str(item["text"]).strip()
            if not text:
                continue
            confidence = float(item.get("confidence", 100.0))
            words.append(
                Word(
                    text,
                    float(item["x0"]),
                    float(item["y0"]),
                    float(item["x1"]),
                    float(item["y1"]),
                    max(0.0, min(100.0, confidence)),
                )
            )
    except (ValueError, KeyError, TypeError) as exc:
        raise OcrError(f"the OCR service's answer is not a word list: {exc}") from None
    return words
