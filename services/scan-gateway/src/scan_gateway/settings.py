"""scan-gateway settings: the worker keys, the limits of what a file may hold, the OCR engine."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, PositiveFloat

from recognition_worker import WorkerSettings
from scan_gateway.limits import ScanLimits
from scan_gateway.ocr import EngineConfig

_LIMITS = ScanLimits()
_ENGINE = EngineConfig()


class ScanSettings(WorkerSettings):
    scan_max_pages: int = Field(default=_LIMITS.max_pages, ge=1, le=10_000)
    scan_max_image_pixels: int = Field(default=_LIMITS.max_image_pixels, ge=1_000_000)
    scan_render_dpi: int = Field(default=_LIMITS.render_dpi, ge=100, le=600)
    scan_min_row_confidence: float = Field(default=_LIMITS.min_row_confidence, ge=0, le=100)
    scan_max_inflated_bytes: int = Field(default=_LIMITS.max_inflated_bytes, ge=16 * 1024**2)
    ocr_engine: Literal["tesseract", "http"] = "tesseract"
    tesseract_cmd: str = _ENGINE.tesseract_cmd
    ocr_languages: str = _ENGINE.languages
    ocr_timeout_seconds: PositiveFloat = _ENGINE.timeout_seconds
    """One page through Tesseract."""
    ocr_http_url: str | None = None
    """The external engine's endpoint (``OCR_ENGINE=http``); see ``scan_gateway.http_engine``."""
    ocr_http_timeout_seconds: PositiveFloat = _ENGINE.http_timeout_seconds

    @property
    def scan_limits(self) -> ScanLimits:
        return ScanLimits(
            max_pages=self.scan_max_pages,
            max_image_pixels=self.scan_max_image_pixels,
            render_dpi=self.scan_render_dpi,
            min_row_confidence=self.scan_min_row_confidence,
            max_inflated_bytes=self.scan_max_inflated_bytes,
        )

    @property
    def engine(self) -> EngineConfig:
        return EngineConfig(
            kind=self.ocr_engine,
            tesseract_cmd=self.tesseract_cmd,
            languages=self.ocr_languages,
            timeout_seconds=self.ocr_timeout_seconds,
            http_url=self.ocr_http_url,
            http_timeout_seconds=self.ocr_http_timeout_seconds,
        )
