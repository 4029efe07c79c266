"""Words OCR was unsure of are read a second time on their own (real Tesseract)."""

from __future__ import annotations

from dataclasses import replace

from PIL import Image, ImageDraw, ImageFont

from document_extraction.identifiers import normalize_account
from scan_gateway.ocr import EngineConfig, OcrEngine, make_engine
from scan_gateway.second_reading import DOUBTFUL, TALL, read_again
from scan_gateway.words import Word

FONT = "/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf"


def _page(lines: list[tuple[int, int, str, int]]) -> Image.Image:
    """White page with each (x, y, text, size) drawn in black; 300 dpi."""
    page = Image.new("L", (1400, 400), 255)
    draw = ImageDraw.Draw(page)
    for x, y, text, size in lines:
        draw.text((x, y), text, fill=0, font=ImageFont.truetype(FONT, size))
    page.info["dpi"] = (300, 300)
    return page


class _Counted:
    """Tesseract, counting the pages it is given."""

    def __init__(self, engine: OcrEngine) -> None:
        self.engine = engine
        self.calls = 0
        self.heights: list[int] = []

    def recognize(self, image: Image.Image) -> list[Word]:
        self.calls += 1
        self.heights.append(image.height)
        return self.engine.recognize(image)


def _union(words: list[Word], text: str) -> Word:
    return Word(
        text,
        min(w.x0 for w in words),
        min(w.y0 for w in words),
        max(w.x1 for w in words),
        max(w.y1 for w in words),
        confidence=37.0,
    )


def test_a_wrapped_cells_first_word_read_together_with_the_line_under_it_is_read_again() -> None:
    # "Оплата" with the wrapped cell's short second line right under it: Tesseract may read
    # the two as one tall word ("ее") and lose both.
    page = _page([(40, 100, "Оплата по счету № 44", 30), (40, 138, "20%", 30)])
    engine = make_engine(EngineConfig())
    read = engine.recognize(page)
    by_text = {w.text: w for w in read}
    assert sorted(by_text) == sorted(["Оплата", "по", "счету", "№", "44", "20%"])
    tall = _union([by_text["Оплата"], by_text["20%"]], "ее")
    merged = [tall, *(w for w in read if w.text not in ("Оплата", "20%"))]

    counted = _Counted(engine)
    words = read_again(merged, page, counted)

    assert counted.calls == 1

    assert sorted(w.text for w in words) == sorted(by_text)
    for again in words:
        before = by_text[again.text]
        assert abs(again.x0 - before.x0) <= 3 and abs(again.y0 - before.y0) <= 3
        assert abs(again.x1 - before.x1) <= 3 and abs(again.y1 - before.y1) <= 3


def test_a_wrapped_caption_read_as_one_tall_letter_is_read_again() -> None:
    # "№" over "п/п" in the header's first cell: Tesseract may take the two lines for one
    # tall letter ("а", read at nothing) and lose the caption.
    page = _page([(40, 100, "№", 30), (40, 138, "п/п", 30), (200, 100, "Счет", 30)])
    engine = make_engine(EngineConfig())
    read = engine.recognize(page)
    by_text = {w.text: w for w in read}
    assert sorted(by_text) == ["Счет", "п/п", "№"]
    tall = replace(_union([by_text["№"], by_text["п/п"]], "а"), confidence=0.0)

    words = read_again([tall, by_text["Счет"]], page, engine)

    assert sorted(w.text for w in words) == ["Счет", "п/п", "№"]


def test_words_read_surely_are_not_read_again() -> None:
    # A title twice as tall as the text, read surely: one line, nothing to read again.
    page = _page([(40, 40, "ВЫПИСКА", 60), (40, 160, "по счету за период", 30)])
    engine = make_engine(EngineConfig())
    read = engine.recognize(page)
    title, line = read[0], read[2]
    assert title.text == "ВЫПИСКА" and title.y1 - title.y0 > TALL * (line.y1 - line.y0)
    assert all(w.confidence is not None and w.confidence >= DOUBTFUL for w in read)

    counted = _Counted(engine)
    assert read_again(read, page, counted) == read
    assert counted.calls == 0


def _lines() -> Image.Image:
    return _page(
        [
            (40, 100, "ИП Ковалёв А. Н.", 30),
            (40, 160, "BY90PJCB30125483309390193300", 30),
            (40, 220, "Возврат излишне перечисленных средств", 30),
        ]
    )


def test_a_word_read_right_but_unsurely_amid_the_table_is_as_sure_as_it_reads_alone() -> None:
    page = _lines()
    engine = make_engine(EngineConfig())
    read = engine.recognize(page)
    # Beside a column's edge Tesseract reads "Возврат" right at 47.
    unsure = [replace(w, confidence=47.0) if w.text == "Возврат" else w for w in read]

    words = read_again(unsure, page, engine)

    again = next(w for w in words if w.text == "Возврат")
    assert again.confidence is not None and again.confidence >= 90
    assert [w.text for w in words] == [w.text for w in read]


def test_an_iban_misread_amid_the_table_takes_the_surer_reading_it_gives_alone() -> None:
    page = _lines()
    engine = make_engine(EngineConfig())
    read = engine.recognize(page)
    iban = "BY90PJCB30125483309390193300"
    misread = [
        replace(w, text="8В\\90Р]СВЗ0125483309390193300", confidence=41.0) if w.text == iban else w
        for w in read
    ]

    words = read_again(misread, page, engine)

    assert normalize_account(misread[4].text) != iban
    assert [w.text for w in words] == [w.text for w in read]


def test_a_short_word_keeps_the_letters_of_its_phrase() -> None:
    page = _lines()
    engine = make_engine(EngineConfig())
    read = engine.recognize(page)
    # Whatever a short word reads as alone, only its phrase tells its script and case: the
    # first reading's letters stay (look-alikes are put right later, in the phrase).
    first = [replace(w, text="MN", confidence=41.0) if w.text == "ИП" else w for w in read]

    words = read_again(first, page, engine)

    assert words[0].text == "MN"


def test_a_page_of_many_doubtful_words_is_read_again_on_several_sheets() -> None:
    # Tesseract refuses an image over 32,767 pixels high: a page where a thousand words came
    # out doubtful would stack them higher than that on one sheet.
    page = _lines()
    engine = make_engine(EngineConfig())
    read = engine.recognize(page)
    unsure = [replace(w, confidence=41.0) for w in read]
    one_sheet = _Counted(engine)
    whole = read_again(unsure, page, one_sheet)
    assert one_sheet.calls == 1

    sheets = _Counted(engine)
    parted = read_again(unsure, page, sheets, sheet_height=150)

    assert sheets.calls > 2
    assert max(sheets.heights) <= 150
    # Alone on a sheet or among others, every word is read again, and as the page has it.
    assert [w.text for w in parted] == [w.text for w in whole] == [w.text for w in read]
    assert all(w.confidence is not None and w.confidence > 41.0 for w in parted)
