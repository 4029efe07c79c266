"""OCR words into cells where OCR joined or split what the page printed apart or together:
cells set closer than a space, a sign read twice, thousands that line up from row to row."""

from __future__ import annotations

from dataclasses import replace

import pytest

from recognition_contract import TrialBalance
from scan_gateway.grid_from_words import (
    OCR_PHRASE_GAP,
    Line,
    Phrase,
    _dashes_with_their_amounts,
    _glued_cells,
    _line_rows,
    _without_stray_columns,
    build_page_grid,
    lines_of,
    phrases_of,
)
from scan_gateway.limits import ScanLimits
from scan_gateway.ocr_repair import repair_words
from scan_gateway.recognize import OCR_GAP_TOLERANCE, recognize_pages
from scan_gateway.words import PageWords, Rule, Word

HEIGHT = 20.0
DIGIT = 14.0  # a digit's advance; its ink is 12 wide


def ocr_word(text: str, x0: float, y: float, conf: float = 95.0) -> Word:
    """A word as OCR gives it: a box and each character's extent (digits set tabular)."""
    chars = tuple((x0 + k * DIGIT, x0 + k * DIGIT + 12) for k in range(len(text)))
    return Word(text, x0, y, chars[-1][1], y + HEIGHT, conf, chars=chars)


def grid_of(words: list[Word], rules: list[Rule] | None = None) -> list[list[str | None]]:
    page = PageWords(1, 1000.0, 1400.0, words, rules or [], source="ocr")
    return build_page_grid(page, gap_tolerance=OCR_GAP_TOLERANCE).rows


def test_a_row_number_read_into_the_account_beside_it_is_cut_at_the_rule_between() -> None:
    # "1" right-aligned in the number column (ink ends at 112), "04" left-aligned in the
    # account column from 114: OCR reads "104". The rule between the cells is at 113.
    ys = [100.0, 140.0, 180.0, 220.0]
    rules = [Rule("h", y, 50, 700) for y in ys] + [
        Rule("v", x, ys[0], ys[-1]) for x in (50, 113, 250, 450, 700)
    ]
    words = [
        ocr_word("№", 60, 110),
        ocr_word("Счет", 120, 110),
        ocr_word("Дебет", 300, 110),
        ocr_word("Кредит", 500, 110),
        Word("104", 100, 150, 142, 170, 90.0, chars=((100, 112), (116, 128), (130, 142))),
        ocr_word("100,00", 360, 150),
        ocr_word("2", 100, 190),
        ocr_word("08", 116, 190),
        ocr_word("5,00", 640, 190),
    ]
    rows = grid_of(words, rules)
    assert rows[1][1:3] == ["1", "04"]
    assert rows[2][1:3] == ["2", "08"]


def test_a_level_a_row_number_and_an_account_read_as_one_word_are_three_cells() -> None:
    # No rules: a narrow gap that is empty on every row, where a caption starts, is a
    # column's edge, and the characters of a row's leading numbers show it.
    words = [
        ocr_word("№", 96, 60),
        ocr_word("Счет", 130, 60),
        ocr_word("Наименование", 260, 60),
        ocr_word("Дебет", 560, 60),
        ocr_word("Кредит", 760, 60),
    ]
    body = [("101", "Основные", "100,00", None), ("201.01", "Здания", None, "20,00"),
            ("308", "Вложения", "7,50", None), ("408.1", "Прочие", "1,00", "2,00")]  # fmt: skip
    for k, (label, name, debit, credit) in enumerate(body):
        y = 100 + 40 * k
        # The row number's digit ends at 112; the account starts at 130 (a gap of 18 where
        # the caption «Счет» starts, narrower than a space between two words of OCR).
        chars = (
            (100.0, 112.0),
            *((130 + j * DIGIT, 142 + j * DIGIT) for j in range(len(label) - 1)),
        )
        words.append(Word(label, 100, y, chars[-1][1], y + HEIGHT, 90.0, chars=chars))
        words.append(ocr_word(name, 260, y))
        if debit:
            words.append(ocr_word(debit, 640 - DIGIT * len(debit), y))
        if credit:
            words.append(ocr_word(credit, 840 - DIGIT * len(credit), y))
    rows = grid_of(words)
    assert [row[:3] for row in rows[1:]] == [
        ["1", "01", "Основные"],
        ["2", "01.01", "Здания"],
        ["3", "08", "Вложения"],
        ["4", "08.1", "Прочие"],
    ]


def test_a_row_number_read_into_its_account_and_name_opens_its_column_under_a_glued_caption() -> (
    None
):
    # OCR read the level and «№» as one word ("0№"), so the number column has no caption of
    # its own, and each row's number into its account and the name after it ("126 Затраты"):
    # no phrase lies in the number column, yet the gap its characters leave is a column's.
    words = [Word("0№", 40, 60, 112, 80, 90.0, chars=((40, 52), (96, 112)))]
    words += [ocr_word(t, x, 60) for t, x in (("Счет", 130), ("Дебет", 560), ("Кредит", 760))]
    body = [("126", "Затраты", "100,00", "1,00"), ("260", "Расчеты", "3,00", "20,00"),
            ("360.1", "Поставщики", "7,50", "5,00"), ("460.1.1", "Прочие", "1,00", "2,00")]  # fmt: skip
    for k, (label, name, debit, credit) in enumerate(body):
        y = 100 + 40 * k
        chars = (
            (100.0, 112.0),
            *((130 + j * DIGIT, 142 + j * DIGIT) for j in range(len(label) - 1)),
        )
        words.append(ocr_word(str(k % 2), 40, y))
        words.append(Word(label, 100, y, chars[-1][1], y + HEIGHT, 90.0, chars=chars))
        words.append(ocr_word(name, chars[-1][1] + 12, y))
        words.append(ocr_word(debit, 640 - DIGIT * len(debit), y))
        words.append(ocr_word(credit, 840 - DIGIT * len(credit), y))
    rows = grid_of(words)
    assert rows[0][1:3] == ["№", "Счет"]
    assert [row[1:3] for row in rows[1:]] == [
        [str(k + 1), f"{label[1:]} {name}"] for k, (label, name, _, _) in enumerate(body)
    ]


def test_names_read_with_their_level_before_them_keep_their_column() -> None:
    # The level set right in a narrow column and the name set left just after it are read as
    # one phrase on every line ("О Вложения"), a level 0 as the letter О: no phrase lies in
    # the name column alone, yet it is a column of names, not of a few numbers.
    words: list[Word] = []
    for y, title in ((10, "Ведомость"), (40, "Организация")):
        words += [ocr_word("О", 40, y), ocr_word(title, 60, y)]
    captions = (("О", 40), ("Наименование", 60), ("Счет", 400), ("Дебет", 560), ("Кредит", 760))
    words += [ocr_word(t, x, 80) for t, x in captions]
    body = [("О", "Вложения", "08", "100,00", "1,00"), ("1", "Приобретение", "08.1", "3,00", "20,00"),
            ("О", "Материалы", "10", "7,50", "5,00"), ("1", "Сырье", "10.1", "1,00", "2,00")]  # fmt: skip
    for k, (level, name, code, debit, credit) in enumerate(body):
        y = 120 + 40 * k
        words += [ocr_word(level, 40, y), ocr_word(name, 60, y), ocr_word(code, 400, y)]
        words.append(ocr_word(debit, 640 - DIGIT * len(debit), y))
        words.append(ocr_word(credit, 840 - DIGIT * len(credit), y))
    rows = grid_of(words)
    assert [row[:3] for row in rows[3:]] == [
        ["0", "Вложения", "08"],
        ["1", "Приобретение", "08.1"],
        ["0", "Материалы", "10"],
        ["1", "Сырье", "10.1"],
    ]
    # The title lines' level is the level column's too, read as the digit it stands for.
    assert [row[:2] for row in rows[:2]] == [["0", "Ведомость"], ["0", "Организация"]]


def test_a_level_read_into_the_account_after_it_leaves_the_account_its_column() -> None:
    # The level "0" and the account set left just after it are read as one word ("002"),
    # and «Счет» as one phrase with the level before it: the gap the characters leave,
    # where the title lines' and the caption's words start, is the account column's edge.
    words: list[Word] = []
    for y, title in ((10, "Ведомость"), (40, "Организация")):
        words += [ocr_word("0", 40, y), ocr_word(title, 60, y)]
    captions = (("0", 40), ("Счет", 60), ("Наименование", 300), ("Дебет", 560), ("Кредит", 760))
    words += [ocr_word(t, x, 80) for t, x in captions]
    body = [("0", "02", "Амортизация", "100,00", "1,00"), ("0", "08", "Вложения", "3,00", "20,00"),
            ("1", "08.1", "Приобретение", "7,50", "5,00"), ("0", "10", "Материалы", "1,00", "2,00")]  # fmt: skip
    for k, (level, code, name, debit, credit) in enumerate(body):
        y = 120 + 40 * k
        chars = ((40.0, 52.0), *((60 + j * DIGIT, 72 + j * DIGIT) for j in range(len(code))))
        words.append(Word(level + code, 40, y, chars[-1][1], y + HEIGHT, 90.0, chars=chars))
        words.append(ocr_word(name, 300, y))
        words.append(ocr_word(debit, 640 - DIGIT * len(debit), y))
        words.append(ocr_word(credit, 840 - DIGIT * len(credit), y))
    rows = grid_of(words)
    assert [row[:3] for row in rows[3:]] == [[lv, code, name] for lv, code, name, _, _ in body]


def test_a_dates_last_digit_set_apart_where_title_words_start_stays_in_the_date() -> None:
    # A scan leaves a gap before each date's last digit, just where words of the title
    # lines start: a date is no row's number read into the next cell.
    words = [ocr_word("Выписка", 40, 10), ocr_word("по", 168, 10), ocr_word("счету", 210, 10)]
    words += [ocr_word("Остаток", 40, 40), ocr_word("на", 172, 40), ocr_word("17307,48", 214, 40)]
    words += [ocr_word(t, x, 80) for t, x in (("Дата", 40), ("Сумма", 400), ("Назначение", 600))]
    body = [("02.02.2025", "15850,36", "Оплата"), ("12.02.2025", "35219,21", "Аренда"),
            ("16.02.2025", "6139,95", "Связь"), ("28.02.2025", "19,71", "Комиссия")]  # fmt: skip
    for k, (date, amount, purpose) in enumerate(body):
        y = 120 + 40 * k
        chars = (*((40 + j * DIGIT, 52 + j * DIGIT) for j in range(9)), (170.0, 182.0))
        words.append(Word(date, 40, y, 182, y + HEIGHT, 90.0, chars=chars))
        words.append(ocr_word(amount, 500 - DIGIT * len(amount), y))
        words.append(ocr_word(purpose, 600, y))
    assert grid_of(words)[3:] == [list(row) for row in body]


def glued_cells(body: list[Word], header: list[Word]) -> list[tuple[float, float]]:
    return _glued_cells(
        lines_of(body, HEIGHT, OCR_PHRASE_GAP),
        lines_of(header, HEIGHT, OCR_PHRASE_GAP),
        [],
        allowed=0,
        narrowest=5.0,
        slack=16.0,
    )


def test_a_caption_that_starts_its_header_line_inside_the_table_marks_a_glued_cells_edge() -> None:
    # Debits set left just after the document numbers set right, closer than a space: OCR
    # reads each pair as one phrase. Where the characters leave a gap, "Сумма" starts on
    # one header line and "Списание/Дебет", the first word of the next, under it.
    header = [ocr_word("Дата", 40, 10), ocr_word("№", 300, 10), ocr_word("Сумма", 390, 10)]
    header += [ocr_word("Списание/Дебет", 390, 40), ocr_word("Кредит", 600, 40)]
    body: list[Word] = []
    for k, (number, debit) in enumerate((("72947", "56512,89"), ("16701", "796,60"))):
        y = 80 + 40 * k
        body += [ocr_word("05.02.2025", 40, y), ocr_word(number, 317, y)]
        body += [ocr_word(debit, 390, y)]
    assert glued_cells(body, header) == [(385.0, 390.0)]


def test_title_words_that_start_after_the_thousands_of_amounts_mark_no_cells_edge() -> None:
    # «26 445,29» read as two words, the thousands gap at the same x on every line; in the
    # title above, «ООО» and «БУ» happen to start right after it. The gap is inside one
    # number, not between two cells.
    header = [ocr_word("Отбор:", 234, 10), ocr_word("ООО", 324, 10)]
    header += [ocr_word("Данные:", 220, 40), ocr_word("БУ", 324, 40)]
    body: list[Word] = []
    for k, (thousands, rest) in enumerate((("26", "445,29"), ("11", "520,42"))):
        y = 80 + 40 * k
        body += [ocr_word("10.01", 40, y), ocr_word("Сырье", 120, y)]
        body += [ocr_word(thousands, 300, y), ocr_word(rest, 334, y)]
    assert glued_cells(body, header) == []


def test_a_level_read_against_the_code_set_left_beside_it_is_a_column_of_its_own() -> None:
    # Outline levels in a narrow column; accounts' codes set right as numbers ("01"), their
    # subaccounts' set left as text, 9 px after the level: closer than a space, so OCR reads
    # "1" and "01.01" as one word. Every line starts with one digit before the same gap (a
    # level "0" read as the letter "о"; one code's first box drawn starting early).
    def glued(level: str, code: str, y: float, early: float = 0.0) -> Word:
        chars = ((100.0, 112.0), (121 - early, 133.0))
        chars += tuple((121 + k * DIGIT, 133 + k * DIGIT) for k in range(1, len(code)))
        return Word(level + code, 100, y, chars[-1][1], y + HEIGHT, 90.0, chars=chars)

    words = [ocr_word(t, x, 10) for t, x in (("Счет", 121), ("Наименование", 260))]
    words += [ocr_word("Дебет", 520, 10), ocr_word("Кредит", 700, 10)]
    # A caption line of dates starts past the levels: it has none.
    words += [ocr_word(t, x, 30) for t, x in (("01.10.2025", 520), ("31.10.2025", 700))]
    words.append(ocr_word("итог", 860, 30))
    body = [("0", "01", "Основные", "100,00"), ("1", "01.01", "Здания", "100,00"),
            ("о", "10", "Материалы", "50,00"), ("1", "10.01", "Сырье", "30,00"),
            ("1", "10.02", "Топливо", "20,00")]  # fmt: skip
    for k, (level, code, name, amount) in enumerate(body):
        y = 50 + 40 * k
        if "." in code:
            words.append(glued(level, code, y, early=10.0 if code == "10.02" else 0.0))
        else:
            words += [ocr_word(level, 100, y), ocr_word(code, 240 - len(code) * DIGIT, y)]
        words += [ocr_word(name, 260, y), ocr_word(amount, 600 - len(amount) * DIGIT, y)]
        words.append(ocr_word("0,00", 800 - 4 * DIGIT, y))
    assert [row[:4] for row in grid_of(words)[-len(body) :]] == [
        ["0" if level == "о" else level, code, name, amount] for level, code, name, amount in body
    ]


def test_names_that_start_together_after_signed_sums_read_into_them_are_a_column() -> None:
    # A statement's signed sums set right against the counterparty set left, closer than
    # OCR's narrowest gap: each line reads "-46601,7 ООО «Сигма»" as one run. The names
    # start together line after line: there a cell starts.
    captions = (("Счет", 40), ("Сумма", 400), ("Контрагент", 520), ("УНП", 760))
    words = [ocr_word(t, x, 10) for t, x in (*captions, ("Назначение", 960))]
    body = [("-46601,7", "ООО", "«Сигма»", "Оплата"), ("48853,8", "ГП", "«Топгаз»", "Аренда"),
            ("-11618,55", "ЧУП", "«Ресурс»", "Связь"), ("3298,69", "ООО", "«Альфа»", "Налог")]  # fmt: skip
    for k, (amount, form, name, purpose) in enumerate(body):
        y = 50 + 40 * k
        words += [ocr_word("BY32ALFA3012", 40, y), ocr_word(amount, 518 - len(amount) * DIGIT, y)]
        words += [ocr_word(form, 520, y), ocr_word(name, 530 + len(form) * DIGIT, y)]
        words += [ocr_word(f"30691819{k}6", 760, y), ocr_word(purpose, 960, y)]
    assert grid_of(words)[1:] == [
        ["BY32ALFA3012", amount, f"{form} {name}", f"30691819{k}6", purpose]
        for k, (amount, form, name, purpose) in enumerate(body)
    ]


def test_the_end_of_a_wrapped_text_set_apart_in_the_last_column_opens_no_cell() -> None:
    # The purposes wrap where "т.ч." no longer fits, a space wider than OCR's phrase gap
    # after "в", on the same place line after line: words that start with a small letter,
    # with no caption over them, are the text's, not a column's.
    words = [ocr_word(t, x, 10) for t, x in (("Дата", 40), ("Сумма", 250), ("Назначение", 400))]
    for k in range(4):
        y = 50 + 40 * k
        words += [ocr_word(f"0{k + 1}.02.2024", 40, y), ocr_word("1500,00", 262, y)]
        words += [ocr_word(t, x, y) for t, x in (("Оплата", 400), ("по", 494), ("счету,", 528))]
        words += [ocr_word("в", 618, y), *([ocr_word("т.ч.", 660, y)] if k % 2 == 0 else [])]
    rows = grid_of(words)
    assert [row[2] for row in rows[1:]] == ["Оплата по счету, в т.ч.", "Оплата по счету, в"] * 2


def test_thousands_that_line_up_from_row_to_row_stay_in_their_amount() -> None:
    # «140 863,30» and «46 974,80» as two OCR words each, the gap between the thousands and the
    # rest at the same x on every row; a «277,80» below starts right there. Only a caption
    # starting at a narrow gap makes it a column's edge, and no caption does.
    words = [ocr_word("Счет", 100, 60), ocr_word("Дебет", 300, 60), ocr_word("Кт", 500, 60)]
    amounts = [("10", "5,00", "140", "863,30"), ("20", "6,00", "46", "974,80"),
               ("41", "7,00", None, "277,80")]  # fmt: skip
    for k, (code, debit, thousands, rest) in enumerate(amounts):
        y = 100 + 40 * k
        words += [ocr_word(code, 100, y), ocr_word(debit, 380 - DIGIT * len(debit), y)]
        if thousands:
            words.append(ocr_word(thousands, 598 - DIGIT * len(thousands), y))
        words.append(ocr_word(rest, 610, y))
    rows = grid_of(words)
    assert [[c for c in row if c] for row in rows[1:]] == [
        ["10", "5,00", "140863,30"],
        ["20", "6,00", "46974,80"],
        ["41", "7,00", "277,80"],
    ]


def test_a_minus_read_twice_is_one_minus() -> None:
    glued = Word(
        "—-34", 765, 705, 804, 725, 52.0, chars=((765, 766), (765, 773), (775, 788), (790, 804))
    )
    beside = [
        Word("=", 745, 802, 755, 837, 49.0),  # a second reading of the sign, apart
        Word("-16", 765, 807, 804, 828, 49.0),
        Word("125,51", 815, 808, 897, 832, 96.0),
        Word("=", 400, 808, 410, 828, 90.0),  # far from any amount: left as printed
    ]
    words = repair_words([glued, *beside])
    assert [w.text for w in words] == ["-34", "-16", "125,51", "="]
    assert words[0].chars == ((765, 773), (775, 788), (790, 804))
    assert words[0].confidence is not None and words[0].confidence < 52.0


def test_a_quantity_set_right_between_two_amounts_set_left_is_in_the_column_of_its_cell() -> None:
    # Amounts set left in their cells; a quantity set right in the debit cell ends just
    # before the credit column. It opens no column of its own: it is the debit column's.
    words = [ocr_word("Счет", 100, 60), ocr_word("Дебет", 300, 60), ocr_word("Кредит", 500, 60)]
    for k in range(8):
        y = 100 + 40 * k
        words += [ocr_word(f"{10 + k}", 100, y), ocr_word("1000,00", 300, y)]
        words.append(ocr_word("50,00", 500, y))
    words += [ocr_word("Кол-во", 100, 420), ocr_word("4746", 490 - 4 * DIGIT, 420)]
    rows = grid_of(words)
    assert all(len(row) == 3 for row in rows)
    assert rows[-1] == ["Кол-во", "4746", None]


def test_quantities_under_every_item_set_right_between_amounts_set_left_are_their_cells() -> None:
    # A line of quantities under each item: half the table's lines, none with an amount.
    words = [ocr_word(text, x, 60) for x, text in ((100, "Счет"), (300, "Дебет"),
             (500, "Кредит"), (700, "Дебет"), (900, "Кредит"))]  # fmt: skip
    for k in range(4):
        y = 100 + 80 * k
        words += [ocr_word(f"{10 + k}", 100, y)]
        words += [ocr_word(f"{k + 1}00,00", x, y) for x in (300, 500, 700, 900)]
        words += [ocr_word("Кол.", 100, y + 40), ocr_word("475", 490 - 3 * DIGIT, y + 40)]
        words += [ocr_word("475", 890 - 3 * DIGIT, y + 40)]
    rows = grid_of(words)
    assert all(len(row) == 5 for row in rows)
    assert rows[2] == ["Кол.", "475", None, "475", None]


def test_a_border_lost_on_some_rows_still_cuts_a_row_number_off_its_account() -> None:
    # The rule between the number and the account was found on the header's rows only; the
    # scan lost it further down. Inside the table it still cuts «19» off «60.1», and only a
    # row number's few digits: an amount is never cut.
    ys = [100.0, 140.0, 180.0, 220.0]
    rules = [Rule("h", y, 50, 700) for y in ys] + [
        Rule("v", 113, ys[0], ys[1]),
        *(Rule("v", x, ys[0], ys[-1]) for x in (50, 250, 450, 700)),
    ]
    glued = ((100, 106), (107, 112), (116, 128), (130, 142), (144, 147), (149, 161))
    words = [
        ocr_word("№", 60, 110),
        ocr_word("Счет", 120, 110),
        ocr_word("Дебет", 300, 110),
        ocr_word("Кредит", 500, 110),
        Word("1960.1", 100, 150, 161, 170, 90.0, chars=glued),
        ocr_word("100,00", 360, 150),
        # Not a row number: digits of an amount that runs over a border are left whole.
        Word(
            "12345,0",
            100,
            190,
            197,
            210,
            90.0,
            chars=tuple((100 + 14 * k, 111 + 14 * k) for k in range(7)),
        ),
    ]
    rows = grid_of(words, rules)
    assert rows[1][1:3] == ["19", "60.1"]
    assert "12345,0" in rows[2]


def test_a_number_and_an_amount_read_across_a_lost_piece_of_rule_part_at_the_sliver() -> None:
    # The rule between the document's number and its amount was lost on the second row,
    # where OCR read its remains as a sliver of a "1": "9574139225,89" is 9574 | 39225,89.
    ys = [100.0, 140.0, 180.0, 220.0]
    rules = [Rule("h", y, 50, 700) for y in ys] + [
        Rule("v", 200, ys[0], ys[1]),
        Rule("v", 200, ys[2], ys[3]),
        *(Rule("v", x, ys[0], ys[-1]) for x in (50, 450, 700)),
    ]
    words = [ocr_word(t, x, 110) for t, x in (("№", 60), ("Сумма", 210), ("Контрагент", 460))]
    number = tuple((140 + 14 * k, 152 + 14 * k) for k in range(4))
    amount = tuple((206 + 14 * k, 218 + 14 * k) for k in range(8))
    chars = (*number, (199.0, 202.0), *amount)
    words.append(Word("9574139225,89", 140, 150, amount[-1][1], 170, 90.0, chars=chars))
    words += [ocr_word("ООО", 460, 150), ocr_word("5", 182, 190), ocr_word("100,00", 206, 190)]
    words.append(ocr_word("ЗАО", 460, 190))
    rows = grid_of(words, rules)
    assert rows[1][1:4] == ["9574", "39225,89", "ООО"]
    assert rows[2][1:4] == ["5", "100,00", "ЗАО"]


def test_a_page_that_continues_the_table_gets_the_columns_the_first_page_ended_with() -> None:
    # On the first page the caption «Сумма» set left opens a column over the amounts set
    # right, and goes; the next page has no caption line, only the gaps the first one gives.
    def lines(first: int) -> list[Word]:
        out: list[Word] = []
        for k in range(4):
            y = 100 + 40 * k
            out += [ocr_word(f"{first + k}", 100, y), ocr_word("Товар", 200, y)]
            out += [ocr_word("1000,00", 600 - 7 * DIGIT, y), ocr_word("5,00", 800 - 4 * DIGIT, y)]
        return out

    # «Дебет» set left over amounts set right; the line below has captions at the amounts'
    # own edges, so «Дебет» first stands in a column of its own.
    header = [ocr_word(t, x, 60) for t, x in (("Счет", 100), ("Имя", 200), ("Дебет", 300))]
    header += [ocr_word(t, x, 80) for t, x in (("код", 100), ("сумма", 502), ("сумма", 744))]
    first = build_page_grid(
        PageWords(1, 1000.0, 1400.0, [*header, *lines(10)], source="ocr"),
        gap_tolerance=OCR_GAP_TOLERANCE,
    )
    second = build_page_grid(
        PageWords(2, 1000.0, 1400.0, lines(20), source="ocr"),
        gap_tolerance=OCR_GAP_TOLERANCE,
        gaps=first.gaps,
    )
    assert first.rows[2] == ["10", "Товар", "1000,00", "5,00"]
    assert second.rows[0] == ["20", "Товар", "1000,00", "5,00"]


def test_the_level_printed_before_a_title_is_the_level_columns() -> None:
    # A ruled table with its outline levels in the first column, printed on the title lines
    # above it too: the level set right against the border, the title set left beside it.
    ys = [50.0, 90.0, 130.0, 170.0]
    rules = [Rule("h", y, 50, 700) for y in ys] + [
        Rule("v", x, ys[0], ys[-1]) for x in (50, 116, 300, 500, 700)
    ]
    words = [ocr_word("0", 100, 10), ocr_word("ООО", 120, 10), ocr_word("«Альфа»", 180, 10)]
    words += [ocr_word(t, x, 60) for t, x in (("0", 100), ("Счет", 120), ("Дебет", 310))]
    words.append(ocr_word("Кредит", 510, 60))
    for k, y in enumerate((100, 140)):
        words += [ocr_word(str(k), 100, y), ocr_word(f"{10 + k}", 120, y)]
        words += [ocr_word("1000,00", 490 - 7 * DIGIT, y), ocr_word("5,00", 690 - 4 * DIGIT, y)]
    rows = grid_of(words, rules)
    assert rows[0][:3] == [None, "0", "ООО «Альфа»"]
    assert rows[2][1:] == ["0", "10", "1000,00", "5,00"]


def test_the_level_before_a_code_on_a_row_of_zeros_is_the_level_columns() -> None:
    # Unruled: levels set right at 106-118, codes and names set left from 130, amounts set
    # right. OCR sets the level and the code as close as the words of one phrase; a row of
    # zeros, printed empty, is nothing but its level, code and name.
    rows_in = [("0", "10 Материалы", "1000,00"), ("1", "10.1 Сырье", "1000,00"),
               ("0", "41 Товары", None), ("1", "41.1 Товары на складах", None),
               ("0", "50 Касса", "5,00")]  # fmt: skip
    words = [ocr_word(t, x, 10) for t, x in (("№", 100), ("Счет", 130), ("Дебет", 620))]
    words.append(ocr_word("Кредит", 816, 10))
    for k, (level, label, amount) in enumerate(rows_in):
        y = 50.0 + 40 * k
        words.append(ocr_word(level, 106, y))
        x = 130.0
        for part in label.split():
            words.append(ocr_word(part, x, y))
            x += len(part) * DIGIT + 8
        if amount:
            words += [ocr_word(amount, right - len(amount) * DIGIT, y) for right in (700, 900)]
    rows = grid_of(words)
    assert [row[:2] for row in rows[1:]] == [
        ["0", "10 Материалы"], ["1", "10.1 Сырье"], ["0", "41 Товары"],
        ["1", "41.1 Товары на складах"], ["0", "50 Касса"],
    ]  # fmt: skip


def test_the_sides_under_a_group_caption_in_one_band_are_parted_by_their_rules() -> None:
    # One band holds the group caption over two columns and, below it, each column's side;
    # the rule between the sides starts under the caption (or was lost in the header), and
    # the credit side's box starts on it.
    ys = [50.0, 130.0, 170.0, 210.0]
    rules = [Rule("h", y, 50, 700) for y in ys]
    rules += [Rule("v", x, ys[0], ys[-1]) for x in (50, 200, 700)]
    for between in (Rule("v", 450, 90, ys[-1]), Rule("v", 450, ys[1], ys[-1])):
        words = [ocr_word("Счет", 60, 60), ocr_word("Сальдо", 380, 60)]
        words += [ocr_word("Дт", 300, 100), ocr_word("Кт", 447, 100)]
        for k, y in enumerate((140, 180)):
            words += [ocr_word(f"{10 + k}", 60, y), ocr_word("1000,00", 440 - 7 * DIGIT, y)]
            words.append(ocr_word("5,00", 690 - 4 * DIGIT, y))
        rows = grid_of(words, [*rules, between])
        assert rows[0] == [None, "Счет", "Сальдо\nДт", "Кт"]
        assert rows[1] == [None, "10", "1000,00", "5,00"]


def test_a_line_below_a_boxed_header_whose_box_starts_on_a_rule_is_right_of_it() -> None:
    # Rules box the header only; the body's lines below take its columns. A name set left
    # against the rule is read with a box that starts on the rule.
    rules = [Rule("h", y, 50, 700) for y in (50.0, 90.0)]
    rules += [Rule("v", x, 50, 90) for x in (50, 200, 450, 700)]
    words = [ocr_word(t, x, 60) for t, x in (("Счет", 60), ("Наименование", 210), ("Сумма", 600))]
    for k in range(4):
        y = 100.0 + 40 * k
        words += [ocr_word(f"{10 + k}", 60, y), ocr_word("Товар", 197, y)]
        words.append(ocr_word("1000,00", 690 - 7 * DIGIT, y))
    rows = grid_of(words, rules)
    assert rows[1:] == [[None, f"{10 + k}", "Товар", "1000,00"] for k in range(4)]


def test_a_code_set_right_and_an_amount_set_left_below_a_boxed_header_part_at_its_rule() -> None:
    # Rules box the header only. Codes end against the rule at 200, amounts (text, set left)
    # start against it: OCR reads "19" and "0,00" as "190,00", its characters apart where
    # the rule would pass. A name run on over the rule at 450, spaced as letters are, stays.
    rules = [Rule("h", y, 50, 700) for y in (50.0, 90.0)]
    rules += [Rule("v", x, 50, 90) for x in (50, 200, 450, 700)]
    words = [ocr_word(t, x, 60) for t, x in (("Счет", 60), ("Сальдо", 210), ("Название", 460))]

    def glued(code: str, amount: str, y: float) -> Word:
        chars = tuple((196 - (len(code) - k) * DIGIT, 208 - (len(code) - k) * DIGIT)
                      for k in range(len(code)))  # fmt: skip
        chars += tuple((206 + k * DIGIT, 218 + k * DIGIT) for k in range(len(amount)))
        return Word(code + amount, chars[0][0], y, chars[-1][1], y + HEIGHT, 90.0, chars=chars)

    body = [("19", "0,00"), ("44", "154161,70"), ("60", "100,00")]
    for k, (code, amount) in enumerate(body):
        words.append(glued(code, amount, 100.0 + 40 * k))
    words.append(ocr_word("Долгосрочныеинвестиции", 300, 220))
    rows = grid_of(words, rules)
    assert rows[1:] == [
        *([None, code, amount, None] for code, amount in body),
        [None, None, "Долгосрочныеинвестиции", None],
    ]


def test_an_amount_set_right_against_a_name_set_left_is_two_cells() -> None:
    # The credit column's amounts end at 598, the names start at 606: OCR reads no space
    # there ("20727,11ООО"); the captions over the names start at 606 on both their lines,
    # as close to the amount's caption as the words of one.
    def glued(amount: str, name: str, y: float) -> Word:
        left = 598 - 12 - (len(amount) - 1) * DIGIT
        chars = tuple((left + k * DIGIT, left + k * DIGIT + 12) for k in range(len(amount)))
        chars += tuple((606 + k * DIGIT, 606 + k * DIGIT + 12) for k in range(len(name)))
        return Word(amount + name, left, y, chars[-1][1], y + HEIGHT, 90.0, chars=chars)

    words = [
        ocr_word("Дата", 60, 20),
        ocr_word("Номер", 260, 20),
        # Each caption line is one phrase to OCR: "Сумма по Наименование".
        ocr_word("Сумма", 480, 20),
        ocr_word("по", 566, 20),
        ocr_word("Наименование", 606, 20),
        ocr_word("кредиту", 508, 45),
        ocr_word("корреспондента", 606, 45),
    ]
    for k, (number, amount, name) in enumerate(
        [("99332", "0", "ЧУП"), ("3179", "20727,11", "ООО"), ("52152", "5,00", "СООО")]
    ):
        y = 90.0 + 40 * k
        words += [ocr_word("01.12.2025", 60, y), ocr_word(number, 260, y)]
        words += [glued(amount, name, y), ocr_word("«Сигма»", 606 + len(name) * DIGIT + 6, y)]
    rows = grid_of(words)
    assert [row[-2:] for row in rows[-3:]] == [
        ["0", "ЧУП «Сигма»"],
        ["20727,11", "ООО «Сигма»"],
        ["5,00", "СООО «Сигма»"],
    ]


def test_an_account_set_right_and_read_into_the_name_beside_it_is_a_cell_of_its_own() -> None:
    # Accounts printed as numbers are set right in their column and end 8 short of the names
    # set left beside them (OCR reads one phrase); sub-accounts, text, are set left.
    words = [
        ocr_word("Счет", 100, 60),
        ocr_word("Наименование", 258, 60),
        ocr_word("Дебет", 560, 60),
        ocr_word("Кредит", 760, 60),
    ]
    body = [("26", "Расходы", "100,00", "3,00"), ("26.01", "Общие", "100,00", "3,00"),
            ("44", "Продажа", "1,00", "20,00"), ("44.01", "Издержки", "1,00", "20,00"),
            ("51", "Счета", "7,50", "2,50")]  # fmt: skip
    for k, (code, name, debit, credit) in enumerate(body):
        y = 100 + 40 * k
        x0 = 100 if "." in code else 250 - DIGIT * len(code)
        words.append(ocr_word(code, x0, y))
        words.append(ocr_word(name, 258, y))
        words.append(ocr_word(debit, 640 - DIGIT * len(debit), y))
        words.append(ocr_word(credit, 840 - DIGIT * len(credit), y))
    rows = grid_of(words)
    for row, (code, name, _, _) in zip(rows[1:], body, strict=True):
        at = row.index(name)
        assert [c for c in row[:at] if c] == [code]


def line_of_words(text: str, y: float = 10.0) -> list[Word]:
    words, x = [], 10.0
    for part in text.split():
        words.append(ocr_word(part, x, y))
        x += len(part) * DIGIT + 8
    return words


def test_short_words_of_a_cyrillic_phrase_are_spelled_as_printed() -> None:
    read = {
        "Товары На складах": "Товары на складах",
        "Вложения ВО внеоборотные активы": "Вложения во внеоборотные активы",
        "Оплата no счету № 44 or 05.11.2024": "Оплата по счету № 44 от 05.11.2024",
        "с 01.10.2025 no 31.10.2025": "с 01.10.2025 по 31.10.2025",
        "по акту № 315 of 04.04.2024": "по акту № 315 от 04.04.2024",
        "№ 570 оТ 23.10.2025 3а металлопрокат": "№ 570 от 23.10.2025 за металлопрокат",
        # The last word of a wrapped cell's line: the phrase before it tells.
        "Оплата транспортных услуг no": "Оплата транспортных услуг по",
        "поставка IN no": "поставка IN no",
        # The number sign Tesseract reads in Latin, before a number only.
        "по договору Ne 653 от 01.02.2024": "по договору № 653 от 01.02.2024",
        "код Ne отсутствует": "код Ne отсутствует",
        # Capitals among capitals, and a phrase's first word, are as printed.
        "РАСЧЕТЫ НА СКЛАДАХ": "РАСЧЕТЫ НА СКЛАДАХ",
        "На складах": "На складах",
    }
    page = [w for y, text in enumerate(read) for w in line_of_words(text, 40.0 * y)]
    # In OCR's order, or with the lines interleaved as a wrapped cell's are.
    for words in (page, sorted(page, key=lambda w: w.x0)):
        repaired = repair_words(words)
        lines = [
            " ".join(w.text for w in sorted(repaired, key=lambda w: w.x0) if w.y0 == 40.0 * y)
            for y in range(len(read))
        ]
        assert lines == list(read.values())


def test_a_percent_sign_read_apart_from_its_number_is_joined_only_where_printed_against_it() -> (
    None
):
    vat = line_of_words("в т.ч. НДС 20")
    tight = replace(ocr_word("%", vat[-1].x1 + 3, 10.0), chars=())
    spaced = replace(tight, x0=tight.x0 + 7, x1=tight.x1 + 7)
    assert [w.text for w in repair_words([*vat, tight])][-1] == "20%"
    assert [w.text for w in repair_words([*vat, spaced])][-2:] == ["20", "%"]
    # A wrapped cell: OCR gives the sign after a word of the line above.
    above = line_of_words("Оплата по", -30.0)
    interleaved = [*vat, *above, tight]
    assert [w.text for w in repair_words(interleaved) if w.y0 == vat[0].y0][-1] == "20%"


def test_dashes_for_nothing_set_left_stay_in_their_column_when_ocr_reads_one_as_noise() -> None:
    # Debit and credit: a zero is a dash set left in its cell, amounts are set right; OCR
    # read one of the dashes as "=".
    body = [("01", "1200,0", "—"), ("02", "—", "350,5"), ("03", "700,0", "="),
            ("04", "—", "850,5"), ("05", "610,0", "—"), ("06", "—", "120,0"),
            ("07", "95,5", "—"), ("08", "—", "40,0")]  # fmt: skip
    rows = grid_of(_debit_credit(body, top=10.0))
    assert rows[1:] == [list(row) for row in body]


@pytest.mark.parametrize("misread", [">", "*", "."])
def test_a_short_column_of_dashes_with_one_misread_still_joins_its_amounts(misread: str) -> None:
    # Three zeros in the debit column, dashes set left; OCR read one as a mark. The band
    # between them and the amounts set right is no edge of a cell.
    cells = [("01", "1200,00", "80,00"), ("02", "—", "70,00"), ("03", misread, "60,00"),
             ("04", "—", "90,00"), ("05", "610,00", "50,00")]  # fmt: skip
    words: list[Word] = []
    for k, (code, debit, credit) in enumerate(cells):
        y = 50.0 + 40 * k
        x = 500 - len(debit) * DIGIT if debit[0].isdigit() else 300
        words += [ocr_word(code, 60, y), ocr_word(debit, x, y)]
        words.append(ocr_word(credit, 760 - len(credit) * DIGIT, y))
    body = lines_of(words, HEIGHT, OCR_PHRASE_GAP)
    gaps = [(88.0, 300.0), (312.0, 402.0), (500.0, 690.0)]
    assert _dashes_with_their_amounts(gaps, body, [], 16.0) == [(88.0, 300.0), (500.0, 690.0)]


@pytest.mark.parametrize("misread", ["—", "="])
def test_dashes_for_nothing_join_their_amounts_under_a_group_caption_over_both(
    misread: str,
) -> None:
    # "На 01.01.2024" over debit and credit: its words fall on a debit's dash (set left) and
    # on its amounts (set right), and the line still is no row of values. OCR may read a
    # dash as "=": still a dash.
    body = [("01", "1200,00", "—"), ("02", "—", "350,50"), ("03", "700,00", misread),
            ("04", "—", "850,50"), ("05", "610,00", "—"), ("06", "—", "120,00")]  # fmt: skip
    above = [ocr_word("На", 300, 10), ocr_word("01.01.2024", 360, 10)]
    rows = grid_of(above + _debit_credit(body, top=50.0))
    assert rows[-len(body) :] == [list(row) for row in body]


def _debit_credit(body: list[tuple[str, str, str]], top: float) -> list[Word]:
    """Captions at ``top`` and the body under them: a code, then debit and credit, where a
    dash for nothing is set left in its cell and amounts right."""
    words = [ocr_word(t, x, top) for t, x in (("Счет", 60), ("Дебет", 300), ("Кредит", 560))]
    for k, (code, *amounts) in enumerate(body):
        y = top + 40 * (k + 1)
        words.append(ocr_word(code, 60, y))
        for left, text in zip((300, 560), amounts, strict=True):
            x = left if not text[0].isdigit() else left + 200 - len(text) * DIGIT
            words.append(ocr_word(text, x, y))
    return words


def test_a_column_number_misread_over_the_amounts_keeps_them_with_their_dashes() -> None:
    # The numbers of the columns under the captions, "3" read as "У" over the credits.
    body = [("01", "1200,0", "—"), ("02", "—", "350,5"), ("03", "700,0", "—"),
            ("04", "—", "850,5"), ("05", "610,0", "—"), ("06", "—", "120,0")]  # fmt: skip
    numbers = [ocr_word("1", 60, 50), ocr_word("2", 486, 50), ocr_word("У", 746, 50)]
    captions, values = _debit_credit([], top=10.0), _debit_credit(body, top=50.0)[3:]
    rows = grid_of(captions + numbers + values)
    assert rows[-len(body) :] == [list(row) for row in body]


def test_a_dash_printed_against_the_amount_before_it_is_the_next_cells() -> None:
    # Debit amounts set right against the credit column, whose zero is a dash set left in
    # it: nearer the amount than a space. OCR sets one apart and takes the others into the
    # amount's last digit (its box runs on over the dash; the text has no dash).
    captions = (("Счет", 60), ("Дебет", 300), ("Кредит", 506), ("Оборот", 800))
    words = [ocr_word(t, x, 10) for t, x in captions]
    body = [("01", "1200,00", "—", "10,00"), ("02", "350,50", None, "20,00"),
            ("03", "—", "7000,50", "30,00"), ("04", "610,00", None, "40,00"),
            ("05", "95,50", None, "50,00"), ("06", "—", "120,00", "60,00")]  # fmt: skip
    for k, (code, debit, credit, turnover) in enumerate(body):
        y = 50.0 + 40 * k
        words += [ocr_word(code, 60, y), ocr_word(turnover, 1000 - len(turnover) * DIGIT + 2, y)]
        if debit == "—":
            words.append(_dash(300, y))
        else:
            amount = ocr_word(debit, 500 - len(debit) * DIGIT + 2, y)
            if credit is None:  # the dash swallowed by the last digit
                *chars, (a, _) = amount.chars
                amount = replace(amount, x1=531.0, chars=(*chars, (a, 531.0)))
            words.append(amount)
        if credit == "—":
            words.append(_dash(506, y))
        elif credit is not None:
            words.append(ocr_word(credit, 700 - len(credit) * DIGIT + 2, y))
    rows = grid_of(repair_words(words))
    assert rows[1:] == [list(row) for row in body]


def test_a_dash_after_an_amount_is_a_phrase_of_its_own_however_near() -> None:
    amount = [ocr_word("808", 100, 10), ocr_word("759,70", 156, 10)]
    dash = _dash(amount[-1].x1 + 6, 10)
    assert [p.text for p in phrases_of([*amount, dash], HEIGHT, OCR_PHRASE_GAP)] == [
        "808 759,70",
        "—",
    ]
    # Between two dates it is the period's.
    period = [ocr_word("01.04.2024", 100, 10), _dash(246, 10), ocr_word("31.03.2025", 277, 10)]
    assert [p.text for p in phrases_of(period, HEIGHT, OCR_PHRASE_GAP)] == [
        "01.04.2024 — 31.03.2025"
    ]


def _dash(x0: float, y: float) -> Word:
    """A dash as printed: wide and flat (a piece of a rule is tall and narrow)."""
    return Word("—", x0, y + 8, x0 + 25, y + 12, 90.0, chars=((x0, x0 + 25),))


def test_codes_set_right_as_numbers_and_read_into_the_names_stay_in_the_code_column() -> None:
    # Codes of sub-accounts are text set left, codes of accounts are numbers set right: the
    # latter end nearer the name than a space, and OCR reads them into it.
    captions = (("Счет", 60), ("Наименование", 200), ("Дебет", 500), ("Кредит", 700))
    words = [ocr_word(t, x, 10) for t, x in captions]
    body = [("02", "Амортизация", "1760,30", "210,00"), ("02.01", "Амортизация", "1760,30", "210,00"),
            ("10", "Материалы", "526893,00", "40,00"), ("10.01", "Сырье", "236830,50", "20,00"),
            ("41", "Товары", "96555,60", "15,00"), ("41.01", "Товары", "96555,60", "15,00")]  # fmt: skip
    for k, (code, name, debit, credit) in enumerate(body):
        y = 50.0 + 40 * k
        x = 60 if "." in code else 190 - len(code) * DIGIT
        # A sub-account's name is indented.
        words += [ocr_word(code, x, y), ocr_word(name, 230 if "." in code else 196, y)]
        words += [ocr_word(debit, 640 - len(debit) * DIGIT, y)]
        words += [ocr_word(credit, 840 - len(credit) * DIGIT, y)]
    rows = grid_of(words)
    assert rows[1:] == [list(row) for row in body]


def _glued_dashes(gap: float) -> list[Word]:
    """Every other row a debit set right against the credit column, whose nothing is a dash
    set left in it ``gap`` after the debit's last digit: OCR reads that dash into the debit
    ("350,50-"); the rows between have a credit and a dash for the debit."""
    words = [ocr_word(t, x, 10) for t, x in (("Счет", 60), ("Дебет", 300), ("Кредит", 510))]
    body = [
        ("01", "1200,00"),
        ("02", "350,50"),
        ("03", "7000,50"),
        ("04", "610,00"),
        ("05", "95,50"),
    ]
    for k, (code, debit) in enumerate(body):
        y = 50.0 + 40 * k
        words.append(ocr_word(code, 60, y))
        if k % 2 == 0:
            words += [_dash(300, y), ocr_word(debit, 700 - len(debit) * DIGIT + 2, y)]
            continue
        amount = ocr_word(debit, 500 - len(debit) * DIGIT + 2, y)
        dash = (500 + gap, 506 + gap)
        words.append(replace(amount, text=debit + "-", x1=dash[1], chars=(*amount.chars, dash)))
    return words


def test_a_dash_read_into_the_amount_before_it_is_the_next_cells_where_it_stands_apart() -> None:
    rows = grid_of(_glued_dashes(gap=10.0))
    assert rows[1:] == [["01", "—", "1200,00"], ["02", "350,50", "-"], ["03", "—", "7000,50"],
                        ["04", "610,00", "-"], ["05", "—", "95,50"]]  # fmt: skip


def test_a_trailing_minus_as_close_as_a_digit_stays_the_amounts() -> None:
    rows = grid_of(_glued_dashes(gap=2.0))
    assert [row[1] for row in rows[1:]] == ["—", "350,50-", "—", "610,00-", "—"]


def test_numbers_set_left_over_amounts_set_right_caption_the_column_they_start_in() -> None:
    # Turnovers split by correspondent account: "10" and "20" head their columns, set left
    # in the cell just after the column before it ends, reaching nearly to the widest amount
    # under them. Amounts end together there: a number in the gap is no amount of theirs.
    words = [ocr_word("Счет", 60, 10), ocr_word("Дебет", 300, 10)]
    words += [ocr_word("10", 408, 10), ocr_word("20", 603, 10)]
    body = [("01", "1500,00", "12345678,90", "75,00"), ("02", "12345,00", "20,00", "1234567,80"),
            ("03", "7,50", "300,00", "12345678,00"), ("04", "800,00", "4500,00", "60,00")] * 5  # fmt: skip
    for k, (code, *amounts) in enumerate(body):
        y = 50.0 + 40 * k
        words.append(ocr_word(code, 60, y))
        for right, text in zip((400, 595, 790), amounts, strict=True):
            words.append(ocr_word(text, right - len(text) * DIGIT + 2, y))
    rows = grid_of(words)
    assert rows == [["Счет", "Дебет", "10", "20"], *([*row] for row in body)]


def test_a_side_caption_beside_correspondent_accounts_numbers_is_no_line_of_the_table() -> None:
    # "кред." set left over amounts set right, on the header line that numbers the turnover's
    # correspondent accounts ("51", "62"): the line is captions, so the caption's end, right
    # of where the total's longer amount starts, opens no column between them.
    words = [ocr_word("Счет", 60, 10), ocr_word("деб.", 300, 10), ocr_word("кред.", 560, 10)]
    words += [ocr_word("51", 820, 10), ocr_word("62", 1020, 10)]
    body = [(f"{k + 10}", "1500,00", "259537,40", "75,00", "300,00") for k in range(18)]
    body.append(("Итого", "27000,00", "2443837,60", "1350,00", "5400,00"))
    for k, (code, *amounts) in enumerate(body):
        y = 50.0 + 40 * k
        words.append(ocr_word(code, 60, y))
        for right, text in zip((500, 760, 1000, 1200), amounts, strict=True):
            words.append(ocr_word(text, right - len(text) * DIGIT + 2, y))
    rows = grid_of(words)
    assert rows == [["Счет", "деб.", "кред.", "51", "62"], *([*row] for row in body)]


def test_only_a_row_of_amounts_is_cut_where_the_next_columns_values_start() -> None:
    # Values start at 1403. A group caption's second line "НА НАЧАЛО" has a word start
    # there, as does the amount after a wrapped name's "и": only the row of amounts is cut.
    caption = [ocr_word("НА", 1366, 10), ocr_word("НАЧАЛО", 1402, 10)]
    caption += [ocr_word("ЗА", 1713, 10), ocr_word("КОНЕЦ", 2086, 10)]
    name = [ocr_word("дебиторами", 1232, 50), ocr_word("и", 1380, 50)]
    amounts = [ocr_word("178", 1403, 50), ocr_word("790,20", 1453, 50)]
    amounts += [ocr_word("5926,00", 1713, 50), ocr_word("0,00", 2086, 50)]
    lines = lines_of([*caption, *name, *amounts], HEIGHT, OCR_PHRASE_GAP)
    rows = _line_rows(lines, [1390.5, 1600.0, 2000.0], HEIGHT, fold=False,
                      gaps=[(1378.0, 1403.0), (1500.0, 1700.0), (1900.0, 2080.0)])  # fmt: skip
    texts = [{k: " ".join(w.text for w in ws) for k, ws in row.items()} for row in rows]
    assert texts[0][0] == "НА НАЧАЛО"
    assert (texts[1][0], texts[1][1]) == ("дебиторами и", "178 790,20")


def _statement_words() -> list[Word]:
    """A statement as a bank prints it: the signed sum set right against the counterparty set
    left (OCR reads them as one phrase), thousands parted by a space, the bank and its BIC
    in one cell, and "№ док" read into one phrase with "Сумма в", whose caption wraps."""
    words = [
        ocr_word("Дата", 60, 20),
        ocr_word("№", 230, 20),
        ocr_word("док", 252, 20),
        ocr_word("Сумма", 304, 20),
        ocr_word("в", 386, 20),
        ocr_word("Корреспондент", 490, 20),
        ocr_word("Банк", 800, 20),
        ocr_word("Назначение", 1200, 20),
        ocr_word("валюте", 304, 45),
        ocr_word("счета", 304, 70),
    ]
    # One sum read as one word, the others' thousands apart: a page of some twenty lines.
    body = [("20999", "-52 744,55", "СООО", "ЗАО", "«Альфа-Банк»,", "ALFABY2X"),
            ("16843", "1224,89", "ООО", "ОАО", "«Приорбанк»,", "PJCBBY2X"),
            ("88375", "48 090,88", "ИП", "ЗАО", "«Альфа-Банк»,", "ALFABY2X"),
            ("15576", "-26 111,85", "ЧУП", "ОАО", "«Приорбанк»,", "PJCBBY2X"),
            ("95671", "32 898,85", "ОДО", "ЗАО", "«Альфа-Банк»,", "ALFABY2X")]  # fmt: skip
    body += [line for line in body[2:] for _ in range(4)]
    for k, (number, amount, name, form, bank, bic) in enumerate(body):
        y = 110.0 + 40 * k
        words += [ocr_word("02.04.2024", 60, y), ocr_word(number, 230, y)]
        *thousands, units = amount.split()
        words.append(ocr_word(units, 480 - 12 - (len(units) - 1) * DIGIT, y))
        for part in thousands:
            words.append(ocr_word(part, words[-1].x0 - 10 - len(part) * DIGIT, y))
        words += [ocr_word(name, 490, y), ocr_word("«Сигма»", 500 + len(name) * DIGIT, y)]
        words += [ocr_word(form, 800, y), ocr_word(bank, 852, y)]
        words.append(ocr_word(bic, 862 + len(bank) * DIGIT, y))
        words.append(ocr_word("Оплата", 1200, y))
    return words


def test_a_statements_signed_sums_read_into_the_names_stay_whole_and_the_bank_one_cell() -> None:
    rows = grid_of(_statement_words())
    body = [row for row in rows if row[0] == "02.04.2024"]
    assert [[c for c in row if c] for row in body[:2]] == [
        ["02.04.2024", "20999", "-52744,55", "СООО «Сигма»", "ЗАО «Альфа-Банк», ALFABY2X",
         "Оплата"],
        ["02.04.2024", "16843", "1224,89", "ООО «Сигма»", "ОАО «Приорбанк», PJCBBY2X",
         "Оплата"],
    ]  # fmt: skip


def _phrase(text: str, x0: float, y: float) -> list[Word]:
    """OCR words of a phrase: letters as wide as digits, a space of 8 between words."""
    words: list[Word] = []
    for part in text.split():
        words.append(ocr_word(part, x0, y))
        x0 = words[-1].x1 + 8
    return words


def test_captions_wrapped_to_their_cells_width_part_where_the_next_ones_start() -> None:
    # "сальдо к-т на" fills its cell and ends as close to "обороты д-т" in the next cell as
    # the words of one phrase; the next line's "за период" starts where "обороты" does.
    words = [
        *_phrase("Счет", 60, 10),
        *_phrase("сальдо к-т на", 305, 10),
        *_phrase("обороты д-т", 480, 10),
        *_phrase("обороты к-т", 690, 10),
        *_phrase("начало", 305, 40),
        *_phrase("за период", 480, 40),
        *_phrase("за период", 690, 40),
    ]
    body = [("01", "1200,00", "350,50", "10,00"), ("02", "700,00", "850,50", "20,00"),
            ("03", "610,00", "120,00", "30,00")]  # fmt: skip
    for k, (code, *amounts) in enumerate(body):
        y = 80.0 + 40 * k
        words.append(ocr_word(code, 60, y))
        for right, text in zip((470, 680, 890), amounts, strict=True):
            words.append(ocr_word(text, right - len(text) * DIGIT, y))
    rows = grid_of(words)
    assert rows[0] == ["Счет", "сальдо к-т на", "обороты д-т", "обороты к-т"]
    assert rows[2:] == [list(row) for row in body]


def test_dashes_set_left_over_a_box_of_captions_keep_the_box_columns() -> None:
    # Only the header is boxed; its rules part the level from the account. Below it a zero
    # is a dash set left in its cell and amounts are set right: the empty band between them
    # is no column, so the body shows no more columns than the box, and the box's rules
    # cut the rows (the level "0" printed as close to the account as a space).
    body = [("0", "01", "1 200,00", "—"), ("1", "01.1", "—", "350,50"),
            ("0", "02", "700,00", "—"), ("1", "02.1", "—", "850,50"),
            ("0", "03", "610,00", "—"), ("1", "03.1", "—", "120,00"),
            ("0", "04", "—", "—")]  # fmt: skip
    words = [ocr_word(t, x, 10) for t, x in (("Счет", 90), ("Дебет", 300), ("Кредит", 560))]
    for k, (level, code, *amounts) in enumerate(body):
        y = 50.0 + 40 * k
        words += [ocr_word(level, 66, y), ocr_word(code, 90, y)]
        for left, text in zip((300, 560), amounts, strict=True):
            x = left if not text[0].isdigit() else left + 200 - len(text) * DIGIT
            words.append(ocr_word(text, x, y))
    rules = [Rule("h", y, 60, 760) for y in (5.0, 35.0)] + [
        Rule("v", x, 5.0, 35.0) for x in (60, 84, 295, 555, 760)
    ]
    rows = grid_of(words, rules)
    assert [row[1:] for row in rows[1:]] == [
        [level, code, amount.replace(" ", ""), other] for level, code, amount, other in body
    ]


def test_a_row_number_read_into_its_account_is_cut_at_the_rule_whatever_the_level_reads() -> None:
    # A box around the captions only; below it each row's level, its number set right
    # against the rule at 130 and its account set left after it, which OCR reads as one
    # word, the box of the account's first digit starting left of the rule. The level "1"
    # is read as "не" and a level 0 as the letter "О" (the digit it stands for): still the
    # number and the account are cut at the rule, into their own columns.
    def row(level: str, number: str, code: str, y: float) -> list[Word]:
        right = [(130 - (len(number) - k) * DIGIT, 130 - (len(number) - k) * DIGIT + 12)
                 for k in range(len(number))]  # fmt: skip
        chars = (*right, *((124 + k * DIGIT, 140 + k * DIGIT) for k in range(len(code))))
        glued = Word(number + code, chars[0][0], y, chars[-1][1], y + HEIGHT, 90.0, chars=chars)
        return [ocr_word(level, 64, y), glued, ocr_word("Товары", 180, y)]

    body = [("0", "1", "01", "1200,00"), ("не", "2", "02", "350,50"),
            ("О", "11", "41", "700,00"), ("1", "12", "42", "850,50")]  # fmt: skip
    words = [ocr_word(t, x, 10) for t, x in (("№", 100), ("Счет", 134), ("Сумма", 400))]
    for k, (level, number, code, amount) in enumerate(body):
        y = 50.0 + 40 * k
        words += [*row(level, number, code, y), ocr_word(amount, 540 - len(amount) * DIGIT, y)]
    rules = [Rule("h", y, 60, 560) for y in (5.0, 35.0)] + [
        Rule("v", x, 5.0, 35.0) for x in (60, 96, 130, 300, 560)
    ]
    rows = grid_of(words, rules)
    assert [row[1:] for row in rows[1:]] == [
        [level.replace("О", "0"), number, f"{code} Товары", amount]
        for level, number, code, amount in body
    ]


def test_a_captions_word_alone_on_its_line_is_never_cut_at_a_boundary() -> None:
    # A wrapped caption's second line ("документа") starts a little left of its column's
    # values and runs over the boundary there: it is a word, not a level and a number.
    words = [ocr_word("документа", 80, 10), ocr_word("Сумма", 400, 10)]
    rows = _line_rows(lines_of(words, HEIGHT, OCR_PHRASE_GAP), [95.0, 300.0], HEIGHT, fold=False)
    assert [[w.text for w in row[k]] for row in rows for k in sorted(row)] == [
        ["документа"],
        ["Сумма"],
    ]


def _zeros_as_dashes(body: list[tuple[str, ...]], captions: list[tuple[str, int]]) -> list[Word]:
    """Captions at their x, then rows of a code and cells 260 apart from x 300: a dash set
    left in its cell, an amount set right."""
    words = [ocr_word(text, x, 10) for text, x in captions]
    for k, (code, *cells) in enumerate(body):
        y = 50.0 + 40 * k
        words.append(ocr_word(code, 60, y))
        for left, text in zip(range(300, 2000, 260), cells, strict=False):
            x = left if not text[0].isdigit() else left + 200 - len(text) * DIGIT
            words.append(ocr_word(text, x, y))
    return words


def test_two_dashes_on_a_line_are_two_cells_zeros() -> None:
    # Debit and credit both nothing on some lines, both amounts on the others: the band
    # between the debit's dash and its amounts is no column, and the credit's dash is
    # no part of the debit.
    body = [("01", "—", "—", "10,00"), ("02", "—", "—", "20,00"),
            ("03", "350,50", "70,00", "30,00"), ("04", "—", "—", "40,00"),
            ("05", "1 200,00", "80,00", "50,00")]  # fmt: skip
    rows = grid_of(_zeros_as_dashes(body, []))
    assert rows == [[cell.replace(" ", "") for cell in row] for row in body]


def test_a_caption_set_left_after_a_column_of_dashes_keeps_its_column() -> None:
    # The credit's zero is a dash set left, the debit turnover beside it always an amount
    # under a caption set left: where that caption starts a cell begins.
    body = [("01", "—", "1200,00"), ("02", "350,50", "80,00"), ("03", "—", "700,00"),
            ("04", "850,50", "90,00"), ("05", "—", "610,00")]  # fmt: skip
    rows = grid_of(_zeros_as_dashes(body, [("Счет", 60), ("Кт", 300), ("Дт", 560)]))
    assert rows == [["Счет", "Кт", "Дт"], *(list(row) for row in body)]


def test_a_caption_run_on_into_the_gap_before_the_next_caption_ends_its_cell() -> None:
    # «Наименование корреспондента» is wider than its column and runs on into the gap
    # before the tax ids, ending as close to «ИНН» as two words of one phrase; «ИНН» starts
    # where the tax ids below it start.
    words = [
        ocr_word("Дата", 40, 20),
        ocr_word("Наименование", 200, 20),
        ocr_word("корреспондента", 276, 20),
        ocr_word("ИНН", 480, 20),
        ocr_word("Сумма", 760, 20),
    ]
    body = [("Альфа", "1912345670", "100,00"), ("Бета-Трейд", "7035347969", "2500,50"),
            ("Гамма", "4398174383", "7,50")]  # fmt: skip
    for k, (name, tax_id, amount) in enumerate(body):
        y = 60 + 40 * k
        words += [ocr_word(f"0{k + 1}.10.2025", 40, y), ocr_word(name, 200, y)]
        words += [ocr_word(tax_id, 480, y), ocr_word(amount, 840 - DIGIT * len(amount), y)]
    rows = grid_of(words)
    assert rows[0] == ["Дата", "Наименование корреспондента", "ИНН", "Сумма"]
    assert rows[2] == ["02.10.2025", "Бета-Трейд", "7035347969", "2500,50"]


def test_a_gap_inside_the_phrases_of_a_column_gives_way_to_the_gap_after_them() -> None:
    # A gap between the legal form and the bank's name on every line ("ОАО | «Альфа-Банк»,
    # ALFABY2X") opens a column no phrase lies in alone: the column is the bank's, and its
    # edge the gap after the BIC, not the middle of the two gaps (where the BIC would fall
    # into the purpose after it).
    body = []
    for y in (100.0, 140.0, 180.0):
        words = [ocr_word("10,00", 40, y), ocr_word("ОАО", 200, y)]
        words += [ocr_word("«Альфа-Банк»,", 252, y), ocr_word("ALFABY2X", 430, y)]
        words += [ocr_word("Оплата", 600, y)]
        body.append(Line(words, [Phrase(words[:1]), Phrase(words[1:4]), Phrase(words[4:])]))
    captions = [(40.0, 100.0), (200.0, 300.0), (600.0, 700.0)]
    gaps = [(92.0, 200.0), (242.0, 252.0), (542.0, 600.0)]
    assert _without_stray_columns(gaps, body, captions, 10.0) == [(92.0, 200.0), (542.0, 600.0)]


def test_numbers_read_with_the_date_before_them_start_a_cell_where_they_start_together() -> None:
    # Each line's date and the document number after it are set closer than a space; no
    # caption stands over the numbers. They start together on every line: a column's edge.
    words = [ocr_word(t, x, 20) for t, x in (("Дата", 100), ("Сумма", 420), ("Назначение", 600))]
    body = [("09.09.2024", "80089", "50233,77"), ("11.09.2024", "21536", "8390,89"),
            ("12.09.2024", "85100", "7,50")]  # fmt: skip
    for k, (date, number, amount) in enumerate(body):
        y = 60 + 40 * k
        words += [ocr_word(date, 100, y), ocr_word(number, 246, y)]
        words += [ocr_word(amount, 500 - DIGIT * len(amount), y), ocr_word("Оплата", 600, y)]
    rows = grid_of(words)
    assert [row[:3] for row in rows[1:]] == [list(line) for line in body]


def test_a_photos_next_page_takes_the_columns_of_the_page_before_in_its_own_scale() -> None:
    # Each photo's sheet is cut out and enlarged on its own: the second page came out 10 %
    # narrower, and has no header to find its columns by.
    def phrase(text: str, x: float, y: float, scale: float) -> list[Word]:
        out = []
        for part in text.split():
            out.append(ocr_word(part, x * scale, y))
            x = (out[-1].x1 + 6) / scale
        return out

    def rows(first: int, y: float, scale: float) -> list[Word]:
        out: list[Word] = []
        for k in range(4):
            out += phrase(f"{first + k}", 40, y + 40 * k, scale)
            for right, value in zip((450, 600, 750, 900, 1050, 1200), AMOUNTS, strict=True):
                if value:
                    out.append(ocr_word(value, right * scale - DIGIT * len(value) + 2, y + 40 * k))
        return out

    header = [
        *phrase("Оборотно-сальдовая ведомость", 40, 20, 1.0),
        *phrase("Счет", 40, 60, 1.0),
        *phrase("Сальдо на начало", 368, 60, 1.0),
        *phrase("Обороты", 668, 60, 1.0),
        *phrase("Сальдо на конец", 968, 60, 1.0),
    ]
    for k, side in enumerate(("Дебет", "Кредит") * 3):
        header += phrase(side, 368 + 150 * k, 100, 1.0)
    pages = [
        PageWords(1, 1300.0, 1800.0, [*header, *rows(10, 140, 1.0)], source="ocr"),
        PageWords(2, 1170.0, 1620.0, rows(14, 20, 0.9), source="ocr"),
    ]
    (document,) = recognize_pages(pages, ScanLimits()).documents
    assert isinstance(document, TrialBalance)
    assert [row.code for row in document.rows] == [str(k) for k in range(10, 18)]
    assert {
        (row.opening_debit, row.turnover_credit, row.closing_debit) for row in document.rows
    } == {("100.00", "30.00", "120.00")}


AMOUNTS = ("100,00", None, "50,00", "30,00", "120,00", None)


@pytest.mark.parametrize("apart", [True, False])
def test_a_row_number_read_as_a_letter_and_glued_to_the_name_is_cut_at_the_boundary(
    apart: bool,
) -> None:
    # Row 3's number read as «З», no space before the name: «ЗКолос». The number is the
    # digit the letter stands for, and the column boundary the other rows show parts them,
    # even where OCR's boxes of the characters run together over the gap.
    # The names start 12 after the numbers end: closer than two phrases.
    words = [ocr_word(t, x, 20) for t, x in (("№", 80), ("Наименование", 124), ("Дебет", 400))]
    words.append(ocr_word("Кредит", 600, 20))
    for k, name in enumerate(("Альфа", "Бета", "Колос", "Гамма")):
        y = 60 + 40 * k
        if k == 2:
            letter = (124.0, 136.0) if apart else (113.0, 136.0)
            chars = (
                (100.0, 112.0),
                letter,
                *((138 + j * DIGIT, 150 + j * DIGIT) for j in range(4)),
            )
            words.append(Word("З" + name, 100, y, chars[-1][1], y + HEIGHT, 90.0, chars=chars))
        else:
            words += [ocr_word(str(k + 1), 100, y), ocr_word(name, 124, y)]
        words.append(ocr_word("100,00", 480 - 6 * DIGIT, y))
        words.append(ocr_word("5,00", 680 - 4 * DIGIT, y))
    rows = grid_of(words)
    assert [row[:2] for row in rows[1:]] == [
        ["1", "Альфа"], ["2", "Бета"], ["3", "Колос"], ["4", "Гамма"]
    ]  # fmt: skip


def test_an_account_row_whose_name_starts_in_the_gap_after_its_level_is_cut_at_the_gap() -> None:
    # Levels set right at 40-52, names indented by their level: the account's own name
    # starts at 60, inside the gap its subaccounts' names (from 80) leave after the levels.
    # OCR reads the level, the code and the name as one phrase ("0 76 Расчеты").
    words = [ocr_word(t, x, 10) for t, x in (("Субконто", 60), ("Дебет", 560), ("Кредит", 760))]
    body = [("0", 60, "76 Расчеты", "900,00")]
    body += [("1", 80, "Колесников", "300,00"), ("2", 100, "Договор", "100,00")] * 8
    for k, (level, x, name, amount) in enumerate(body):
        y = 50.0 + 40 * k
        words.append(ocr_word(level, 40, y))
        for part in name.split():
            words.append(ocr_word(part, x, y))
            x += len(part) * DIGIT + 8
        words += [ocr_word(amount, right - len(amount) * DIGIT, y) for right in (700, 900)]
    rows = grid_of(words)
    assert [row[:2] for row in rows[1:4]] == [
        ["0", "76 Расчеты"], ["1", "Колесников"], ["2", "Договор"]
    ]  # fmt: skip


def test_a_caption_wider_than_its_values_set_left_runs_on_to_the_next_columns_edge() -> None:
    # Amounts as text, set left in their cells: the gap after "12000,00" ends where the next
    # column's values start, and its middle falls between "нач." and "Дт" of the caption
    # above, which fills its cell. The cell's edge is just before the next values.
    words = [
        *_phrase("Счет", 60, 10),
        *_phrase("Имя", 160, 10),
        *_phrase("Сальдо нач. Дт", 300, 10),
        *_phrase("Сальдо нач. Кт", 492, 10),
        *_phrase("Оборот Дт", 684, 10),
    ]
    body = [("01", "ОС", "12000,00", "7,00", "10,00"), ("02", "НМА", "50,00", "350,50", "2000,00"),
            ("03", "Товары", "610,00", "12,00", "30,00")]  # fmt: skip
    for k, (code, name, *amounts) in enumerate(body):
        y = 50.0 + 40 * k
        words += [ocr_word(code, 60, y), ocr_word(name, 160, y)]
        for left, text in zip((300, 492, 684), amounts, strict=True):
            words.append(ocr_word(text, left, y))
    rows = grid_of(words)
    assert rows[0] == ["Счет", "Имя", "Сальдо нач. Дт", "Сальдо нач. Кт", "Оборот Дт"]
    assert rows[1:] == [list(row) for row in body]


def test_a_page_that_prints_the_header_again_keeps_a_column_its_few_rows_hide() -> None:
    # Each page repeats the header. On one row of the second page OCR read the level and
    # the row number as one word, with a mark as wide as the gap between the two columns
    # ("0.17"). The first page has rows enough for such a line to be forgiven; the second,
    # of four rows, has not. The page before found that gap, and every other column the
    # second page found.
    def row(k: int, y: float) -> list[Word]:
        number = str(k + 1)
        if k == 16:
            spans = ((20, 32), (30, 72), (74, 86), (88, 100))
            out = [Word(f"0.{number}", 20, y, 100, y + HEIGHT, 90.0, chars=spans)]
        else:
            out = [ocr_word(str(k % 2), 20, y), ocr_word(number, 100 - DIGIT * len(number) + 2, y)]
        # Codes that tell no nesting: the levels do.
        out += [ocr_word(str(10 + k), 130, y), ocr_word("Товары", 180, y)]
        for right, value in zip((450, 600, 750, 900, 1050, 1200), AMOUNTS, strict=True):
            if value:
                out.append(ocr_word(value, right - DIGIT * len(value) + 2, y))
        return out

    header = [ocr_word("№", 88, 60), ocr_word("Счет", 130, 60)]
    for text, x in (("Сальдо на начало", 368), ("Обороты", 668), ("Сальдо на конец", 968)):
        header += _phrase(text, x, 60)
    for k, side in enumerate(("Дебет", "Кредит") * 3):
        header += _phrase(side, 368 + 150 * k, 100)
    first = [w for k in range(16) for w in row(k, 140 + 40 * k)]
    second = [w for k in range(16, 20) for w in row(k, 140 + 40 * (k - 16))]
    pages = [
        PageWords(1, 1300.0, 1800.0, [*header, *first], source="ocr"),
        PageWords(2, 1300.0, 1800.0, [*header, *second], source="ocr"),
    ]
    (document,) = recognize_pages(pages, ScanLimits()).documents
    assert isinstance(document, TrialBalance)
    levels = [(row.level, row.parent) for row in document.rows]
    assert levels == [pair for k in range(1, 20, 2) for pair in ((0, None), (1, k))]


def test_a_rule_of_a_boxed_header_ocr_read_as_a_mark_still_parts_its_columns() -> None:
    # The box's rule between «Дебет» and «Кредит» was read as a mark of the caption after it
    # ("|Кредит") and is missing; the amounts below the box leave a gap there, and the
    # box's last band has a caption on each side of it and none across it.
    words = [ocr_word(t, x, 10) for t, x in (("№", 24), ("Вид", 64), ("Счет", 110))]
    words += _phrase("Сальдо на начало", 460, 10)
    words += [ocr_word("Дебет", 310, 45), ocr_word("|Кредит", 570, 45)]
    body = [("01", "1200,00", "350,50"), ("02", "700,00", "8,50"), ("03", "61,00", "120,00"),
            ("04", "5,00", "10,00"), ("05", "17,00", "2,00"), ("06", "9,10", "66,00")]  # fmt: skip
    for k, (code, debit, credit) in enumerate(body):
        y = 90.0 + 40 * k
        words += [ocr_word(code, 110, y)]
        words += [ocr_word(debit, 552 - DIGIT * len(debit), y)]
        words += [ocr_word(credit, 812 - DIGIT * len(credit), y)]
    rules = [Rule("h", y, 20, 820) for y in (5.0, 38.0, 75.0)] + [
        Rule("v", x, 5.0, 75.0) for x in (20, 60, 100, 300, 820)
    ]
    rows = grid_of(words, rules)
    assert [row[-2:] for row in rows[-6:]] == [[debit, credit] for _, debit, credit in body]


def test_captions_of_neighbouring_columns_read_as_one_run_are_parted_under_the_header() -> None:
    # The sides line's captions fill their cells and are set as close as the words of one:
    # one run from the third column over two boundaries. Below a line of the header's
    # cells it is captions, parted where the columns part.
    words = [*_phrase("Счет", 60, 10), *_phrase("Имя", 160, 10), *_phrase("Сальдо", 352, 10)]
    for k, side in enumerate(("Дт", "Кт", "Дт")):
        words += _phrase(f"Сумма {side}", 352 + 114 * k, 40)
    body = [("01", "ОС", "1200,00", "10,00", "350,50"), ("02", "НМА", "7,00", "850,50", "20,00"),
            ("03", "Товары", "610,00", "1,00", "3000,00")]  # fmt: skip
    for k, (code, name, *amounts) in enumerate(body):
        y = 80.0 + 40 * k
        words += [ocr_word(code, 60, y), ocr_word(name, 160, y)]
        for column, text in enumerate(amounts):
            words.append(ocr_word(text, 352 + 114 * column, y))
    rows = grid_of(words)
    assert rows[1] == [None, None, "Сумма Дт", "Сумма Кт", "Сумма Дт"]
    assert rows[2:] == [list(row) for row in body]


def test_a_long_code_the_gap_of_a_code_column_set_two_ways_cut_at_a_dot_joins_it() -> None:
    # Accounts as numbers set right ("04"), subaccounts as text set left ("10.1"): the gap
    # between them parts the column, and cuts the one long code that runs over it at a dot
    # ("10.1. | 1"). The two columns are one, the code whole.
    codes = ["04", "10.1", "10.2", "20", "26", "41", "41.2", "44", "50", "51", "60", "60.1",
             "62", "62.2", "68", "69", "70", "71", "76", "76.5", "10.1.1", "90"]  # fmt: skip
    words = [ocr_word(t, x, 10) for t, x in (("№", 40), ("Счет", 104), ("Имя", 240))]
    words += [ocr_word(t, x, 10) for t, x in (("Дебет", 430), ("Кредит", 600))]
    for k, code in enumerate(codes):
        y = 50.0 + 40 * k
        words.append(ocr_word(str(k + 1), 40, y))
        if code == "10.1.1":
            spans = tuple((104 + 14 * i, 116 + 14 * i) for i in range(len(code)))
            words.append(Word(code, 104, y, spans[-1][1], y + HEIGHT, 95.0, chars=spans))
        elif "." in code:
            words.append(ocr_word(code, 104, y))
        else:
            words.append(ocr_word(code, 198 - DIGIT * len(code), y))
        words += [ocr_word("Товары", 240, y), ocr_word("10,00", 500 - 5 * DIGIT, y)]
    rows = grid_of(words)
    labels = [row[1] for row in rows[1:]]
    assert labels[:-2] == codes[:-2] and labels[-1] == "90"
    assert labels[-2] is not None and labels[-2].replace(" ", "") == "10.1.1"


def test_a_code_whose_dot_ocr_set_a_space_beside_is_one_code() -> None:
    words = [ocr_word(t, x, 10) for t, x in (("Счет", 60), ("Наименование", 260), ("Сумма", 600))]
    body = [(("68.1.", "1"), "Налог"), (("10.1", ".1"), "Сырье"), (("68.1",), "Налог")]
    for k, (parts, name) in enumerate(body):
        y = 50 + 40 * k
        x = 60.0
        for part in parts:
            words.append(ocr_word(part, x, y))
            x = words[-1].x1 + 8
        words += [ocr_word(name, 260, y), ocr_word("100,00", 690 - 6 * DIGIT, y)]
    assert [row[:2] for row in grid_of(words)[1:]] == [
        ["68.1.1", "Налог"],
        ["10.1.1", "Сырье"],
        ["68.1", "Налог"],
    ]


def test_a_code_read_into_the_indicator_beside_it_is_cut_at_the_columns_edge() -> None:
    # Codes set right end at 240, indicators set left start at 248: on one line of many OCR
    # read "44БУ" as one word and drew its last digit's box over the letter after it.
    words = [ocr_word(t, x, 10) for t, x in (("Наименование", 40), ("Счет", 170))]
    words += [ocr_word("Показатели", 248, 10), ocr_word("Сумма", 600, 10)]
    body = [("Товары", str(code)) for code in range(41, 61)]
    for k, (name, code) in enumerate(body):
        y = 50 + 40 * k
        words += [ocr_word(name, 40, y), ocr_word("100,00", 690 - 6 * DIGIT, y)]
        if code == "44":
            chars = ((212.0, 226.0), (222.0, 249.0), (248.0, 260.0), (262.0, 274.0))
            words.append(Word("44БУ", 212, y, 274, y + HEIGHT, 90.0, chars=chars))
        else:
            words += [ocr_word(code, 240 - 2 * DIGIT + 2, y), ocr_word("БУ", 248, y)]
    assert [row[:3] for row in grid_of(words)[1:]] == [[name, code, "БУ"] for name, code in body]


def test_row_numbers_read_with_the_codes_beside_them_part_where_text_cells_start_too() -> None:
    # Row numbers set right end at 151, codes set left start at 161: closer than a space,
    # so OCR reads "318.3" as one word, on a line whose outline level it misread ("al’").
    # The header names the code column on one line only ("№ Счет" as one phrase), but the
    # quantity lines' label starts there too: two cells of text start after the gap.
    words = [ocr_word("№", 137, 10), ocr_word("Счет", 161, 10), ocr_word("Наименование", 300, 10)]
    words += [ocr_word("Дебет", 600, 10), ocr_word("Кредит", 720, 10)]
    body = [(str(k), f"18.{k}", "НДС") for k in range(1, 6)]
    y = 50.0
    for number, code, name in body:
        if number == "3":
            chars = ((137.0, 149.0), *((161 + k * DIGIT, 173 + k * DIGIT) for k in range(4)))
            words.append(ocr_word("al’", 60, y))
            words.append(Word(number + code, 137, y, chars[-1][1], y + HEIGHT, 90.0, chars=chars))
        else:
            words += [ocr_word("1", 60, y), ocr_word(number, 151 - 14, y), ocr_word(code, 161, y)]
        words += [ocr_word(name, 300, y), ocr_word("100,00", 690 - 6 * DIGIT, y)]
        words.append(ocr_word("0,00", 800 - 4 * DIGIT, y))
        y += 40
        words += [ocr_word("0", 60, y), ocr_word("Количество", 161, y)]
        words += [ocr_word("5", 690 - DIGIT, y), ocr_word("5", 800 - DIGIT, y)]
        y += 40
    rows = [row for row in grid_of(words)[1:] if row[1]]
    assert [row[1:4] for row in rows] == [list(row) for row in body]
