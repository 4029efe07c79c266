"""Scans of corpus layouts through Tesseract: measured, not exact. Field accuracy is the
share of expected document fields (values, codes, names, hierarchy, page lines) read right;
the thresholds sit below what these scans reach today (see bench/scan_accuracy.py), so a
regression fails and noise does not."""

from __future__ import annotations

import pytest

from recognition_contract import FileType, Severity, Statement, TrialBalance
from recognition_corpus import expected_of, generate
from recognition_corpus.compare_pages import field_accuracy
from scan_gateway import testing
from scan_gateway.limits import ScanLimits
from scan_gateway.ocr import EngineConfig
from scan_gateway.recognize import recognize

pytestmark = pytest.mark.timeout(120)

# One-page layouts (a PNG or JPG is one page); the statement runs over two.
OSV = generate(seed=4, per_family=1, families=["osv-by"])[0]
ACCOUNT = generate(seed=5, per_family=1, families=["osv-account"])[0]
STATEMENT = generate(seed=5, per_family=1, families=["statement-prior"])[0]


def _accuracy(rendered: testing.Rendered) -> float:
    good, total = field_accuracy(rendered.expected, testing.read_back(rendered))
    return good / total


@pytest.mark.parametrize(
    ("layout", "noisy", "file_type", "threshold"),
    [
        (OSV, False, "PNG", 0.97),
        (ACCOUNT, False, "PNG", 0.97),
        (OSV, True, "JPG", 0.92),
    ],
    ids=["osv-clean-png", "account-clean-png", "osv-noisy-jpg"],
)
def test_scan_field_accuracy(layout: object, noisy: bool, file_type: str, threshold: float) -> None:
    rendered = testing.scan(layout, noisy=noisy, file_type=file_type)  # type: ignore[arg-type]
    assert rendered is not None
    assert _accuracy(rendered) >= threshold


def test_image_only_pdf_pages_are_rendered_and_read() -> None:
    rendered = testing.scan(STATEMENT, noisy=False, file_type="PDF")
    assert rendered is not None
    recognition = recognize(ScanLimits(), EngineConfig(), FileType.PDF, rendered.data, "s.pdf")
    assert recognition.metrics["ocr_pages"] == recognition.metrics["pages"] == rendered.pages
    (document,) = recognition.documents
    assert isinstance(document, Statement)
    good, total = field_accuracy(
        rendered.expected,
        expected_of(recognition.status, recognition.group_schema, recognition.documents, []),
    )
    assert good / total >= 0.9


def test_low_confidence_ocr_rows_are_flagged_with_page_and_box() -> None:
    rendered = testing.scan(OSV, noisy=True, file_type="JPG")
    assert rendered is not None
    # Every row is below a threshold of 100: each gets a warning that points at its box.
    recognition = recognize(
        ScanLimits(min_row_confidence=100.1), EngineConfig(), FileType.JPG, rendered.data, "s.jpg"
    )
    assert recognition.status == "needs_check"
    (document,) = recognition.documents
    assert isinstance(document, TrialBalance)
    flagged = [w for w in document.warnings if w.code == "LOW_CONFIDENCE_ROW"]
    assert len(flagged) == len(document.rows)
    for warning, row in zip(flagged, document.rows, strict=True):
        assert warning.severity is Severity.WARNING
        assert warning.locator is not None
        assert warning.locator.page == 1 and warning.locator.bbox is not None
        # The least sure cell of the row: its box inside the row's, its reading named.
        cell, line = warning.locator.bbox, row.locator.bbox
        assert line is not None and warning.locator.row == row.locator.row
        assert line.x0 <= cell.x0 <= cell.x1 <= line.x1 and line.y0 <= cell.y0 <= line.y1
        assert "прочитано с уверенностью" in warning.message
