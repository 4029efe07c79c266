"""Where the current attempt of a file keeps its source beside the result: the raw prefix the
recognition service named (``raw/{file_id}/{job_id}/``)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.files.access import VISIBLE_FILE
from arm_core.refusal import Refused
from arm_ka_platform.storage import ObjectMissing, ObjectStorage

# Indexes and chunks are small text; well above this is nothing a service of ours wrote.
MAX_KEPT_BYTES = 64 * 1024 * 1024

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


NOT_KEPT = "для этой попытки источник не сохранён: повторите распознавание"


async def kept_prefix(pool: Pool, who: Principal, file_id: uuid.UUID) -> str:
    """The raw prefix of the file's current attempt. ``SourceMissing``: the file is not there
    for ``who`` (FILE_NOT_FOUND), or the attempt kept no set of files (older services kept
    one file, or none)."""
    async with pool.connection() as conn:
        found = await (await conn.execute(RAW_KEY, {"file_id": file_id, **who.sql()})).fetchone()
    if found is None:
        raise SourceMissing("FILE_NOT_FOUND", "файл не найден")
    prefix = found["raw_key"]
    if not prefix or not prefix.endswith("/"):
        raise SourceMissing("SOURCE_NOT_KEPT", NOT_KEPT)
    return str(prefix)


async def kept_index(storage: ObjectStorage, prefix: str, name: str) -> dict[str, Any]:
    """An index file the service wrote under the prefix (``sheets.json``, ``pages.json``);
    one that is missing or no JSON object is as good as none."""
    try:
        index = json.loads(await storage.get(prefix + name, max_bytes=MAX_KEPT_BYTES))
    except (ObjectMissing, ValueError):
        raise SourceMissing("SOURCE_NOT_KEPT", NOT_KEPT) from None
    if not isinstance(index, dict):
        raise SourceMissing("SOURCE_NOT_KEPT", NOT_KEPT)
    return index
