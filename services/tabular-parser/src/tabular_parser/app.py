"""tabular-parser as a worker, built from settings (nothing happens at import time)."""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError, version

from recognition_contract import FileType, Pipeline
from recognition_worker import Recognizer, Worker
from tabular_parser.recognize import recognize
from tabular_parser.settings import TabularSettings

SERVICE_NAME = "tabular-parser"
FILE_TYPES = frozenset({FileType.XLS, FileType.XLSX, FileType.XLSB})


def service_version() -> str:
    try:
        return version("tabular-parser")
    except PackageNotFoundError:  # running from a source tree
        return "0.0.0"


def recognizer(settings: TabularSettings) -> Recognizer:
    return Recognizer(
        name=SERVICE_NAME,
        version=service_version(),
        pipeline=Pipeline.TABULAR,
        file_types=FILE_TYPES,
        recognize=functools.partial(recognize, settings.workbook_limits),
        preload=("tabular_parser.recognize",),
    )


def create_worker(settings: TabularSettings) -> Worker:
    return Worker(settings, recognizer(settings))
