"""``schema_version`` rules: ``MAJOR.MINOR``; a reader accepts any MINOR of a MAJOR it knows."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Final

from recognition_contract.errors import MalformedVersion, UnknownMajor

SUPPORTED_MAJORS: Final = (1, 2)

# [0-9] rather than \d: Python's \d also matches non-ASCII digits, the schemas' ECMA \d does not.
_VERSION = re.compile(r"(0|[1-9][0-9]{0,8})\.([0-9]{1,9})")


@dataclass(frozen=True, order=True)
class SchemaVersion:
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


def parse_version(text: object) -> SchemaVersion:
    """``"1.3"`` -> ``SchemaVersion(1, 3)``; anything else raises ``MalformedVersion``."""
    if not isinstance(text, str):
        raise MalformedVersion(f"schema_version must be a string MAJOR.MINOR, got {text!r:.40}")
    match = _VERSION.fullmatch(text)
    if match is None:
        raise MalformedVersion(f"schema_version must be MAJOR.MINOR, got {text!r:.40}")
    return SchemaVersion(int(match.group(1)), int(match.group(2)))


def version_of(payload: object, majors: Collection[int] = SUPPORTED_MAJORS) -> SchemaVersion:
    """The version a payload declares, checked against the MAJORs the caller accepts."""
    if not isinstance(payload, dict) or "schema_version" not in payload:
        raise MalformedVersion("schema_version is missing")
    version = parse_version(payload["schema_version"])
    if version.major not in majors:
        raise UnknownMajor(str(version), tuple(majors))
    return version
