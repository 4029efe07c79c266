"""Files for tests and benchmarks: corpus layouts as text PDFs and scans, and the hostile
files the gateway must survive. Needs the ``testing`` extra (recognition-corpus)."""

from __future__ import annotations

import io
import random
import struct
import tempfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recognition_contract import FileType
from recognition_corpus import Expected, Layout, expected_of
from recognition_corpus.printing import PrintSetup, print_to_pdf, write_print_xlsx
from recognition_corpus.render_pdf import PdfRendering, page_expected, render_pdf
from recognition_corpus.render_scan import (
    PhotoStyle,
    ScanStyle,
    encode,
    image_pdf,
    page_images,
    photograph,
)
from recognition_worker import RecognitionError
from scan_gateway.limits import ScanLimits
from scan_gateway.ocr import EngineConfig
from scan_gateway.recognize import recognize


@dataclass(frozen=True)
class Rendered:
    """One layout in one form, with the result a correct recognition gives."""

    name: str
    kind: str  # text-pdf | clean-scan | noisy-scan; printed: print-pdf | scan-DPI | photo
    file_type: str  # PDF | PNG | JPG
    data: bytes
    expected: Expected
    pages: int
    params: dict[str, Any] = field(default_factory=dict)
    """The axis values the file was made with (layout, print and scan axes)."""


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


def read_back(rendered: Rendered) -> Expected:
    """What the gateway's recognizer makes of a rendered file (in this process), in the form
    the corpus keeps expectations: documents and warnings, or the error code."""
    try:
        recognition = recognize(
            ScanLimits(), EngineConfig(), FileType(rendered.file_type), rendered.data, rendered.name
        )
    except RecognitionError as exc:
        return Expected("error", "unknown", [], [], error=exc.code.value)
    return expected_of(
        recognition.status, recognition.group_schema, recognition.documents, recognition.warnings
    )


PRINTED_KINDS = ("print-pdf", "scan-300", "scan-200", "scan-150", "photo")


def printed(
    layouts: Sequence[tuple[Layout, PrintSetup]],
    kinds: Sequence[str] = PRINTED_KINDS,
    *,
    workdir: Path | None = None,
) -> list[Rendered]:
    """Layouts printed by LibreOffice as an analyst prints a workbook (``print-pdf``: the text
    PDF), then scanned at 300, 200 or 150 dpi (``scan-DPI``: a scanner's slight turn, noise and
    compression) or photographed with a phone (``photo``). One page gives a PNG or JPG (the
    scanner's choice, drawn), several pages an image-only PDF. Layouts a page cannot show
    (nesting known only from outline levels) are left out."""
    chosen = [
        (layout, setup, expected)
        for layout, setup in layouts
        if (expected := layout.expected_for(formats=True, outlines=False)) is not None
    ]
    with tempfile.TemporaryDirectory(prefix="printed-", dir=workdir) as tmp:
        root = Path(tmp)
        books = []
        for layout, setup, _ in chosen:
            book = root / f"{layout.name}.xlsx"
            write_print_xlsx(layout, setup, book)
            books.append(book)
        pdfs = print_to_pdf(books, root / "pdf")
        out: list[Rendered] = []
        for (layout, setup, expected), book in zip(chosen, books, strict=True):
            pdf_path = pdfs.get(book)
            if pdf_path is None:
                continue
            pdf = pdf_path.read_bytes()
            params = {**layout.params, **setup.params}
            for kind in kinds:
                out.append(_printed_as(layout.name, kind, pdf, expected, params))
    return out


def _printed_as(
    name: str, kind: str, pdf: bytes, expected: Expected, params: dict[str, Any]
) -> Rendered:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    pages = len(document)
    document.close()
    if kind == "print-pdf":
        return Rendered(f"{name}.pdf", kind, "PDF", pdf, expected, pages, params)
    rng = random.Random(f"{name}:{kind}")  # noqa: S311 - test data
    if kind == "photo":
        style = PhotoStyle.draw(rng)
        images = photograph(pdf, style, seed=rng.randint(0, 2**31))
        extra = {
            "photo_angle": _bucket(abs(style.angle), (1, 2)),
            "photo_paper": style.paper // 20 * 20,
        }
        quality = style.jpeg_quality
    else:
        dpi = int(kind.removeprefix("scan-"))
        scan_style = ScanStyle(
            dpi=dpi,
            angle=round(rng.uniform(-1.0, 1.0), 2),
            noise=rng.uniform(2, 8),
            blur=rng.uniform(0.0, 0.5),
            jpeg_quality=rng.choice((None, rng.randint(60, 85))),
        )
        images = page_images(pdf, scan_style, seed=rng.randint(0, 2**31))
        extra = {"scan_compression": "jpeg" if scan_style.jpeg_quality else "none"}
        quality = scan_style.jpeg_quality or 90
    if len(images) > 1:
        file_type, data = "PDF", image_pdf(images)
    else:
        file_type = "JPG" if kind == "photo" or rng.random() < 0.5 else "PNG"
        data = encode(images[0], file_type, quality=quality)
    return Rendered(
        f"{name}-{kind}.{file_type.lower()}",
        kind,
        file_type,
        data,
        expected,
        pages,
        {**params, **extra, "pages": "many" if pages > 1 else "one"},
    )


def _bucket(value: float, edges: Sequence[float]) -> str:
    for edge in edges:
        if value < edge:
            return f"<{edge:g}"
    return f">={edges[-1]:g}"


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
