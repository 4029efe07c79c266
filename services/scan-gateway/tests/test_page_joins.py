"""Pages into documents: a header printed again on the next page (all of it, or a run of its
rows) continues the document; what looks like a header below rows of amounts starts none."""

from __future__ import annotations

import pytest

from scan_gateway.grid_from_words import PageGrid
from scan_gateway.pages import assemble

HEADER = [
    ["Счет", "Сальдо на начало", None, "Обороты", None, "Сальдо на конец", None],
    [None, "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"],
]
NUMBERS = [["1", "2", "3", "4", "5", "6", "7"]]


def page(number: int, rows: list[list[str | None]]) -> PageGrid:
    width = max(len(r) for r in rows)
    rows = [r + [None] * (width - len(r)) for r in rows]
    return PageGrid(
        number,
        rows,
        [[None] * width for _ in rows],
        [[None] * width for _ in rows],
        ocr=False,
    )


def body(first: int, count: int) -> list[list[str | None]]:
    return [
        [f"{first + k:02d}", "100,00", None, "50,00", "30,00", "120,00", None] for k in range(count)
    ]


def test_a_header_printed_again_without_its_column_numbers_continues_the_document() -> None:
    first = page(1, [["Оборотно-сальдовая ведомость"], *HEADER, *NUMBERS, *body(1, 3)])
    second = page(2, [*HEADER, *body(4, 2)])
    assembled = assemble([first, second])
    assert assembled.documents == [0]
    (grid,) = assembled.grids
    # The repeated header is dropped: rows of both pages follow one another.
    assert [row[0] for row in grid.rows[-5:]] == ["01", "02", "03", "04", "05"]
    assert assembled.pages == [(1, 2)]


def test_a_header_below_rows_of_amounts_starts_no_new_document() -> None:
    first = page(1, [["Выписка по счету"], *HEADER, *body(1, 3)])
    closing = [["Итого", "300,00", "0,00", "150,00", "90,00", "360,00", "0,00"]]
    second = page(2, [*body(4, 2), *closing, *HEADER])
    assembled = assemble([first, second])
    assert assembled.documents == [0]
    assert assembled.pages == [(1, 2)]


def test_a_new_header_under_titles_starts_a_new_document() -> None:
    first = page(1, [["Оборотно-сальдовая ведомость"], *HEADER, *body(1, 2)])
    second = page(2, [["Оборотно-сальдовая ведомость по счету 60"], *HEADER, *body(1, 2)])
    assembled = assemble([first, second])
    assert len(assembled.documents) == 2


def test_a_page_that_drew_the_table_with_a_column_more_has_its_rows_put_in_the_first_pages() -> (
    None
):
    # The second page is ruled: a column left of its table's border, empty, shifts every
    # cell one to the right; its repeated header says where each column belongs.
    first = page(1, [["Оборотно-сальдовая ведомость"], *HEADER, *body(1, 2)])
    shifted = [[None, *row] for row in [*HEADER, *body(3, 2)]]
    assembled = assemble([first, page(2, shifted)])
    (grid,) = assembled.grids
    assert grid.rows[-2:] == body(3, 2)
    assert assembled.pages == [(1, 2)]


def test_a_header_whose_caption_lines_a_page_folds_otherwise_is_the_same_header() -> None:
    # Without cell borders one page sets a wrapped caption's lines on rows of their own,
    # the next folds them into one row.
    captions = ["деб. сальдо", "кред. сальдо", "деб.", "кред.", "деб. сальдо", "кред. сальдо"]
    below = ["на начало\nпериода"] * 2 + ["обороты\nза период"] * 2 + ["на конец\nпериода"] * 2
    first = page(1, [["Оборотно-сальдовая ведомость"], ["Счет", *captions], [None, *below]])
    folded = ["Счет", *(f"{c}\n{b}" for c, b in zip(captions, below, strict=True))]
    assembled = assemble([first, page(2, [folded, *body(1, 2)])])
    assert assembled.documents == [0]
    (grid,) = assembled.grids
    assert grid.rows[3:] == body(1, 2)


def test_a_header_with_a_word_read_into_the_neighbours_caption_is_the_same_header() -> None:
    # OCR read two captions' lines side by side as one phrase on the first page ("кред.
    # сальдо деб."), and left their last lines a row of their own under the header.
    first = page(
        1,
        [
            ["Оборотно-сальдовая ведомость"],
            [
                "Счет",
                "деб. сальдо",
                "кред. сальдо деб.",
                None,
                "кред.",
                "деб. сальдо",
                "кред. сальдо",
            ],
            [None, "на начало", "на начало", "обороты", "обороты", "на конец", "на конец"],
            [None, "периода", "периода", "за период", "за период", "периода", "периода"],
            *body(1, 2),
        ],
    )
    captions = ["Счет", "деб. сальдо\nна начало\nпериода", "кред. сальдо\nна начало\nпериода",
                "деб.\nобороты\nза период", "кред.\nобороты\nза период",
                "деб. сальдо\nна конец\nпериода", "кред. сальдо\nна конец\nпериода"]  # fmt: skip
    assembled = assemble([first, page(2, [captions, *body(3, 2)])])
    assert assembled.documents == [0]
    (grid,) = assembled.grids
    assert grid.rows[4:] == body(1, 4)


def test_a_last_page_of_the_header_again_and_signatures_opens_no_document() -> None:
    first = page(1, [["Оборотно-сальдовая ведомость"], *HEADER, *body(1, 3)])
    # Without rows below it, the page set the header's captions otherwise.
    again = [["Счет Сальдо на начало", None, "Обороты", None, "Сальдо на конец", None],
             ["Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"],
             ["Главный бухгалтер ____ (подпись)"]]  # fmt: skip
    assembled = assemble([first, page(2, again)])
    assert assembled.documents == [0]
    assert assembled.pages == [(1, 2)]


def test_a_header_printed_again_with_one_caption_read_otherwise_continues_the_document() -> None:
    captions: list[list[str | None]] = [["№ п/п", *HEADER[0]], [None, *HEADER[1]]]
    numbered = [[str(k) for k in range(1, 9)]]
    rows = [[str(k), *row] for k, row in enumerate(body(1, 5), start=1)]
    first = page(1, [["Оборотно-сальдовая ведомость"], *captions, *numbered, *rows[:3]])
    misread = [["№ n/t", *captions[0][1:]], captions[1]]
    assembled = assemble([first, page(2, [*misread, *rows[3:]])])
    assert assembled.documents == [0]
    assert assembled.pages == [(1, 2)]
    # Captions that name other columns: another table.
    other = [["№ n/t", "Сч", "Наименование", *captions[0][2:]], [None, None, *captions[1][1:]]]
    named = [[*row[:2], "Материалы", *row[2:]] for row in rows[3:]]
    assert len(assemble([first, page(2, [*other, *named])]).documents) == 2


def test_a_header_printed_again_with_captions_read_otherwise_but_the_same_roles_continues() -> None:
    captions: list[list[str | None]] = [["№ п/п", *HEADER[0]], [None, *HEADER[1]]]
    rows = [[str(k), *row] for k, row in enumerate(body(1, 5), start=1)]
    first = page(1, [["Оборотно-сальдовая ведомость"], *captions, *rows[:3]])
    # Two captions read otherwise, each still naming what its column holds.
    misread = [["№ n/t", "Счет", "Сальдо на начапо", *captions[0][3:]], captions[1]]
    assembled = assemble([first, page(2, [*misread, *rows[3:]])])
    assert assembled.documents == [0]
    assert assembled.pages == [(1, 2)]
    assert [row[1] for row in assembled.grids[0].rows[-5:]] == ["01", "02", "03", "04", "05"]


def test_a_statements_header_printed_again_with_two_of_nine_captions_misread_continues() -> None:
    captions: list[str | None] = ["Дата", "Номер документа", "Тип операции", "Сумма",
                                  "Контрагент", "ИНН", "IBAN", "Банк", "Детали"]  # fmt: skip
    rows: list[list[str | None]] = [
        [f"{day:02d}.05.2024", f"{day}", "Debit", "100,00", "ООО «Альфа»", "1858396833",
         "BY16BAPB30129679633190164300", "ОАО «Приорбанк»", "Оплата"]
        for day in range(1, 6)
    ]  # fmt: skip
    first = page(1, [["Выписка по счету"], captions, *rows[:3]])
    # "Тип" in italics read as "Tun", "Банк" as "Вапк" (no bank's caption now): the same
    # header still.
    misread = ["Tun операции" if c == "Тип операции" else "Вапк" if c == "Банк" else c
               for c in captions]  # fmt: skip
    assembled = assemble([first, page(2, [misread, *rows[3:]])])
    assert assembled.documents == [0]
    assert assembled.pages == [(1, 2)]


@pytest.mark.parametrize(
    "balance",
    [
        ["Остаток на начало периода на:", "01.05.2024", "48 607,51"],
        # The label's words parted between two cells.
        ["Входящее", "сальдо на:", "01.05.2024", "48 607,51"],
    ],
)
def test_a_balance_line_among_the_titles_does_not_hide_the_header(
    balance: list[str | None],
) -> None:
    captions = ["Дата документа", "Номер документа", "Дебет", "Кредит", "Контрагент", "Детали"]
    rows = [
        [f"{day:02d}.05.2024", f"{day}", "100,00", None, "ООО «Альфа»", "Оплата"]
        for day in range(1, 4)
    ]
    titles = [
        ["Выписка по счету BY14PJCB30127754876910193300"],
        balance,
    ]
    first = page(1, [*titles, captions, *rows])
    second = page(2, [captions, *rows])
    assembled = assemble([first, second])
    assert assembled.documents == [0]
    assert assembled.pages == [(1, 2)]


def test_a_border_read_into_a_caption_is_no_caption_read_otherwise() -> None:
    # Page 1 read a border's bar into two sub-captions; page 2 read "IBAN" as "1ВАМ", so
    # its header names one column less.
    top: list[str | None] = ["Дата", "Номер", "Дебет", "Кредит", "Контрагент", None, None, "Детали"]
    sub: list[str | None] = [None, None, None, None, "Наименование", "|УНП", "|IBAN", None]
    misread = [*sub[:5], "УНП", "1ВАМ", None]
    lines = [
        [f"0{k}.02.2024", f"7310{k}", f"{k}00,00", "0,00", "ООО «Сигма»", "751204271",
         "BY38BAPB30124111624060197800", "Оплата"]
        for k in range(1, 7)
    ]  # fmt: skip
    first = page(1, [["Выписка из лицевого счета"], top, sub, *lines[:3]])
    assembled = assemble([first, page(2, [top, misread, *lines[3:]])])
    assert assembled.documents == [0]
    assert assembled.pages == [(1, 2)]
