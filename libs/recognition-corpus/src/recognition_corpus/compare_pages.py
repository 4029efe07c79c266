"""Documents recognised from pages against the expected ones, field by field.

Locator boxes and confidences are what a page reader measures, not what a layout states:
both are left out; everything else (values, hierarchy, page and line of every row, warning
codes with their page and line) must match. Pages printed by another program (``locators=
False``) are compared without any locator: where a row lands on the page is the printer's
choice, the values and warning codes are the document's.
"""

from __future__ import annotations

import copy
from typing import Any

from recognition_corpus.compare import differences, normalise
from recognition_corpus.layout import Expected


def _strip(result: Expected, *, locators: bool = True) -> dict[str, Any]:
    data = copy.deepcopy(result)

    def place(item: dict[str, Any]) -> None:
        if not locators:
            item.pop("locator", None)
        elif item.get("locator"):
            item["locator"].pop("bbox", None)

    for item in data.warnings:
        place(item)
    for document in data.documents:
        document.pop("confidence", None)
        place(document)
        for item in document.get("warnings", []):
            place(item)
        for key in ("rows", "transactions"):
            for row in document.get(key) or []:
                row.pop("confidence", None)
                place(row)
        if document.get("totals"):
            place(document["totals"])
    return normalise(data)


def page_differences(expected: Expected, actual: Expected, *, locators: bool = True) -> list[str]:
    return differences(_strip(expected, locators=locators), _strip(actual, locators=locators))


def field_accuracy(
    expected: Expected, actual: Expected, *, locators: bool = True
) -> tuple[int, int]:
    """(matching, total) leaf fields of the expected documents: the share of what a person
    would not have to correct. A missing document or row counts all its fields as wrong."""
    want = _strip(expected, locators=locators)
    got = _strip(actual, locators=locators)
    total = _count(want["documents"])
    wrong = 0
    for e_doc, a_doc in zip(want["documents"], got["documents"], strict=False):
        wrong += len(differences_in(e_doc, a_doc))
    missing = want["documents"][len(got["documents"]) :]
    wrong += _count(missing)
    return max(0, total - wrong), total


def differences_in(expected: Any, actual: Any) -> list[str]:
    """Differing expected leaves (extra items in ``actual`` are not counted: they cost no
    expected field)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return ["."] * _count(expected)
        out: list[str] = []
        for key, value in expected.items():
            if key == "warnings":
                continue
            out += (
                differences_in(value, actual.get(key)) if key in actual else ["."] * _count(value)
            )
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return ["."] * _count(expected)
        out = []
        for i, item in enumerate(expected):
            out += differences_in(item, actual[i]) if i < len(actual) else ["."] * _count(item)
        return out
    return [] if expected == actual else ["."]


def _count(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_count(v) for k, v in value.items() if k != "warnings")
    if isinstance(value, list):
        return sum(_count(v) for v in value)
    return 1
