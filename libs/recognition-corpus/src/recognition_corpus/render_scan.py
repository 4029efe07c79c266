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


@dataclass(frozen=True)
class PhotoStyle:
    """A page photographed with a phone: held a little crooked and not square to the page,
    grey paper lit unevenly with a soft shadow, a darker desk around it, blur, sensor noise,
    strong JPEG compression."""

    angle: float
    """Degrees, counter-clockwise."""
    corners: tuple[tuple[float, float], ...]
    """How far each page corner (top-left, top-right, bottom-right, bottom-left) is moved,
    as shares of the page's width and height: the perspective."""
    paper: int
    """Grey level of the paper at its brightest."""
    light: float
    """How much darker the far side of the page is (a share of ``paper``)."""
    shadow: float
    """Darkening inside a soft band across the page (a share), 0 for none."""
    desk: int
    """Grey level of the desk around the page."""
    border: float
    """Desk visible around the page, as a share of the page's size."""
    blur: float
    noise: float
    jpeg_quality: int
    dpi: int = 200

    @classmethod
    def draw(cls, rng: random.Random) -> PhotoStyle:
        def jitter() -> tuple[float, float]:
            return (rng.uniform(-0.02, 0.02), rng.uniform(-0.015, 0.015))

        return cls(
            angle=round(rng.uniform(-3.0, 3.0), 2),
            corners=tuple(jitter() for _ in range(4)),
            paper=rng.randint(185, 235),
            light=rng.uniform(0.05, 0.25),
            shadow=rng.choice((0.0, rng.uniform(0.1, 0.3))),
            desk=rng.randint(40, 120),
            border=rng.uniform(0.03, 0.08),
            blur=rng.uniform(0.5, 1.1),
            noise=rng.uniform(4, 10),
            jpeg_quality=rng.randint(50, 70),
        )


def photograph(pdf: bytes, style: PhotoStyle, *, seed: int = 0) -> list[Image.Image]:
    """Every page of the PDF as a phone photo (grayscale JPEG-degraded images)."""
    import cv2

    clean = page_images(pdf, ScanStyle.clean(style.dpi), seed=seed)
    out: list[Image.Image] = []
    rng = np.random.default_rng(seed)
    for page in clean:
        ink = np.asarray(page, dtype=np.float64) / 255.0
        height, width = ink.shape
        yy, xx = np.mgrid[0:height, 0:width]
        # Light falls off across the page from a random side, with a soft shadow band.
        direction = rng.uniform(0, 2 * np.pi)
        ramp = (np.cos(direction) * xx / width + np.sin(direction) * yy / height + 1) / 2
        light = 1.0 - style.light * ramp
        if style.shadow:
            centre = rng.uniform(0.2, 0.8) * width
            light *= 1.0 - style.shadow / (1.0 + np.exp(-(xx - centre) / (0.04 * width)))
        paper = style.paper * light * ink + 20 * (1 - ink) * light
        margin_x, margin_y = int(style.border * width), int(style.border * height)
        canvas_w, canvas_h = width + 2 * margin_x, height + 2 * margin_y
        source = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
        target = np.array(
            [
                [
                    margin_x + x * width + dx * width,
                    margin_y + y * height + dy * height,
                ]
                for (x, y), (dx, dy) in zip(
                    ((0, 0), (1, 0), (1, 1), (0, 1)), style.corners, strict=True
                )
            ],
            dtype=np.float32,
        )
        matrix = cv2.getPerspectiveTransform(source, target)
        turn = cv2.getRotationMatrix2D((canvas_w / 2, canvas_h / 2), style.angle, 1.0)
        matrix = np.vstack([turn, [0, 0, 1]]) @ matrix
        desk = style.desk + rng.normal(0, 6, (canvas_h, canvas_w))
        mask = cv2.warpPerspective(
            np.ones_like(paper, dtype=np.float32), matrix, (canvas_w, canvas_h)
        )
        warped = cv2.warpPerspective(
            paper.astype(np.float32), matrix, (canvas_w, canvas_h), flags=cv2.INTER_LINEAR
        )
        photo = warped * mask + desk * (1 - mask)
        image = Image.fromarray(np.clip(photo, 0, 255).astype(np.uint8))
        image = _degrade(
            image,
            ScanStyle(
                dpi=style.dpi,
                noise=style.noise,
                blur=style.blur,
                jpeg_quality=style.jpeg_quality,
            ),
            seed,
        )
        out.append(image)
    return out
