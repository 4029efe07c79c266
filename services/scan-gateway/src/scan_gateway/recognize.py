"""The recognizer of scan-gateway: PDF, PNG or JPG bytes -> documents. Runs in the worker's
sandboxed child process, so it is a pure module-level function of picklable arguments."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from document_extraction import BBox, Grid, NoDocumentFound, extract
from recognition_contract import (
    Document,
    ErrorCode,
    FileType,
    Severity,
    Statement,
    Transaction,
    TrialBalanceRow,
    Warning,
)
from recognition_worker import Recognition, RecognitionError
from scan_gateway.grid_from_words import PageGrid, build_page_grid
from scan_gateway.images import ocr_page, open_image
from scan_gateway.inflation import check_inflation
from scan_gateway.limits import ScanLimits
from scan_gateway.ocr import (
    EngineConfig,
    OcrEngine,
    OcrError,
    OcrTimeout,
    OcrUnavailable,
    make_engine,
)
from scan_gateway.page_views import page_views, render_view
from scan_gateway.pages import assemble, has_header, relocate
from scan_gateway.raw import RAW_NAME, raw_words
from scan_gateway.sniff import Kind, sniff
from scan_gateway.words import PageWords

# A missed column gap on one OCR line (two cells read as one phrase) must not erase a
# column: a gap may be bridged by this share of the table's lines.
OCR_GAP_TOLERANCE = 0.06
# How much wider or narrower one page's photo may come out than the page before it.
MAX_PAGE_SCALE = 1.25


def recognize(
    limits: ScanLimits,
    engine: EngineConfig,
    file_type: FileType,
    source: bytes,
    original_name: str,
) -> Recognition:
    """``RecognitionError`` codes: INVALID_FORMAT (empty, or not a PDF or image), UNREADABLE
    (damaged, encrypted, over the limits), INVALID_DOCUMENT (no text on any page), TIMEOUT
    (the OCR engine took too long), RECOGNITION_FAILED (the engine is unreachable or failed,
    or the text holds neither a trial balance nor a statement)."""
    if not source:
        raise RecognitionError(ErrorCode.INVALID_FORMAT, "the file is empty (0 bytes)")
    kind = sniff(source)
    if kind is None:
        raise RecognitionError(
            ErrorCode.INVALID_FORMAT, f"«{original_name}» is neither a PDF nor a PNG or JPG image"
        )
    warnings: list[Warning] = []
    if kind.value != file_type.value:
        warnings.append(
            Warning(
                code="FILE_TYPE_MISMATCH",
                severity=Severity.INFO,
                message=f"Файл «{original_name}» объявлен как {file_type.value}, "
                f"а по содержимому это {kind.value}",
            )
        )
    with _ocr_errors():
        lazy = _LazyEngine(engine)
        if kind is Kind.PDF:
            pages = read_pdf(source, limits, lazy)
        else:
            pages = [ocr_page(open_image(source, limits.max_image_pixels), 1, lazy)]
    return recognize_pages(pages, limits, warnings)


def recognize_pages(
    pages: list[PageWords], limits: ScanLimits, warnings: Sequence[Warning] = ()
) -> Recognition:
    """Words of every page into documents, with their locators on the pages."""
    if not any(page.words for page in pages):
        raise RecognitionError(ErrorCode.INVALID_DOCUMENT, "no text was found on any page")
    grids: list[PageGrid] = []
    for k, page in enumerate(pages):
        tolerance = OCR_GAP_TOLERANCE if page.source == "ocr" else 0.0
        grid = build_page_grid(page, gap_tolerance=tolerance)
        previous = grids[-1] if grids else None
        if previous is not None and previous.gaps and grid.gaps:
            # The table goes on from the page before: its columns are the same, in the
            # page's own scale (each photo's sheet is cut out and enlarged on its own, a few
            # per cent larger or smaller; a page far wider or narrower was not cut out so).
            scale = page.width / pages[k - 1].width if page.source == "ocr" else 1.0
            if not 1 / MAX_PAGE_SCALE <= scale <= MAX_PAGE_SCALE:
                scale = 1.0
            gaps = [(a * scale, b * scale) for a, b in previous.gaps]
            # A page that prints the header again is read with its own columns, unless the
            # page before found each of them and more (a page of few rows, or of rows whose
            # leading numbers OCR read together, hides a narrow column).
            if not has_header(grid) or _more_of_the_same(gaps, grid.gaps):
                grid = build_page_grid(page, gap_tolerance=tolerance, gaps=gaps)
        grids.append(grid)
    assembled = assemble(grids)
    try:
        extraction = extract(assembled.grids)
    except NoDocumentFound as exc:
        raise RecognitionError(ErrorCode.RECOGNITION_FAILED, exc.reason) from None
    status = extraction.status
    documents = list(extraction.documents)
    ocr_pages = sum(page.source == "ocr" for page in pages)
    if len(documents) == len(assembled.documents):
        placed: list[Document] = []
        for document, index in zip(documents, assembled.documents, strict=True):
            joined = assembled.grids[index]
            flagged = _low_confidence_rows(document, joined, limits.min_row_confidence)
            if flagged:
                document = replace(document, warnings=document.warnings + flagged)
                status = "needs_check"
            placed.append(relocate(document, assembled.origins[index], assembled.pages[index]))
        documents = placed
    return Recognition(
        documents=documents,
        group_schema=extraction.group_schema,
        status=status,
        warnings=[*warnings, *extraction.warnings],
        metrics={"pages": len(pages), "ocr_pages": ocr_pages},
        raw={RAW_NAME: raw_words(pages), **page_views(pages)},
    )


def _more_of_the_same(
    before: Sequence[tuple[float, float]], own: Sequence[tuple[float, float]]
) -> bool:
    """``before`` has more column gaps than ``own``, and one where each of ``own`` is."""
    return len(before) > len(own) and all(any(a <= y and x <= b for a, b in before) for x, y in own)


def _low_confidence_rows(document: Document, grid: Grid, threshold: float) -> tuple[Warning, ...]:
    """One warning per OCR row read with low confidence, pointing at its least sure cell: its
    box on the page, what was read there and how sure the reading was. Nothing is changed."""
    rows: Sequence[TrialBalanceRow | Transaction] = (
        document.transactions if isinstance(document, Statement) else document.rows
    )
    out: list[Warning] = []
    for row in rows:
        if row.confidence >= threshold:
            continue
        locator, message = row.locator, f"Строка распознана неуверенно ({row.confidence})"
        weakest = _weakest_cell(grid, row.locator.row, row.confidence)
        if weakest is not None:
            text, confidence, box = weakest
            locator = locator._replace(bbox=box)
            message += f": «{text}» прочитано с уверенностью {confidence:.0f}"
        out.append(
            Warning(
                code="LOW_CONFIDENCE_ROW",
                severity=Severity.WARNING,
                message=f"{message}; сверьте с изображением",
                locator=locator,
            )
        )
    return tuple(out)


# Row confidences are rounded to tenths.
CONFIDENCE_ROUNDING = 0.05


def _weakest_cell(
    grid: Grid, row: int | None, confidence: float
) -> tuple[str, float, BBox | None] | None:
    """The cell of a grid row (1-based) read with the lowest OCR confidence that still counts
    in the row's ``confidence`` (cells read less surely may be amounts the document's
    arithmetic confirmed)."""
    if row is None or grid.cell_confidence is None or not 1 <= row <= len(grid.rows):
        return None
    confidences = grid.cell_confidence[row - 1]
    cells = [
        (value, column)
        for column, value in enumerate(confidences)
        if value is not None
        and column < len(grid.rows[row - 1])
        and value >= confidence - CONFIDENCE_ROUNDING
    ]
    if not cells:
        return None
    confidence, column = min(cells)
    text = grid.rows[row - 1][column]
    boxes = grid.cell_boxes[row - 1] if grid.cell_boxes is not None else []
    box = boxes[column] if column < len(boxes) else None
    return (str(text) if text is not None else "", confidence, box)


class _LazyEngine:
    """Builds the engine on the first page that needs OCR: a text PDF needs none, and a
    missing tesseract must not fail it."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self._engine: OcrEngine | None = None

    def recognize(self, image: Any) -> Any:
        if self._engine is None:
            self._engine = make_engine(self.config)
        return self._engine.recognize(image)


@contextmanager
def _ocr_errors() -> Iterator[None]:
    try:
        yield
    except OcrTimeout as exc:
        raise RecognitionError(ErrorCode.TIMEOUT, str(exc)) from None
    except OcrUnavailable as exc:
        raise RecognitionError(ErrorCode.RECOGNITION_FAILED, str(exc)) from None
    except OcrError as exc:
        raise RecognitionError(ErrorCode.RECOGNITION_FAILED, f"OCR failed: {exc}") from None


def read_pdf(source: bytes, limits: ScanLimits, engine: OcrEngine) -> list[PageWords]:
    """Every page's words: from the text layer where there is one, by OCR of the rendered
    page where there is not."""
    import pdfplumber
    import pypdfium2 as pdfium

    from scan_gateway.pdf_text import has_text, page_words

    check_inflation(source, limits.max_inflated_bytes)
    document = _open_pdf(source, limits)
    pages: list[PageWords] = []
    try:
        with pdfplumber.open(io.BytesIO(source)) as plumber:
            for index, page in enumerate(plumber.pages):
                number = index + 1
                if has_text(page):
                    words = page_words(page, number)
                    words.view = render_view(document[index])
                    pages.append(words)
                else:
                    image = _render(document[index], number, limits)
                    pages.append(ocr_page(image, number, engine))
                page.close()
    except RecognitionError:
        raise
    except (OcrError, MemoryError):
        raise
    except pdfium.PdfiumError as exc:
        raise RecognitionError(
            ErrorCode.UNREADABLE, f"a PDF page cannot be rendered: {exc}"
        ) from None
    except Exception as exc:
        # pdfminer raises its own zoo of errors on damaged content streams.
        raise RecognitionError(
            ErrorCode.UNREADABLE, f"the PDF is damaged: {type(exc).__name__}: {exc}"[:300]
        ) from None
    finally:
        document.close()
    return pages


def _open_pdf(source: bytes, limits: ScanLimits) -> Any:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(source)
    except pdfium.PdfiumError as exc:
        text = str(exc).lower()
        if "password" in text:
            raise RecognitionError(
                ErrorCode.PASSWORD_PROTECTED, "the PDF is password-protected"
            ) from None
        raise RecognitionError(ErrorCode.UNREADABLE, f"the PDF is damaged: {exc}") from None
    count = len(document)
    if count == 0:
        document.close()
        raise RecognitionError(ErrorCode.INVALID_DOCUMENT, "the PDF has no pages")
    if count > limits.max_pages:
        document.close()
        raise RecognitionError(
            ErrorCode.UNREADABLE,
            f"the PDF has {count} pages, more than the {limits.max_pages} this service reads",
        )
    return document


def _render(page: Any, number: int, limits: ScanLimits) -> Any:
    """The page as a grayscale image for OCR: a scanned page is its own image, at the
    scanner's resolution (rendering would resample it once more, and blur it); any other
    page is rendered at ``limits.render_dpi``."""
    from scan_gateway.images import scanned_page

    width, height = page.get_size()
    scanned = scanned_page(page, number, limits.max_image_pixels)
    if scanned is not None:
        return scanned
    scale = limits.render_dpi / 72
    pixels = int(width * scale) * int(height * scale)
    if pixels > limits.max_image_pixels:
        raise RecognitionError(
            ErrorCode.UNREADABLE,
            f"page {number} is {width:.0f}x{height:.0f} pt: at {limits.render_dpi} dpi that is "
            f"more than the {limits.max_image_pixels} pixels allowed",
        )
    image = page.render(scale=scale, grayscale=True).to_pil().convert("L")
    image.info["dpi"] = (limits.render_dpi, limits.render_dpi)
    return image
