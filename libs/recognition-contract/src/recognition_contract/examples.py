"""The examples shipped with the schemas. Their names say which schema they are for:
``[invalid-]<kind>-<MAJOR>.<MINOR>[-<what>].json`` with kind ``request``, ``result-message`` or
``result`` (see ``docs/contracts/README.md``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from recognition_contract.schemas import Kind, contracts_dir
from recognition_contract.versions import SchemaVersion

# result-message before result: the shorter prefix would swallow the longer one.
_NAME = re.compile(
    r"(?P<invalid>invalid-)?(?P<kind>request|result-message|result)"
    r"-(?P<major>[0-9]+)\.(?P<minor>[0-9]+)(?:-(?P<what>[a-z0-9_.-]+))?\.json"
)


@dataclass(frozen=True)
class Example:
    name: str
    kind: Kind
    version: SchemaVersion
    """The version the example is written for; its MAJOR picks the schema."""
    valid: bool

    def read_bytes(self) -> bytes:
        return contracts_dir().joinpath("examples", self.name).read_bytes()

    def load(self) -> Any:
        return json.loads(self.read_bytes())


def parse_example_name(name: str) -> Example:
    """Kind, version and validity from a file name; ``ValueError`` if it breaks the rule."""
    match = _NAME.fullmatch(name)
    if match is None:
        raise ValueError(f"example name {name!r} does not follow the naming rule")
    return Example(
        name=name,
        kind=Kind(match.group("kind")),
        version=SchemaVersion(int(match.group("major")), int(match.group("minor"))),
        valid=match.group("invalid") is None,
    )


def example_names() -> list[str]:
    return sorted(
        entry.name
        for entry in contracts_dir().joinpath("examples").iterdir()
        if entry.name.endswith(".json")
    )


def examples() -> list[Example]:
    """Every example, sorted by name."""
    return [parse_example_name(name) for name in example_names()]
