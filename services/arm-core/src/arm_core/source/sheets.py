"""A window of a workbook's sheet around a row, from the chunks tabular-parser keeps beside
its result (``sheets.json`` and ``sheet-<s>-<k>.json`` under the job's ``raw_s3_key``). Only
the chunks the window touches are read: a row of a 100,000-row sheet costs one chunk."""

from __future__ import annotations

import json
import uuid
from typing import Any

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.files.access import VISIBLE_FILE
from arm_core.refusal import Refused
from arm_ka_platform.storage import ObjectMissing, ObjectStorage

INDEX = "sheets.json"
MAX_AROUND = 100
# Chunks are a thousand rows of text; well above that is no chunk of ours.
_MAX_CHUNK_BYTES = 64 * 1024 * 1024

RAW_KEY = f"""
SELECT j.metrics ->> 'raw_s3_key' AS raw_key
  FROM stored_file f
  JOIN recognition_job j ON j.id = f.current_recognition_job_id
 WHERE f.id = %(file_id)s AND {VISIBLE_FILE}
"""


class SourceMissing(Refused):
    """Nothing of the source to show (404)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(404, code, message)


async def sheet_window(
    pool: Pool,
    storage: ObjectStorage,
    who: Principal,
    file_id: uuid.UUID,
    *,
    sheet: str,
    row: int,
    around: int,
) -> dict[str, Any] | None:
    """Rows ``row - around`` to ``row + around`` of ``sheet`` as the file has them; None when
    the file is not there for ``who``; ``SourceMissing`` when no sheets were kept."""
    async with pool.connection() as conn:
        found = await (await conn.execute(RAW_KEY, {"file_id": file_id, **who.sql()})).fetchone()
    if found is None:
        return None
    prefix = found["raw_key"]
    if not prefix or not prefix.endswith("/"):
        raise SourceMissing(
            "SOURCE_NOT_KEPT",
            "для этой попытки лист источника не сохранён: повторите распознавание",
        )
    try:
        index = json.loads(await storage.get(prefix + INDEX, max_bytes=_MAX_CHUNK_BYTES))
    except ObjectMissing:
        raise SourceMissing("SOURCE_NOT_KEPT", "лист источника не сохранён") from None
    kept = next((s for s in index.get("sheets", []) if s.get("sheet") == sheet), None)
    if kept is None:
        raise SourceMissing("SHEET_NOT_FOUND", f"в файле нет листа «{sheet}»")
    first, last = row - around, row + around
    rows: list[dict[str, Any]] = []
    for chunk in kept["chunks"]:
        if chunk["last"] < first or chunk["first"] > last:
            continue
        data = json.loads(await storage.get(prefix + chunk["name"], max_bytes=_MAX_CHUNK_BYTES))
        rows += [
            {"number": number, "cells": cells}
            for number, cells in data["rows"]
            if first <= number <= last
        ]
    return {
        "sheet": sheet,
        "row": row,
        "rows": rows,
        "columns": kept.get("columns", 0),
        "first_row": kept["chunks"][0]["first"] if kept["chunks"] else None,
        "last_row": kept["chunks"][-1]["last"] if kept["chunks"] else None,
    }
