"""The pieces on their own: OCR look-alike repairs, Tesseract's TSV, deskew, ruling lines."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from scan_gateway.deskew import estimate_angle
from scan_gateway.grid_from_words import _amount_spacing
from scan_gateway.lines import find_rules
from scan_gateway.ocr_repair import repair_word, repair_words
from scan_gateway.tesseract import parse_hocr
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
        ("39:27", "39,27"),  # a comma read as a colon: no clock shows 39:27
        ("1250:00", "1250,00"),
        ("12:50", "12:50"),  # a time of day may be meant
        ("08:21:18", "08:21:18"),
        ("90:1", "90.1"),  # an account's code: one digit after the colon, no clock's
        ("41:1.2", "41.1.2"),
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


def test_hocr_words_with_boxes_confidences_and_characters() -> None:
    hocr = (
        "<html><body><div class='ocr_page' title='bbox 0 0 2339 1654'>"
        "<span class='ocr_line' title='bbox 100 200 400 220'>"
        "<span class='ocrx_word' title='bbox 100 200 150 220; x_wconf 96'>"
        "<span class='ocrx_cinfo' title='x_bboxes 100 200 120 220; x_conf 99'>1</span>"
        "<span class='ocrx_cinfo' title='x_bboxes 130 200 150 220; x_conf 98'>0</span>"
        "</span>"
        "<span class='ocrx_word' title='bbox 300 200 380 220; x_wconf 88'>"
        "<span class='ocrx_cinfo' title='x_bboxes 300 200 340 220; x_conf 90'>&lt;</span>"
        "<span class='ocrx_cinfo' title='x_bboxes 345 200 380 220; x_conf 90'>&amp;</span>"
        "</span>"
        "<span class='ocrx_word' title='bbox 400 200 410 220; x_wconf 95'> </span>"
        # A speck before a word read as a blank character: not part of the word or its box.
        "<span class='ocrx_word' title='bbox 420 200 460 220; x_wconf 60'>"
        "<span class='ocrx_cinfo' title='x_bboxes 420 200 421 220; x_conf 89'> </span>"
        "<span class='ocrx_cinfo' title='x_bboxes 430 200 440 220; x_conf 99'>1</span>"
        "<span class='ocrx_cinfo' title='x_bboxes 445 200 460 220; x_conf 99'>9</span>"
        "</span>"
        "<span class='ocrx_word' title='bbox 500 200 560 220; x_wconf 91'>Итого</span>"
        "</span></div></body></html>"
    )
    assert parse_hocr(hocr) == [
        Word("10", 100, 200, 150, 220, 96.0, chars=((100, 120), (130, 150))),
        Word("<&", 300, 200, 380, 220, 88.0, chars=((300, 340), (345, 380))),
        Word("19", 430, 200, 460, 220, 60.0, chars=((430, 440), (445, 460))),
        # Without characters' boxes (an older tesseract) the word is whole, with none.
        Word("Итого", 500, 200, 560, 220, 91.0),
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


@pytest.mark.parametrize(
    "hocr",
    [
        "",
        "<span class='ocrx_word' title='bbox 1 2 3 4; x_wconf 90'><span class='ocrx_cinfo'",
        "<span class='ocrx_word' title='bbox x y 3 4'>Итого</span>",
        "<span class='ocrx_word' title='bbox 1 2 3 4'>&#xZZ;<b></span></span></div>",
        "<<<>>> </span> \x00 <span class='ocrx_cinfo' title='x_bboxes 1 2 3 4'>1</span>",
    ],
)
def test_hocr_cut_short_or_garbled_gives_what_it_can_and_never_raises(hocr: str) -> None:
    words = parse_hocr(hocr)
    assert all(w.text.strip() and w.x1 >= w.x0 for w in words)
    assert not any(w.text == "Итого" for w in words)  # a word without a readable box is none
