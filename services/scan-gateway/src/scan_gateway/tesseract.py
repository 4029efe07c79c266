"""Tesseract 5 as an OCR engine: the command line with TSV output, one process per page."""

from __future__ import annotations

import ctypes
import ctypes.util
import io
import os
import shutil
import signal
import subprocess
from typing import Final

from PIL import Image

from scan_gateway.ocr import OcrError, OcrTimeout, OcrUnavailable
from scan_gateway.words import Word

_WORD_LEVEL: Final = "5"
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
            "tsv",
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
        return parse_tsv(done.stdout.decode("utf-8", "replace"))


def parse_tsv(text: str) -> list[Word]:
    """Word rows (level 5) of tesseract's TSV output."""
    words: list[Word] = []
    for line in text.splitlines()[1:]:
        parts = line.split("\t")
        if len(parts) < 12 or parts[0] != _WORD_LEVEL:
            continue
        content = parts[11].strip()
        if not content:
            continue
        try:
            left, top, width, height = (int(p) for p in parts[6:10])
            confidence = float(parts[10])
        except ValueError:
            continue
        words.append(
            Word(
                content,
                float(left),
                float(top),
                float(left + width),
                float(top + height),
                max(0.0, min(100.0, confidence)),
            )
        )
    return words
