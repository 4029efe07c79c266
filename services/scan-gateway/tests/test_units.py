"""The pieces on their own: OCR look-alike repairs, Tesseract's TSV, deskew, ruling lines."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from scan_gateway.deskew import estimate_angle
from scan_gateway.grid_from_words import _amount_spacing
from scan_gateway.lines import find_rules
from scan_gateway.ocr_repair import repair_word, repair_words
from scan_gateway.tesseract import parse_tsv
from scan_gateway.words import Word


@pytest.mark.parametrize(
    ("text", "repaired"),
    [
        ("12О 345,6O", "12О 345,6O"),  # two phrases' worth of letters in one word: no
        ("345,6O", "345,60"),
        ("2O25", "2025"),
        ("6O.01", "60.01"),
        ("BYO4ALFA3O123545091410193300", "BY04ALFA30123545091410193300"),
        ("BPSBBY2X", "BPSBBY2X"),  # a BIC: letters, never digits
        ("Итого", "Итого"),
        ("O", "O"),  # no digit beside it: nothing says it is a number
        ("1OO", "1OO"),  # more look-alikes than digits would invent a number
    ],
)
def test_lookalikes_are_repaired_only_where_unambiguous(text: str, repaired: str) -> None:
    word = repair_word(Word(text, 0, 0, 10, 10, 95.0))
    assert word.text == repaired
    if repaired != text:
        assert word.confidence is not None and word.confidence <= 75
    else:
        assert word.confidence == 95.0


def test_lookalikes_in_words_of_a_cyrillic_page_are_cyrillic() -> None:
    texts = ["OOO", "«Альфа»", "Дeбет", "0бороты", "BY86AKBB30120000000000000000", "BYN", "345,6O"]
    words = repair_words([Word(text, 0, 0, 10, 10, 95.0) for text in texts])
    assert [w.text for w in words] == [
        "ООО", "«Альфа»", "Дебет", "обороты", "BY86AKBB30120000000000000000", "BYN", "345,60",
    ]  # fmt: skip
    # A look-alike spelled otherwise is the same glyph: only digits repaired cost confidence.
    assert [w.confidence for w in words] == [95.0] * 6 + [75.0]


def test_lookalike_words_of_a_latin_page_stay_latin() -> None:
    words = repair_words([Word(text, 0, 0, 10, 10, 95.0) for text in ["OOO", "Amount", "Date"]])
    assert [w.text for w in words] == ["OOO", "Amount", "Date"]


def test_spaces_inside_one_ocr_amount_carry_no_digits() -> None:
    assert _amount_spacing("2160 681,17") == "2160681,17"
    assert _amount_spacing("-1 234,00") == "-1234,00"
    assert _amount_spacing("ООО «Ромашка» 12") == "ООО «Ромашка» 12"


def test_tsv_words_with_boxes_and_confidences() -> None:
    tsv = (
        "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
        "1\t1\t0\t0\t0\t0\t0\t0\t2339\t1654\t-1\t\n"
        "5\t1\t1\t1\t1\t1\t100\t200\t50\t20\t96.5\tИтого\n"
        "5\t1\t1\t1\t1\t2\t300\t200\t80\t20\t88\t1 234,56\n"
        "5\t1\t1\t1\t1\t3\t400\t200\t10\t20\t95\t \n"
    )
    assert parse_tsv(tsv) == [
        Word("Итого", 100, 200, 150, 220, 96.5),
        Word("1 234,56", 300, 200, 380, 220, 88.0),
    ]


def _page(angle: float) -> np.ndarray:
    image = Image.new("L", (1200, 900), 255)
    draw = ImageDraw.Draw(image)
    for row in range(12):
        y = 80 + row * 60
        draw.line((60, y, 1140, y), fill=0, width=2)
        for col in range(8):
            draw.rectangle((80 + col * 130, y + 20, 160 + col * 130, y + 36), fill=0)
    return np.asarray(image.rotate(angle, fillcolor=255, resample=Image.Resampling.BICUBIC))


@pytest.mark.parametrize("angle", [-1.8, -0.7, 0.0, 1.2, 2.0])
def test_deskew_finds_the_turn_that_straightens_the_page(angle: float) -> None:
    assert estimate_angle(_page(angle)) == pytest.approx(-angle, abs=0.1)


def test_ruling_lines_are_found_and_erased() -> None:
    # An A4 landscape page at 200 dpi with text at 9 pt, as the gateway sees a scan.
    image = Image.new("L", (2339, 1654), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 25)
    for y in (100, 200, 300):
        draw.line((50, y, 1950, y), fill=0, width=2)
    for x in (50, 1000, 1950):
        draw.line((x, 100, x, 300), fill=0, width=2)
    draw.text((70, 135), "Итого 1 234 567,89 Расчеты с поставщиками", fill=0, font=font)
    rules, cleaned = find_rules(np.asarray(image))
    horizontal = sorted(round(r.position) for r in rules if r.orientation == "h")
    vertical = sorted(round(r.position) for r in rules if r.orientation == "v")
    assert [round(h / 10) for h in horizontal] == [10, 20, 30]
    assert [round(v / 10) for v in vertical] == [5, 100, 195]
    assert cleaned[200, 300] == 255 and cleaned[250, 1000] == 255
    # The text is left for OCR.
    assert (cleaned[135:170, 65:400] < 128).any()
