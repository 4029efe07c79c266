"""Text-layer PDFs of corpus layouts give the same documents as the layouts' workbooks:
every value, hierarchy, warning and page locator (boxes and confidences are measured, not
stated, and left out)."""

from __future__ import annotations

import pytest

from recognition_contract import FileType, Locator, Statement
from recognition_corpus import Layout, expected_of, generate
from recognition_corpus.compare_pages import page_differences
from scan_gateway import testing
from scan_gateway.limits import ScanLimits
from scan_gateway.ocr import EngineConfig
from scan_gateway.recognize import recognize

FAMILIES = [
    "osv-by",
    "osv-ru",
    "osv-general-one-column",
    "osv-quantity-indicator",
    "osv-broken-totals",
    "osv-broken-row",
    "osv-account",
    "osv-account-quantity-rows",
    "statement-prior",
    "statement-belarusbank",
    "statement-two-row-header",
    "statement-signed-amount",
    "statement-currency",
    "statement-broken-balance",
    "statement-broken-unp",
]
CASES = [
    pytest.param(layout, ruled, id=f"{layout.name}-{'ruled' if ruled else 'unruled'}")
    for layout in generate(seed=7, per_family=2, families=FAMILIES)
    for ruled in (True, False)
]


@pytest.mark.parametrize(("layout", "ruled"), CASES)
def test_text_pdf_gives_the_documents_of_the_workbook(layout: Layout, ruled: bool) -> None:
    rendered = testing.text_pdf(layout, ruled=ruled)
    assert rendered is not None
    # Text needs no OCR: an engine that cannot exist proves it is never asked.
    engine = EngineConfig(tesseract_cmd="/nonexistent/tesseract")
    recognition = recognize(ScanLimits(), engine, FileType.PDF, rendered.data, rendered.name)
    actual = expected_of(
        recognition.status,
        recognition.group_schema,
        recognition.documents,
        recognition.warnings,
    )
    assert page_differences(rendered.expected, actual) == []
    rows = [
        row
        for document in recognition.documents
        for row in (document.transactions if isinstance(document, Statement) else document.rows)
    ]
    assert rows and all(row.locator.bbox is not None for row in rows)


def test_a_table_over_two_pages_is_one_document_with_rows_on_both() -> None:
    layouts = generate(seed=0, per_family=1, families=["statement-prior"])
    rendered = testing.text_pdf(layouts[0], ruled=False)
    assert rendered is not None and rendered.pages == 2
    recognition = recognize(ScanLimits(), EngineConfig(), FileType.PDF, rendered.data, "x.pdf")
    (document,) = recognition.documents
    assert isinstance(document, Statement)
    assert document.locator == Locator(page=1, page_end=2)
    pages = {t.locator.page for t in document.transactions}
    assert pages == {1, 2}
    assert recognition.metrics["pages"] == 2
