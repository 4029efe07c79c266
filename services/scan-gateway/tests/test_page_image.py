"""Cleaning a page before OCR, on photos and scans made here from corpus layouts: the sheet
found on the desk, the desk's edge never a rule, light evened out, small text enlarged, a
scanned PDF page read at its own resolution, and a photographed trial balance recognised."""

from __future__ import annotations

import random

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from recognition_contract import FileType, TrialBalance
from recognition_corpus import Layout, expected_of, generate
from recognition_corpus.axes import WITHOUT_STRUCTURE_AXES, generate_axes
from recognition_corpus.compare_pages import field_accuracy
from recognition_corpus.printing import print_setup
from recognition_corpus.render_pdf import page_expected, render_pdf
from recognition_corpus.render_scan import (
    PhotoStyle,
    ScanStyle,
    encode,
    image_pdf,
    page_images,
    photograph,
)
from scan_gateway import testing
from scan_gateway.images import ocr_page, open_image
from scan_gateway.limits import ScanLimits
from scan_gateway.lines import find_rules
from scan_gateway.ocr import EngineConfig, make_engine
from scan_gateway.page_image import (
    MAX_ENLARGE,
    MAX_OCR_PIXELS,
    OCR_TEXT_HEIGHT,
    cut_out_page,
    flatten_illumination,
    page_area,
    text_height,
    to_ocr_resolution,
)
from scan_gateway.recognize import _open_pdf, _render, recognize
from scan_gateway.words import Rule

pytestmark = pytest.mark.timeout(120)

Gray = npt.NDArray[np.uint8]

RULED = generate(seed=31, per_family=1, families=["osv-by"])[0]
UNRULED = generate(seed=31, per_family=1, families=["osv-account"])[0]


def _pdf(layout: Layout, *, ruled: bool) -> bytes:
    return render_pdf(layout, ruled=ruled).pdf


def _photo(pdf: bytes, seed: int) -> tuple[Gray, PhotoStyle]:
    style = PhotoStyle.draw(random.Random(seed))
    return np.asarray(photograph(pdf, style, seed=seed)[0]), style


def _true_corners(pdf: bytes, style: PhotoStyle) -> npt.NDArray[np.float64]:
    """Where ``photograph`` puts the page's corners: moved for the perspective, then turned
    about the centre of the canvas with the desk around it."""
    width, height = page_images(pdf, ScanStyle.clean(style.dpi))[0].size
    margin_x, margin_y = int(style.border * width), int(style.border * height)
    moved = [
        [margin_x + (x + dx) * width, margin_y + (y + dy) * height, 1.0]
        for (x, y), (dx, dy) in zip(((0, 0), (1, 0), (1, 1), (0, 1)), style.corners, strict=True)
    ]
    centre = ((width + 2 * margin_x) / 2, (height + 2 * margin_y) / 2)
    turn = cv2.getRotationMatrix2D(centre, style.angle, 1.0)
    return np.asarray(moved) @ turn.T


@pytest.mark.parametrize("seed", [3, 8, 13, 21])
def test_the_sheet_is_found_within_a_few_pixels_of_its_corners(seed: int) -> None:
    pdf = _pdf(UNRULED, ruled=False)
    photo, style = _photo(pdf, seed)
    corners = page_area(photo)
    assert corners is not None
    # A 200-dpi photo about 2600 pixels wide: the edges are blurred over several pixels.
    assert np.abs(corners - _true_corners(pdf, style)).max() <= 8.0


def test_a_scan_with_no_desk_around_it_is_left_as_it_is() -> None:
    scan = page_images(_pdf(RULED, ruled=True), ScanStyle(dpi=200, angle=1.2, noise=6.0))[0]
    assert page_area(np.asarray(scan)) is None


def _away_from_the_edges(rules: list[Rule], image: Gray) -> bool:
    """Every rule short and inside the page, as the one drawn line of this layout (its
    signature line) is; a sheet's edge runs along a side, across most of the page."""
    rows, columns = image.shape
    for rule in rules:
        across, along = (rows, columns) if rule.orientation == "h" else (columns, rows)
        inside = 0.05 * across < rule.position < 0.95 * across
        if not inside or rule.end - rule.start > along / 4:
            return False
    return True


def test_the_desk_and_the_edge_of_the_sheet_are_not_rules() -> None:
    photo, _ = _photo(_pdf(UNRULED, ruled=False), 5)
    rules, _ = find_rules(photo)
    assert len(rules) <= 1 and _away_from_the_edges(rules, photo)
    corners = page_area(photo)
    assert corners is not None
    page = flatten_illumination(cut_out_page(photo, corners))
    rules, _ = find_rules(page)
    assert len(rules) <= 1 and _away_from_the_edges(rules, page)


def test_the_borders_of_a_photographed_table_are_still_rules() -> None:
    photo, _ = _photo(_pdf(RULED, ruled=True), 5)
    corners = page_area(photo)
    assert corners is not None
    rules, _ = find_rules(flatten_illumination(cut_out_page(photo, corners)))
    horizontal = [r for r in rules if r.orientation == "h"]
    vertical = [r for r in rules if r.orientation == "v"]
    # One border per table row and per column, and none at the sheet's edges.
    assert len({round(r.position / 10) for r in horizontal}) >= 5
    assert len({round(r.position / 10) for r in vertical}) >= 3


def test_light_and_shadow_are_evened_out() -> None:
    pdf = _pdf(UNRULED, ruled=False)
    photo, style = _photo(pdf, 16)
    assert style.shadow > 0.2 and style.light > 0.2
    corners = page_area(photo)
    assert corners is not None
    page = cut_out_page(photo, corners)
    flat = flatten_illumination(page)

    def paper_levels(image: Gray) -> list[float]:
        rows, columns = image.shape
        return [
            float(np.percentile(image[r : r + rows // 4, c : c + columns // 4], 90))
            for r in range(0, rows - rows // 4 + 1, rows // 4)
            for c in range(0, columns - columns // 4 + 1, columns // 4)
        ]

    assert max(paper_levels(page)) - min(paper_levels(page)) > 30
    assert max(paper_levels(flat)) - min(paper_levels(flat)) < 8
    assert min(paper_levels(flat)) > 240


def test_small_text_is_enlarged_to_the_height_ocr_reads_best() -> None:
    scan = np.asarray(page_images(_pdf(RULED, ruled=True), ScanStyle(dpi=150, noise=4.0))[0])
    small = text_height(scan)
    assert small is not None and small < OCR_TEXT_HEIGHT
    enlarged, dpi = to_ocr_resolution(scan, 150.0)
    assert dpi == pytest.approx(150.0 * enlarged.shape[1] / scan.shape[1], rel=0.01)
    assert text_height(enlarged) == pytest.approx(OCR_TEXT_HEIGHT, abs=2)
    # Text already that large is left alone.
    same, same_dpi = to_ocr_resolution(enlarged, dpi)
    assert same is enlarged and same_dpi == dpi


def test_a_large_page_of_tiny_text_is_enlarged_no_more_than_ocr_reads_in_time() -> None:
    # 3,000 x 3,000 px of letters 6 px high: threefold would make 81 Mpx.
    page = np.full((3000, 3000), 255, dtype=np.uint8)
    for y in range(20, 2980, 14):
        for x in range(20, 2980, 9):
            page[y : y + 6, x : x + 4] = 0
    small = text_height(page)
    assert small is not None and small < OCR_TEXT_HEIGHT / MAX_ENLARGE * 1.2
    enlarged, dpi = to_ocr_resolution(page, 100.0)
    assert enlarged.size <= MAX_OCR_PIXELS
    assert enlarged.shape[0] > page.shape[0] and dpi > 100.0


def test_a_scanned_pdf_page_is_read_at_the_scanners_resolution() -> None:
    scans = page_images(_pdf(RULED, ruled=True), ScanStyle(dpi=300, noise=4.0))
    document = _open_pdf(image_pdf(scans), ScanLimits(render_dpi=200))
    try:
        image = _render(document[0], 1, ScanLimits(render_dpi=200))
    finally:
        document.close()
    assert image.size == scans[0].size
    assert image.info["dpi"][0] == pytest.approx(300, abs=1)


def test_a_drawn_pdf_page_is_rendered_at_the_configured_resolution() -> None:
    rendering = render_pdf(RULED, ruled=True)
    document = _open_pdf(rendering.pdf, ScanLimits())
    try:
        width, height = document[0].get_size()
        image = _render(document[0], 1, ScanLimits())
    finally:
        document.close()
    assert image.info["dpi"] == (300, 300)
    assert image.size[0] == pytest.approx(width * 300 / 72, abs=1)
    assert image.size[1] == pytest.approx(height * 300 / 72, abs=1)


def test_a_photographed_trial_balance_is_recognised() -> None:
    rendering = render_pdf(RULED, ruled=True)
    expected = page_expected(RULED, rendering)
    assert expected is not None
    # Grey paper in a strong shadow, light falling off across it: 91.6 % of the fields.
    style = PhotoStyle.draw(random.Random(32))
    assert style.shadow > 0.2
    photo = photograph(rendering.pdf, style, seed=32)[0]
    data = encode(photo, "JPG", quality=style.jpeg_quality)
    assert open_image(data, 10**8).size == photo.size
    recognition = recognize(ScanLimits(), EngineConfig(), FileType.JPG, data, "photo.jpg")
    (document,) = recognition.documents
    assert isinstance(document, TrialBalance)
    actual = expected_of(
        recognition.status, recognition.group_schema, recognition.documents, recognition.warnings
    )
    good, total = field_accuracy(expected, actual)
    assert good / total >= 0.88


def test_a_photographed_page_with_only_the_signatures_reads_as_its_words_not_its_grain() -> None:
    # The last page of a trial balance photographed onto two pages: two lines on a sheet of
    # grainy grey paper. OCR took the grain for text (thousands of specks, over two minutes
    # for the page, and the file ended in TIMEOUT) until the grain was made white.
    # The layout as it was found: without the structure axes drawn since (they add rows).
    (layout,) = generate_axes(4242, 109, fixed=WITHOUT_STRUCTURE_AXES)[108:]
    (photo,) = testing.printed([(layout, print_setup(4242, 108))], ["photo"])
    assert photo.pages == 2
    document = _open_pdf(photo.data, ScanLimits())
    try:
        image = _render(document[1], 2, ScanLimits())
    finally:
        document.close()
    words = [w.text for w in ocr_page(image, 2, make_engine(EngineConfig())).words]
    assert "Руководитель" in words
    assert len(words) <= 10, words
