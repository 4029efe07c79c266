"""Tesseract 5 as an OCR engine: the command line with hOCR output, one process per page.

hOCR rather than TSV: it carries each character's box as well as each word's, and where two
cells of a row are set too close for OCR to see the space between them ("1" of a row number
and "04" of the account beside it read as "104"), the characters say where a ruling line
between them cuts the word."""

from __future__ import annotations

import ctypes
import ctypes.util
import io
import os
import re
import shutil
import signal
import subprocess
from html.parser import HTMLParser
from typing import Final

from PIL import Image

from scan_gateway.ocr import OcrError, OcrTimeout, OcrUnavailable
from scan_gateway.words import Word

_BOX = re.compile(r"(?:bbox|x_bboxes) (-?\d+) (-?\d+) (-?\d+) (-?\d+)")
_WORD_CONFIDENCE = re.compile(r"x_wconf (-?[\d.]+)")
_PR_SET_PDEATHSIG: Final = 1


def _die_with_parent() -> None:
    # The recognition child can be killed at its deadline; tesseract must not outlive it.
    libc_name = ctypes.util.find_library("c")
    if libc_name:
        ctypes.CDLL(libc_name, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def find_tesseract(command: str) -> str | None:
    """Full path of the tesseract binary, or None when it is not installed."""
    return shutil.which(command)


class TesseractEngine:
    def __init__(
        self,
        command: str = "tesseract",
        *,
        languages: str = "rus+eng",
        page_segmentation: int = 6,
        timeout: float = 120.0,
    ) -> None:
        self.command = command
        self.languages = languages
        self.page_segmentation = page_segmentation
        self.timeout = timeout

    def recognize(self, image: Image.Image) -> list[Word]:
        binary = find_tesseract(self.command)
        if binary is None:
            raise OcrUnavailable(
                f"tesseract is not installed ({self.command!r} not found); "
                "run scripts/install-system-deps.sh"
            )
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        dpi = image.info.get("dpi", (200, 200))[0]
        # One thread per tesseract: OpenMP threads only fight each other on a busy host, and
        # the worker already runs as many jobs as there are cores.
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        command = [
            binary, "stdin", "stdout",
            "-l", self.languages,
            "--psm", str(self.page_segmentation),
            "--dpi", str(int(dpi)),
            "-c", "hocr_char_boxes=1",
            "hocr",
        ]  # fmt: skip
        try:
            done = subprocess.run(
                command,
                input=buffer.getvalue(),
                capture_output=True,
                timeout=self.timeout,
                env=env,
                check=False,
                preexec_fn=_die_with_parent,
            )
        except subprocess.TimeoutExpired:
            raise OcrTimeout(f"tesseract did not finish a page within {self.timeout:g} s") from None
        except OSError as exc:
            raise OcrUnavailable(f"tesseract could not be started: {exc}") from None
        if done.returncode != 0:
            tail = done.stderr.decode("utf-8", "replace").strip()[-300:]
            raise OcrError(f"tesseract failed (exit {done.returncode}): {tail}")
        return parse_hocr(done.stdout.decode("utf-8", "replace"))


class _HocrWords(HTMLParser):
    """Words (``ocrx_word``) with their boxes, confidences and characters' x extents."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.words: list[Word] = []
        self._word: tuple[tuple[int, ...], float] | None = None
        self._chars: list[tuple[str, float, float]] = []
        self._char: tuple[float, float] | None = None
        self._depth = 0  # open spans inside the current word

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "span":
            return
        attributes = dict(attrs)
        kind, title = attributes.get("class"), attributes.get("title") or ""
        box = _BOX.search(title)
        if self._word is not None:
            self._depth += 1
            if kind == "ocrx_cinfo" and box is not None:
                self._char = (float(box.group(1)), float(box.group(3)))
            return
        if kind == "ocrx_word" and box is not None:
            confidence = _WORD_CONFIDENCE.search(title)
            self._word = (
                tuple(int(v) for v in box.groups()),
                float(confidence.group(1)) if confidence else 0.0,
            )
            self._chars = []

    def handle_data(self, data: str) -> None:
        if self._word is None:
            return
        if self._char is not None:
            self._chars.append((data, *self._char))
            self._char = None
        elif data.strip():
            self._chars.append((data, float("nan"), float("nan")))

    def handle_endtag(self, tag: str) -> None:
        if tag != "span" or self._word is None:
            return
        if self._depth:
            self._depth -= 1
            self._char = None
            return
        (left, top, right, bottom), confidence = self._word
        self._word = None
        # A blank character at an edge of a word (a speck read as a space) is no part of it.
        read = self._chars
        while read and not read[0][0].strip():
            read = read[1:]
        while read and not read[-1][0].strip():
            read = read[:-1]
        text = "".join(c for c, _, _ in read)
        stripped = text.strip()
        if not stripped:
            return
        chars: tuple[tuple[float, float], ...] = ()
        if text == stripped and all(len(c) == 1 and x0 == x0 for c, x0, _ in read):
            chars = tuple((x0, x1) for _, x0, x1 in read)
            left, right = round(chars[0][0]), round(chars[-1][1])
        self.words.append(
            Word(
                stripped,
                float(left),
                float(top),
                float(right),
                float(bottom),
                max(0.0, min(100.0, confidence)),
                chars=chars,
            )
        )


def parse_hocr(text: str) -> list[Word]:
    """The words of tesseract's hOCR output, in reading order."""
    parser = _HocrWords()
    parser.feed(text)
    parser.close()
    return parser.words
