"""Original file names: kept for display, never used in object keys."""

from __future__ import annotations

import unicodedata
from pathlib import PurePosixPath

MAX_NAME_CHARS = 255


def display_name(raw: str | None) -> str:
    """The name an analyst sees: NFC, without directories, control or format characters,
    at most 255 characters (keeping the extension)."""
    name = unicodedata.normalize("NFC", raw or "")
    name = PurePosixPath(name.replace("\\", "/")).name
    name = "".join(ch for ch in name if unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co"))
    name = " ".join(name.split()).strip(" .")
    if not name:
        return "file"
    if len(name) > MAX_NAME_CHARS:
        suffix = PurePosixPath(name).suffix[:16]
        name = name[: MAX_NAME_CHARS - len(suffix)] + suffix
    return name


def object_key(file_id: str, file_type: str) -> str:
    """``uploads/<file_id>/original.<ext>``: derived from ids and the detected type only."""
    return f"uploads/{file_id}/original.{file_type.lower()}"
