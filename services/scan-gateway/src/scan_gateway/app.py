"""scan-gateway as a worker, built from settings (nothing happens at import time)."""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError, version

from recognition_contract import FileType, Pipeline
from recognition_worker import Recognizer, Worker
from scan_gateway.recognize import recognize
from scan_gateway.settings import ScanSettings

SERVICE_NAME = "scan-gateway"
FILE_TYPES = frozenset({FileType.PDF, FileType.PNG, FileType.JPG})


def service_version() -> str:
    try:
        return version("scan-gateway")
    except PackageNotFoundError:  # running from a source tree
        return "0.0.0"


def recognizer(settings: ScanSettings) -> Recognizer:
    return Recognizer(
        name=SERVICE_NAME,
        version=service_version(),
        pipeline=Pipeline.IMAGE,
        file_types=FILE_TYPES,
        recognize=functools.partial(recognize, settings.scan_limits, settings.engine),
        preload=("scan_gateway.recognize", "pdfplumber", "pypdfium2", "cv2"),
    )


def create_worker(settings: ScanSettings) -> Worker:
    return Worker(settings, recognizer(settings))
