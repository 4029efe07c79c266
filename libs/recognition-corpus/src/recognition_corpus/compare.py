"""Recognised results against expected ones, field by field, with a readable diff."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from document_extraction import Extraction, NoDocumentFound, extract
from recognition_contract import Document, Warning, to_wire, warnings_to_wire
from recognition_corpus.layout import Expected, Layout
from recognition_corpus.readback import read_grids
from recognition_corpus.writers import write


def _warnings(items: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    # Messages are free Russian text for analysts: compared for presence, not wording.
    return sorted(
        (w["code"], w["severity"], json.dumps(w.get("locator"), sort_keys=True, ensure_ascii=False))
        for w in items
    )


def normalise(result: Expected) -> dict[str, Any]:
    data = result.as_dict()
    data["warnings"] = _warnings(data["warnings"])
    data["documents"] = [{**d, "warnings": _warnings(d["warnings"])} for d in data["documents"]]
    return data


def expected_of(
    status: str, group_schema: str, documents: Iterable[Document], warnings: Iterable[Warning]
) -> Expected:
    """Typed documents in the form the corpus keeps expectations: the contract's 2.x JSON."""
    return Expected(
        status,
        group_schema,
        [to_wire(document, 2) for document in documents],
        warnings_to_wire(warnings, 2),
    )


def from_extraction(extraction: Extraction) -> Expected:
    return expected_of(
        extraction.status, extraction.group_schema, extraction.documents, extraction.warnings
    )


def differences(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Every differing leaf as 'path: expected != actual'."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[str] = []
        for key in sorted(set(expected) | set(actual), key=str):
            if key not in actual:
                out.append(f"{path}.{key}: missing")
            elif key not in expected:
                out.append(f"{path}.{key}: unexpected {actual[key]!r}")
            else:
                out += differences(expected[key], actual[key], f"{path}.{key}")
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        out = []
        if len(expected) != len(actual):
            out.append(f"{path}: {len(expected)} items expected, {len(actual)} found")
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            out += differences(e, a, f"{path}[{i}]")
        return out
    if expected != actual or (
        type(expected) is not type(actual)
        and not (isinstance(expected, int | float) and isinstance(actual, int | float))
    ):
        return [f"{path}: expected {expected!r}, found {actual!r}"]
    return []


def recognise(path: Path) -> Expected:
    try:
        return from_extraction(extract(read_grids(path)))
    except NoDocumentFound:
        return Expected("error", "unknown", [], [], error="RECOGNITION_FAILED")


def check_layout(layout: Layout, fmt: str, directory: Path) -> list[str] | None:
    """Write, read back, recognise and compare; None when the layout needs a reader feature that
    this format's reader lacks; otherwise the differences (empty: exact match)."""
    # calamine exposes neither number formats nor outline levels; for XLSX the sheet XML does.
    rich = fmt == "xlsx"
    expected = layout.expected_for(formats=rich, outlines=rich)
    if expected is None:
        return None
    path = directory / f"{layout.name}.{fmt}"
    write(layout, path, fmt)
    actual = recognise(path)
    return differences(normalise(expected), normalise(actual))
