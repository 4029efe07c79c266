"""A window of a workbook's sheet around a row, from the chunks tabular-parser keeps beside
its result (``sheets.json`` and ``sheet-<s>-<k>.json`` under the job's ``raw_s3_key``). Only
the chunks the window touches are read: a row of a 100,000-row sheet costs one chunk."""

from __future__ import annotations

import json
import uuid
from typing import Any

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.source.kept import MAX_KEPT_BYTES, SourceMissing, kept_index, kept_prefix
from arm_ka_platform.storage import ObjectStorage

INDEX = "sheets.json"
MAX_AROUND = 100


async def sheet_window(
    pool: Pool,
    storage: ObjectStorage,
    who: Principal,
    file_id: uuid.UUID,
    *,
    sheet: str,
    row: int,
    around: int,
) -> dict[str, Any]:
    """Rows ``row - around`` to ``row + around`` of ``sheet`` as the file has them;
    ``SourceMissing`` when the file is not there for ``who`` or no sheets were kept."""
    prefix = await kept_prefix(pool, who, file_id)
    index = await kept_index(storage, prefix, INDEX)
    kept = next((s for s in index.get("sheets", []) if s.get("sheet") == sheet), None)
    if kept is None:
        raise SourceMissing("SHEET_NOT_FOUND", f"в файле нет листа «{sheet}»")
    first, last = row - around, row + around
    rows: list[dict[str, Any]] = []
    for chunk in kept["chunks"]:
        if chunk["last"] < first or chunk["first"] > last:
            continue
        data = json.loads(await storage.get(prefix + chunk["name"], max_bytes=MAX_KEPT_BYTES))
        rows += [
            {"number": number, "cells": cells}
            for number, cells in data["rows"]
            if first <= number <= last
        ]
    merged = [
        [int(v) for v in m]
        for m in kept.get("merged", [])
        if isinstance(m, list) and len(m) == 4 and m[0] <= last and m[2] >= first
    ]
    return {
        "sheet": sheet,
        "row": row,
        "rows": rows,
        "merged": merged,
        "columns": kept.get("columns", 0),
        "first_row": kept["chunks"][0]["first"] if kept["chunks"] else None,
        "last_row": kept["chunks"][-1]["last"] if kept["chunks"] else None,
    }
