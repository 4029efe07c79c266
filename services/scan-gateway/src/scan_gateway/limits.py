"""How much of a file the gateway is willing to read. Passed to the recognition child, so it
is a plain frozen value."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScanLimits:
    max_pages: int = 50
    """A PDF with more pages is refused (UNREADABLE) before any page is read."""
    max_image_pixels: int = 60_000_000
    """Pixels of one image or rendered page (about A3 at 600 dpi); a decompression bomb
    declares far more in a few bytes and is refused before it is decoded."""
    render_dpi: int = 300
    """Resolution a PDF page with no text layer is rendered at for OCR, unless it is one
    stored scan (read as stored, at the scanner's resolution)."""
    min_row_confidence: float = 60.0
    """OCR rows below this get a warning that points at their box."""
    max_inflated_bytes: int = 512 * 1024**2
    """What a PDF's compressed streams may inflate to, all together: past it the file is
    refused (UNREADABLE) by a pass that holds a megabyte at a time, before any parser reads
    it (``scan_gateway.inflation``)."""
