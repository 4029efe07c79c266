"""tabular-parser as a worker, built from settings (nothing happens at import time)."""

from __future__ import annotations

import functools

from recognition_contract import FileType, Pipeline
from recognition_worker import Recognizer, Worker
from recognition_worker.service import package_version
from tabular_parser.recognize import recognize
from tabular_parser.settings import TabularSettings

SERVICE_NAME = "tabular-parser"
FILE_TYPES = frozenset({FileType.XLS, FileType.XLSX, FileType.XLSB, FileType.TXT, FileType.XML})


def recognizer(settings: TabularSettings) -> Recognizer:
    return Recognizer(
        name=SERVICE_NAME,
        version=package_version("tabular-parser"),
        pipeline=Pipeline.TABULAR,
        file_types=FILE_TYPES,
        recognize=functools.partial(recognize, settings.workbook_limits),
        preload=("tabular_parser.recognize",),
        # Cell lists, amounts and result dicts: no reference cycles for a collector to find.
        cyclic_gc=False,
    )


def create_worker(settings: TabularSettings) -> Worker:
    return Worker(settings, recognizer(settings))
