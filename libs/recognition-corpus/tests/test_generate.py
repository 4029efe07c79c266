"""The generator: deterministic, varied, every family present, expected documents valid."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from recognition_contract import validate_result_file
from recognition_corpus import FAMILIES, Layout, generate

MONEY = r"^-?\d+(\.\d{1,2})?$"


def _result(layout: Layout) -> dict[str, Any]:
    expected = layout.expected
    payload: dict[str, Any] = {
        "schema_version": "2.0",
        "job_id": "0f1e2d3c-4b5a-4968-a7b6-c5d4e3f2a1b0",
        "file_id": "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
        "status": expected.status,
        "service": {"name": "tabular-parser", "version": "0.1.0"},
        "group_schema": expected.group_schema,
        "documents": expected.documents,
        "warnings": [{**w, "message": w["message"] or "—"} for w in expected.warnings],
    }
    for document in payload["documents"]:
        document["warnings"] = [{**w, "message": w["message"] or "—"} for w in document["warnings"]]
    if expected.error:
        payload["error"] = {"code": expected.error, "message": "нет документа"}
    return payload


def test_same_seed_same_corpus_other_seed_other_corpus() -> None:
    first = [layout.expected.as_dict() for layout in generate(seed=5, per_family=2)]
    again = [layout.expected.as_dict() for layout in generate(seed=5, per_family=2)]
    other = [layout.expected.as_dict() for layout in generate(seed=6, per_family=2)]
    assert first == again
    assert first != other


def test_every_family_is_generated_with_distinct_variants() -> None:
    layouts = generate(seed=0, per_family=4)
    assert {layout.family for layout in layouts} == set(FAMILIES)
    for family in FAMILIES:
        variants = [json.dumps(lay.expected.as_dict(), sort_keys=True, default=str)
                    for lay in layouts if lay.family == family]  # fmt: skip
        if family not in ("empty-workbook", "no-table"):
            assert len(set(variants)) > 1, family


def test_expected_results_follow_the_contract() -> None:
    for layout in generate(seed=2, per_family=2):
        validate_result_file(_result(layout))


def test_broken_layouts_expect_needs_check_with_located_warnings() -> None:
    for layout in generate(seed=4, per_family=3):
        if "broken" not in layout.family:
            continue
        assert layout.expected.status == "needs_check", layout.name
        warnings = [w for d in layout.expected.documents for w in d["warnings"]]
        assert warnings, layout.name
        assert all(w["locator"] and "row" in w["locator"] for w in warnings), layout.name


def test_failing_layouts_expect_no_document() -> None:
    for layout in generate(seed=0, per_family=1, families=["no-table", "empty-workbook"]):
        assert layout.expected.error == "RECOGNITION_FAILED"
        assert layout.expected.documents == []


def test_cli_writes_files_and_expectations(tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    subprocess.run(
        [sys.executable, "-m", "recognition_corpus", str(out), "--per-family", "1",
         "--formats", "xlsx,xls"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    expected = sorted((out / "expected").glob("*.json"))
    assert len(expected) == len(FAMILIES)
    assert len(list(out.glob("*.xlsx"))) == len(FAMILIES)
    assert len(list(out.glob("*.xls"))) == len(FAMILIES)
    payload = json.loads(expected[0].read_text(encoding="utf-8"))
    assert {"name", "family", "expected", "expected_without_formats"} <= set(payload)
