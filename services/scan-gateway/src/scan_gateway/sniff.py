"""What a file really is, from its first bytes (names and declared types lie)."""

from __future__ import annotations

from enum import Enum


class Kind(Enum):
    PDF = "PDF"
    PNG = "PNG"
    JPG = "JPG"


def sniff(source: bytes) -> Kind | None:
    if source.startswith(b"\x89PNG\r\n\x1a\n"):
        return Kind.PNG
    if source.startswith(b"\xff\xd8\xff"):
        return Kind.JPG
    # Some writers put junk before the header; readers accept it within the first kilobyte.
    if b"%PDF-" in source[:1024]:
        return Kind.PDF
    return None
