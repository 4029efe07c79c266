"""A PDF's text layer into words: characters set edge to edge are one word, a space joins
words of one run (one cell's text), and two runs are two cells however close they are set."""

from __future__ import annotations

import io
from dataclasses import replace

import pdfplumber
import pytest
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from scan_gateway.grid_from_words import build_page_grid, phrases_of, text_height
from scan_gateway.pdf_text import page_words
from scan_gateway.words import PageWords, Rule

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def register() -> None:
    if "DejaVu" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("DejaVu", FONT))


def page_of(*runs: tuple[float, float, str]) -> PageWords:
    """A page with each run of text drawn where it says (x, y from the top, text)."""
    register()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(400, 200))
    canvas.setFont("DejaVu", 8)
    for x, y, text in runs:
        canvas.drawString(x, 200 - y, text)
    canvas.showPage()
    canvas.save()
    with pdfplumber.open(io.BytesIO(buffer.getvalue())) as pdf:
        return page_words(pdf.pages[0], 1)


def width(text: str) -> float:
    register()
    return pdfmetrics.stringWidth(text, "DejaVu", 8)


def test_a_number_set_right_against_a_name_set_left_is_two_words() -> None:
    # "1" right-aligned in its cell, the name left-aligned in the next: 1.5 pt apart.
    page = page_of((20, 50, "1"), (20 + width("1") + 1.5, 50, "Основные средства"))
    assert [w.text for w in page.words] == ["1", "Основные", "средства"]
    runs = [w.run for w in page.words]
    assert runs[0] != runs[1] and runs[1] == runs[2]


def test_words_of_one_run_are_one_phrase_and_runs_are_phrases_however_close() -> None:
    name = "Расчеты с поставщиками"
    page = page_of((20, 50, name), (20 + width(name) + 1.0, 50, "12 345,67"))
    phrases = phrases_of(page.words, text_height(page.words))
    assert [p.text for p in phrases] == [name, "12 345,67"]


def test_a_wrapped_lines_trailing_space_does_not_join_the_next_cell() -> None:
    # A spreadsheet keeps the space at which it wrapped a caption: "Сальдо на " then, a
    # little to the right, the next cell's "Обороты".
    first = "Сальдо на "
    page = page_of((20, 50, first), (20 + width(first) + 4, 50, "Обороты"))
    phrases = phrases_of(page.words, text_height(page.words))
    assert [p.text for p in phrases] == ["Сальдо на", "Обороты"]


def test_columns_typeset_with_spaces_are_cells() -> None:
    page = page_of((20, 50, "Счет    Сальдо"))
    phrases = phrases_of(page.words, text_height(page.words))
    assert [p.text for p in phrases] == ["Счет", "Сальдо"]


def test_a_caption_run_that_runs_on_into_the_next_cell_is_cut_where_its_values_start() -> None:
    # An outline level before the captions makes the header line one of the table's; a
    # printer set "кред. сальдо" and the next cell's "деб." in one run.
    run = "кред. сальдо "
    third = 190 + width(run)
    page = page_of(
        (20, 30, "0"),
        (40, 30, "Счет"),
        (120, 30, "деб. сальдо"),
        (190, 30, run + "деб."),
        (20, 50, "0"),
        (40, 50, "01 Касса"),
        (120, 50, "0,00"),
        (190, 50, "400536,37"),
        (third, 50, "198492,38"),
        (20, 62, "1"),
        (40, 62, "01.1 Касса"),
        (120, 62, "12,50"),
        (190, 62, "0,00"),
        (third, 62, "0,00"),
    )
    grid = build_page_grid(page)
    assert grid.rows[0] == ["0", "Счет", "деб. сальдо", "кред. сальдо", "деб."]
    assert grid.rows[1] == ["0", "01 Касса", "0,00", "400536,37", "198492,38"]


def test_a_group_caption_centred_over_two_columns_is_not_cut() -> None:
    page = page_of(
        (40, 20, "Счет"),
        (120, 20, "Сальдо на начало"),
        (120, 30, "Дебет"),
        (170, 30, "Кредит"),
        (40, 50, "01 Касса"),
        (120, 50, "10,00"),
        (190, 50, "400536,37"),
        (40, 62, "02 Склад"),
        (120, 62, "20,00"),
        (170, 62, "5,00"),
    )
    grid = build_page_grid(page)
    assert "Сальдо на начало" in grid.rows[0]


def test_a_page_that_continues_a_table_keeps_a_column_empty_on_its_rows() -> None:
    def row(y: float, number: str | None, amount: str) -> list[tuple[float, float, str]]:
        cells = [(20.0, y, "01.10.2024"), (150 - width(amount), y, amount), (160, y, "ООО «Сигма»")]
        return cells + ([(80.0, y, number)] if number else [])

    first = page_of(
        (20, 20, "Дата"), (80, 20, "Номер"), (120, 20, "Сумма"), (160, 20, "Получатель"),
        *row(40, "76546", "3 239,89"), *row(52, "60801", "49 996,77"),
    )  # fmt: skip
    gaps = build_page_grid(first).gaps
    # The next page holds one row, without a document number, and the day's closing
    # balance, set in the number's column: that column has no row of amounts on the page.
    second = page_of(*row(20, None, "31,51"), (20, 40, "Остаток"), (80, 40, "-17,89"))
    grid = build_page_grid(second, gaps=gaps)
    assert grid.rows[0] == ["01.10.2024", None, "31,51", "ООО «Сигма»"]


@pytest.mark.parametrize("boxed", [False, True])
def test_a_name_run_that_runs_on_into_the_indicator_is_cut_where_the_indicators_start(
    boxed: bool,
) -> None:
    # An outline level before each line; the indicators' column starts right after the
    # name's first line, which a printer set in one run with the indicator. Boxed: cell
    # borders drawn around the header only, the body's columns are the box's.
    name = "60 Расчеты с "
    mark = 40 + width(name)
    page = page_of(
        (40, 20, "Счет"), (mark, 20, "Показатели"), (240, 20, "Дебет"), (300, 20, "Кредит"),
        (20, 40, "0"), (40, 40, name + "БУ"), (240, 40, "100,00"), (300, 40, "20,00"),
        (20, 52, "0"), (mark, 52, "НУ"), (240, 52, "100,00"), (300, 52, "20,00"),
        (20, 64, "0"), (40, 64, "61 Касса"), (mark, 64, "БУ"), (240, 64, "5,00"), (300, 64, "7,50"),
        (20, 76, "0"), (40, 76, "62 Расчеты"), (mark, 76, "НУ"), (240, 76, "5,00"), (300, 76, "7,50"),
    )  # fmt: skip
    row: list[str | None] = ["0", "60 Расчеты с", "БУ", "100,00", "20,00"]
    if boxed:
        borders = [Rule("h", y, 18, 360) for y in (12, 24)] + [
            Rule("v", x, 12, 24) for x in (18, 38, mark - 1, 238, 298, 360)
        ]
        page = replace(page, rules=borders)
        row = [None, *row]  # the box's left border stands left of the level
    assert row in build_page_grid(page).rows


@pytest.mark.parametrize("decimals", [2, 1], ids=["kopecks", "thousands-to-one-decimal"])
def test_dashes_set_left_over_amounts_set_right_and_a_level_before_the_header(
    decimals: int,
) -> None:
    # A level printed before every line, the header's too: its group caption spans the
    # debit and credit columns, which only the body's lines part. A zero is a dash set
    # left in its cell, the amounts are set right (in thousands, to one decimal).
    runs = [(20.0, 20.0, "0"), (40, 20, "Счет"), (150, 20, "САЛЬДО НА 01.04.2025"),
            (270, 20, "ОБОРОТЫ ЗА ПЕРИОД"),
            (150, 30, "ДЕБЕТУ"), (210, 30, "КРЕДИТУ"), (270, 30, "ДЕБЕТУ"), (330, 30, "КРЕДИТУ")]  # fmt: skip
    body = [("01", "12,00", "-", "5,00", "-"), ("02", "-", "3,50", "-", "1,00"),
            ("03", "7,00", "-", "6,00", "2,00"), ("04", "-", "8,50", "-", "-")]  # fmt: skip
    body = [tuple(t[: len(t) - 2 + decimals] if "," in t else t for t in row) for row in body]
    for k, (code, *amounts) in enumerate(body):
        y = 44.0 + 12 * k
        runs += [(20, y, "0"), (40, y, code)]
        for start, text in zip((150, 210, 270, 330), amounts, strict=True):
            runs.append((start if text == "-" else start + 50 - width(text), y, text))
    grid = build_page_grid(page_of(*runs))
    assert [row for row in grid.rows if row[1] in ("01", "02", "03", "04")] == [
        ["0", code, *amounts] for code, *amounts in body
    ]


def test_column_numbers_set_right_over_amounts_set_left_number_their_own_columns() -> None:
    # Amounts printed as text are set left; the column numbers under the header are numbers,
    # set right against the next column: the gap the body leaves ends where a number ends,
    # and a number of two digits starts nearer the gap's other side.
    amounts = [
        ("1 156 789.10", "2 250.00", "11.00", "4.00"),
        ("12 345.60", "987 654.30", "3 450.00", "5 000.00"),
    ]
    longest = max(width(text) for row in amounts for text in row)
    step = longest + width("10") + 3
    starts = [60 + k * step for k in range(5)]
    runs = [(20.0, 20.0, "Счет")] + [(x, 20, "Сумма") for x in starts[:4]]
    for number, right in zip(("1", "10", "11", "12", "13"), [58.2, *starts[1:]], strict=True):
        runs.append((right - 1.8 - width(number), 32, number))
    for k, row in enumerate(amounts):
        y = 44.0 + 12 * k
        runs += [
            (20, y, f"0{k + 1}"),
            *((x, y, text) for x, text in zip(starts[:4], row, strict=True)),
        ]
    grid = build_page_grid(page_of(*runs))
    assert ["1", "10", "11", "12", "13"] in grid.rows
