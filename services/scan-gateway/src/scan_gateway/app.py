"""scan-gateway as a worker, built from settings (nothing happens at import time)."""

from __future__ import annotations

import functools

from recognition_contract import FileType, Pipeline
from recognition_worker import Recognizer, Worker
from recognition_worker.service import package_version
from scan_gateway.recognize import recognize
from scan_gateway.settings import ScanSettings

SERVICE_NAME = "scan-gateway"
FILE_TYPES = frozenset({FileType.PDF, FileType.PNG, FileType.JPG})


def recognizer(settings: ScanSettings) -> Recognizer:
    return Recognizer(
        name=SERVICE_NAME,
        version=package_version("scan-gateway"),
        pipeline=Pipeline.IMAGE,
        file_types=FILE_TYPES,
        recognize=functools.partial(recognize, settings.scan_limits, settings.engine),
        preload=("scan_gateway.recognize", "pdfplumber", "pypdfium2", "cv2"),
    )


def create_worker(settings: ScanSettings) -> Worker:
    return Worker(settings, recognizer(settings))
