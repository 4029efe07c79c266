"""Exports of a file's or a consolidation's documents, for whoever may see them."""

from __future__ import annotations

import asyncio
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import IO, Literal

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.export.csvzip import write_csv_zip
from arm_core.export.tables import Export, Source, export_of
from arm_core.export.xlsx import write_xlsx
from arm_core.files.queries import RECOGNISED, consolidation_files
from arm_core.review.service import reviewed_documents

Format = Literal["xlsx", "csv"]

# Kept in memory up to this size, on disk beyond.
_SPOOL_BYTES = 8 * 1024 * 1024
_CHUNK = 256 * 1024


@dataclass(frozen=True)
class Written:
    media_type: str
    extension: str
    write: Callable[[Export, IO[bytes]], None]


FORMATS: dict[str, Written] = {
    "xlsx": Written(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx", write_xlsx
    ),
    "csv": Written("application/zip", "zip", write_csv_zip),
}


async def file_sources(pool: Pool, file_id: uuid.UUID, name: str) -> list[Source]:
    documents = await reviewed_documents(pool, file_id)
    return [Source(file_name=name, documents=documents)] if documents else []


async def consolidation_sources(
    pool: Pool, who: Principal, consolidation_id: uuid.UUID
) -> list[Source]:
    sources = []
    for row in await consolidation_files(pool, who, consolidation_id):
        if row["status"] in RECOGNISED:
            sources += await file_sources(pool, row["id"], row["original_name"])
    return sources


async def render(sources: list[Source], written: Written) -> IO[bytes]:
    """The export, made in a worker thread (a large workbook takes seconds) before anything
    is answered, so that a failure is an error answer and not a cut-off download; kept in
    memory up to a few megabytes, on disk beyond."""
    spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)  # noqa: SIM115 (closed by chunks)
    try:
        await asyncio.to_thread(written.write, export_of(sources), spool)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


async def chunks(spool: IO[bytes]) -> AsyncIterator[bytes]:
    try:
        while chunk := await asyncio.to_thread(spool.read, _CHUNK):
            yield chunk
    finally:
        spool.close()
