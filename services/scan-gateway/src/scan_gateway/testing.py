"""Files for tests and benchmarks: corpus layouts as text PDFs and scans, and the hostile
files the gateway must survive. Needs the ``testing`` extra (recognition-corpus)."""

from __future__ import annotations

import io
import random
import struct
import zlib
from dataclasses import dataclass

from recognition_corpus import Expected, Layout
from recognition_corpus.render_pdf import PdfRendering, page_expected, render_pdf
from recognition_corpus.render_scan import ScanStyle, encode, image_pdf, page_images


@dataclass(frozen=True)
class Rendered:
    """One layout in one form, with the result a correct recognition gives."""

    name: str
    kind: str  # text-pdf | clean-scan | noisy-scan
    file_type: str  # PDF | PNG | JPG
    data: bytes
    expected: Expected
    pages: int


def text_pdf(layout: Layout, *, ruled: bool) -> Rendered | None:
    rendering = render_pdf(layout, ruled=ruled)
    expected = page_expected(layout, rendering)
    if expected is None:
        return None
    name = f"{layout.name}-{'ruled' if ruled else 'unruled'}.pdf"
    return Rendered(name, "text-pdf", "PDF", rendering.pdf, expected, rendering.pages)


def scan(
    layout: Layout,
    *,
    noisy: bool,
    file_type: str = "PNG",
    ruled: bool = True,
    dpi: int = 200,
) -> Rendered | None:
    """The layout printed and scanned: PNG or JPG of a one-page layout, or an image-only PDF
    of every page (``file_type="PDF"``)."""
    rendering: PdfRendering = render_pdf(layout, ruled=ruled)
    expected = page_expected(layout, rendering)
    if expected is None:
        return None
    rng = random.Random(f"{layout.name}:{file_type}:{noisy}")  # noqa: S311 - test data
    style = ScanStyle.noisy(rng, dpi) if noisy else ScanStyle.clean(dpi)
    images = page_images(rendering.pdf, style, seed=rng.randint(0, 2**31))
    if file_type == "PDF":
        data = image_pdf(images)
    else:
        if len(images) != 1:
            return None
        data = encode(images[0], file_type)
    kind = "noisy-scan" if noisy else "clean-scan"
    name = f"{layout.name}-{kind}.{file_type.lower()}"
    return Rendered(name, kind, file_type, data, expected, rendering.pages)


# Hostile and broken files.


def encrypted_pdf(password: str = "пароль") -> bytes:  # noqa: S107 - a test file
    """A text PDF that opens only with a user password."""
    from reportlab.lib.pdfencrypt import StandardEncryption
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, encrypt=StandardEncryption(password, ownerPassword="owner"))
    canvas.drawString(72, 720, "Oborotno-saldovaya vedomost")
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def many_pages_pdf(pages: int) -> bytes:
    """A small file of many near-empty pages."""
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pageCompression=1)
    for number in range(pages):
        canvas.drawString(72, 720, f"page {number + 1}")
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_bomb(width: int = 100_000, height: int = 100_000) -> bytes:
    """A PNG of a few hundred bytes that declares ``width`` x ``height`` pixels."""
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    # Rows of zero bits compress to almost nothing; a few suffice, the rest is "missing".
    row = b"\x00" + bytes((width + 7) // 8)
    data = zlib.compress(row * 16, 9)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", data)
        + _chunk(b"IEND", b"")
    )


def corrupt_pdf() -> bytes:
    """A PDF header followed by garbage: no objects, no cross-reference table."""
    return b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(range(256)) * 8 + b"\n%%EOF\n"
