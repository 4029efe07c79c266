"""Rendered PDFs into scans: pages as images at a scanner's resolution, turned slightly,
with sensor noise, a little blur and JPEG artefacts; or an image-only PDF of such pages.

The same rendering keeps its page locators, so ``page_expected`` still states what a
correct recognition of the scan gives.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageFilter


@dataclass(frozen=True)
class ScanStyle:
    dpi: int = 200
    angle: float = 0.0
    """Degrees, counter-clockwise, as a sheet lies crooked on the glass."""
    noise: float = 0.0
    """Standard deviation of gray-level noise (0-255)."""
    blur: float = 0.0
    jpeg_quality: int | None = None
    """Set: the page goes through JPEG at this quality (its artefacts stay in a PNG too)."""

    @classmethod
    def clean(cls, dpi: int = 200) -> ScanStyle:
        return cls(dpi=dpi)

    @classmethod
    def noisy(cls, rng: random.Random, dpi: int = 200) -> ScanStyle:
        return cls(
            dpi=dpi,
            angle=round(rng.uniform(1.0, 2.0) * rng.choice((-1, 1)), 2),
            noise=rng.uniform(8, 14),
            blur=rng.uniform(0.3, 0.6),
            jpeg_quality=rng.randint(55, 75),
        )


def page_images(pdf: bytes, style: ScanStyle, *, seed: int = 0) -> list[Image.Image]:
    """Every page of the PDF as a grayscale scan."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    images: list[Image.Image] = []
    try:
        for index in range(len(document)):
            page = document[index]
            image = page.render(scale=style.dpi / 72, grayscale=True).to_pil().convert("L")
            images.append(_degrade(image, style, seed + index))
    finally:
        document.close()
    return images


def _degrade(image: Image.Image, style: ScanStyle, seed: int) -> Image.Image:
    if style.angle:
        image = image.rotate(
            style.angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255
        )
    if style.blur:
        image = image.filter(ImageFilter.GaussianBlur(style.blur))
    if style.noise:
        rng = np.random.default_rng(seed)
        pixels = np.asarray(image, dtype=np.float64) + rng.normal(
            0.0, style.noise, image.size[::-1]
        )
        image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    if style.jpeg_quality is not None:
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=style.jpeg_quality)
        image = Image.open(io.BytesIO(buffer.getvalue())).convert("L")
    image.info["dpi"] = (style.dpi, style.dpi)
    return image


def encode(image: Image.Image, fmt: str, *, quality: int = 85) -> bytes:
    """One page as PNG or JPG bytes, with its resolution stated."""
    buffer = io.BytesIO()
    dpi = image.info.get("dpi", (200, 200))
    if fmt.upper() in ("JPG", "JPEG"):
        image.save(buffer, format="JPEG", quality=quality, dpi=dpi)
    else:
        image.save(buffer, format="PNG", dpi=dpi)
    return buffer.getvalue()


def image_pdf(images: list[Image.Image]) -> bytes:
    """A PDF of page images and no text layer, as a scanner writes it."""
    buffer = io.BytesIO()
    dpi = images[0].info.get("dpi", (200, 200))[0]
    images[0].save(
        buffer, format="PDF", save_all=True, append_images=images[1:], resolution=float(dpi)
    )
    return buffer.getvalue()
