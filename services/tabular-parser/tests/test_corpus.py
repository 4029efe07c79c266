"""The layouts of the test corpus (recognition-corpus), written as XLSX, XLS and XLSB and
recognised by the service's own recognizer, against the documents each layout expects."""

from __future__ import annotations

from pathlib import Path

import pytest

from recognition_contract import ErrorCode, FileType
from recognition_corpus import Layout, differences, expected_of, generate, normalise, write
from recognition_corpus.axes import generate_axes
from recognition_corpus.layout import Expected
from recognition_worker import RecognitionError
from tabular_parser.limits import WorkbookLimits
from tabular_parser.recognize import recognize

# The families, and layouts whose every axis is drawn on its own (a test seed: the accuracy
# benchmark's seed is never used by a test).
LAYOUTS = generate(seed=7, per_family=1) + generate_axes(seed=31, count=40)


def _through_the_service(path: Path, fmt: str) -> Expected:
    try:
        result = recognize(WorkbookLimits(), FileType(fmt.upper()), path.read_bytes(), path.name)
    except RecognitionError as exc:
        return Expected("error", "unknown", [], [], error=exc.code.value)
    return expected_of(result.status, result.group_schema, result.documents, result.warnings)


@pytest.mark.parametrize("fmt", ["xlsx", "xls", "xlsb"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=[layout.name for layout in LAYOUTS])
def test_corpus_layout_is_recognised_exactly(layout: Layout, fmt: str, tmp_path: Path) -> None:
    # Number formats and outline levels come from the sheet XML (XLSX) or the BIFF records
    # (XLS); XLSB gives values only.
    rich = fmt in ("xlsx", "xls")
    expected = layout.expected_for(formats=rich, outlines=rich)
    if expected is None:
        pytest.skip(f"{layout.family} needs what a {fmt} reader cannot see")
    path = tmp_path / f"{layout.name}.{fmt}"
    write(layout, path, fmt)
    actual = _through_the_service(path, fmt)
    if layout.family == "empty-workbook":
        # The corpus names every book without a document RECOGNITION_FAILED; the service
        # tells a book with no data at all apart.
        assert actual.error == ErrorCode.INVALID_DOCUMENT.value
        return
    assert differences(normalise(expected), normalise(actual)) == []
