"""A dash OCR did not read between two words of a line is put back from the page's ink."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from scan_gateway.ocr import EngineConfig, make_engine
from scan_gateway.unread_dashes import with_unread_dashes
from scan_gateway.words import Word

FONT = "/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf"


def _line(text: str) -> tuple[Image.Image, list[Word]]:
    """A line printed at 300 dpi and what Tesseract reads of it, without any dash word:
    the dash as OCR so often leaves it, unread."""
    page = Image.new("L", (1200, 160), 255)
    ImageDraw.Draw(page).text((40, 60), text, fill=0, font=ImageFont.truetype(FONT, 34))
    page.info["dpi"] = (300, 300)
    words = make_engine(EngineConfig()).recognize(page)
    return page, [w for w in words if w.text not in ("-", "–", "—")]


def test_a_hyphen_between_two_dates_that_ocr_did_not_read_is_put_back() -> None:
    page, words = _line("Период: 01.04.2024 - 30.04.2024")
    assert [w.text for w in words] == ["Период:", "01.04.2024", "30.04.2024"]

    found = with_unread_dashes(words, page)

    assert [w.text for w in found] == ["Период:", "01.04.2024", "-", "30.04.2024"]
    dash = found[2]
    assert words[1].x1 < dash.x0 < dash.x1 < words[2].x0
    assert dash.y1 - dash.y0 < (words[1].y1 - words[1].y0) / 3


def _gap_with(shape: tuple[float, float, float, float]) -> tuple[Image.Image, list[Word]]:
    """Two dates with a gap of 120 pixels between them and ``shape`` drawn in the gap: its
    left, top, right, bottom as fractions of the gap's width and of the dates' height."""
    font = ImageFont.truetype(FONT, 34)
    page = Image.new("L", (900, 160), 255)
    draw = ImageDraw.Draw(page)
    _, top, right, bottom = font.getbbox("01.04.2024")
    draw.text((40, 60), "01.04.2024", fill=0, font=font)
    start = 40 + right + 1
    draw.text((start + 120, 60), "30.04.2024", fill=0, font=font)
    x0, y0, x1, y1 = shape
    height = bottom - top
    draw.rectangle(
        (start + x0 * 120, 60 + top + y0 * height, start + x1 * 120, 60 + top + y1 * height),
        fill=0,
    )
    page.info["dpi"] = (300, 300)
    words = make_engine(EngineConfig()).recognize(page)
    return page, [w for w in words if w.text.startswith(("01", "30"))]


def test_a_short_flat_bar_in_the_middle_of_the_gap_is_a_dash() -> None:
    page, words = _gap_with((0.4, 0.5, 0.55, 0.58))
    assert [w.text for w in with_unread_dashes(words, page)] == ["01.04.2024", "-", "30.04.2024"]


def test_ink_in_a_gap_that_is_no_dash_is_left_alone() -> None:
    shapes = {
        "a stroke under the line": (0.4, 0.95, 0.55, 1.0),
        "a speck": (0.45, 0.5, 0.48, 0.55),
        "a long bar": (0.1, 0.5, 0.9, 0.58),
        "a block": (0.4, 0.3, 0.6, 0.8),
    }
    for name, shape in shapes.items():
        page, words = _gap_with(shape)
        assert len(words) == 2, name
        assert with_unread_dashes(words, page) == words, name
