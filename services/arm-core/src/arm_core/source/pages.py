"""The pages of a PDF or image as scan-gateway kept them beside its result (``pages.json`` and
``page-<n>.jpg`` under the job's ``raw_s3_key``): each page image in the frame of the boxes
the documents' locators carry, so a box drawn on it lands on what was read."""

from __future__ import annotations

import uuid
from typing import Any

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.source.kept import SourceMissing, kept_index, kept_prefix
from arm_ka_platform.storage import ObjectMissing, ObjectStorage

INDEX = "pages.json"
# A page image is a downscaled JPEG, a few hundred KiB; refuse anything far beyond.
MAX_IMAGE_BYTES = 16 * 1024 * 1024


async def kept_pages(
    pool: Pool, storage: ObjectStorage, who: Principal, file_id: uuid.UUID
) -> list[dict[str, Any]]:
    """``[{page, image, source}]`` of the current attempt; ``SourceMissing`` when the file is
    not there for ``who`` or no pages were kept."""
    prefix = await kept_prefix(pool, who, file_id)
    return _pages(await kept_index(storage, prefix, INDEX))


async def page_image(
    pool: Pool, storage: ObjectStorage, who: Principal, file_id: uuid.UUID, page: int
) -> bytes:
    """The JPEG of one page; ``SourceMissing`` when the file is not there for ``who`` or the
    page or its image is not."""
    prefix = await kept_prefix(pool, who, file_id)
    kept = next(
        (p for p in _pages(await kept_index(storage, prefix, INDEX)) if p["page"] == page), None
    )
    if kept is None:
        raise SourceMissing("PAGE_NOT_FOUND", f"в файле нет страницы {page}")
    if kept["image"] is None:
        raise SourceMissing("SOURCE_NOT_KEPT", f"изображение страницы {page} не сохранено")
    try:
        return await storage.get(prefix + kept["image"], max_bytes=MAX_IMAGE_BYTES)
    except ObjectMissing:
        raise SourceMissing(
            "SOURCE_NOT_KEPT", f"изображение страницы {page} не сохранено"
        ) from None


def _pages(index: dict[str, Any]) -> list[dict[str, Any]]:
    """The index's pages as typed values; an image name that is no plain file name of this
    prefix is not followed."""
    out: list[dict[str, Any]] = []
    for item in index.get("pages", []):
        if not isinstance(item, dict) or not isinstance(item.get("page"), int):
            continue
        image = item.get("image")
        plain = isinstance(image, str) and image.endswith(".jpg") and "/" not in image
        out.append(
            {
                "page": item["page"],
                "image": image if plain else None,
                "source": item.get("source") if item.get("source") in ("text", "ocr") else None,
            }
        )
    return out
