"""Lines of an unruled table into rows: wrapped cells join the row of their amounts whichever
way the sheet aligned them; captions wrapped in their cells fold; other lines stay rows."""

from __future__ import annotations

import pytest

from scan_gateway.words import Word
from scan_gateway.wrapped_cells import Alignment, TableLine, ends_in_amount, fold_wrapped

PITCH = 10.0  # lines of one cell
ROW_GAP = 4.0  # extra space between rows
COLUMNS = {0: 0.0, 1: 60.0, 2: 200.0, 3: 300.0, 4: 400.0}


def line(y: float, cells: dict[int, str]) -> TableLine:
    words = {
        column: [Word(text, COLUMNS[column], y - 4, COLUMNS[column] + 40, y + 4)]
        for column, text in cells.items()
    }
    return TableLine(y, words, [(c, t) for c, t in cells.items()])


def texts(rows: list[dict[int, list[Word]]]) -> list[dict[int, str]]:
    return [{c: " ".join(w.text for w in ws) for c, ws in sorted(row.items())} for row in rows]


def statement(alignment: Alignment) -> list[TableLine]:
    """Three transactions; the second's purpose wraps over three lines, set as ``alignment``
    says relative to its date and amount."""
    lines = [line(0, {0: "Дата", 1: "Сумма", 2: "Назначение"})]
    y = PITCH + ROW_GAP
    lines.append(line(y, {0: "01.02.2025", 1: "100,00", 2: "Оплата"}))
    y += PITCH + ROW_GAP
    purpose = ["Оплата по счету", "№ 5 от 01.02.2025", "за материалы"]
    if alignment is Alignment.TOP:
        lines.append(line(y, {0: "02.02.2025", 1: "200,00", 2: purpose[0]}))
        lines += [line(y + PITCH, {2: purpose[1]}), line(y + 2 * PITCH, {2: purpose[2]})]
    elif alignment is Alignment.BOTTOM:
        lines += [line(y, {2: purpose[0]}), line(y + PITCH, {2: purpose[1]})]
        lines.append(line(y + 2 * PITCH, {0: "02.02.2025", 1: "200,00", 2: purpose[2]}))
    else:
        lines.append(line(y, {2: purpose[0]}))
        lines.append(line(y + PITCH, {0: "02.02.2025", 1: "200,00", 2: purpose[1]}))
        lines.append(line(y + 2 * PITCH, {2: purpose[2]}))
    y += 3 * PITCH + ROW_GAP
    lines.append(line(y, {0: "03.02.2025", 1: "300,00", 2: "Комиссия"}))
    return lines


@pytest.mark.parametrize("alignment", list(Alignment))
def test_a_wrapped_purpose_joins_its_transaction_however_it_is_aligned(
    alignment: Alignment,
) -> None:
    rows = texts(fold_wrapped(statement(alignment), PITCH))
    assert rows == [
        {0: "Дата", 1: "Сумма", 2: "Назначение"},
        {0: "01.02.2025", 1: "100,00", 2: "Оплата"},
        {0: "02.02.2025", 1: "200,00", 2: "Оплата по счету № 5 от 01.02.2025 за материалы"},
        {0: "03.02.2025", 1: "300,00", 2: "Комиссия"},
    ]


def test_titles_above_and_a_signature_below_stay_lines_of_their_own() -> None:
    lines = [
        line(-40, {0: "Выписка по счету"}),
        line(-30, {0: "Клиент: ООО «Альфа»"}),
        *statement(Alignment.TOP),
    ]
    last = lines[-1].cy
    lines.append(line(last + 4 * PITCH, {0: "Главный бухгалтер"}))
    rows = texts(fold_wrapped(lines, PITCH))
    assert rows[0] == {0: "Выписка по счету"}
    assert rows[1] == {0: "Клиент: ООО «Альфа»"}
    assert rows[-1] == {0: "Главный бухгалтер"}
    assert len(rows) == 2 + 4 + 1


def test_a_balance_line_between_transactions_is_a_row_not_a_wrapped_name() -> None:
    lines = statement(Alignment.TOP)
    y = lines[1].cy + PITCH
    lines.insert(2, line(y, {0: "Остаток на начало дня 02.02.2025: 100,00"}))
    rows = texts(fold_wrapped(lines, PITCH))
    assert {0: "Остаток на начало дня 02.02.2025: 100,00"} in rows
    assert rows[1] == {0: "01.02.2025", 1: "100,00", 2: "Оплата"}


@pytest.mark.parametrize(
    ("first", "body"),
    [
        ("Счет", ("01", "10")),
        # An outline level printed before the captions: still they take their wrapped lines.
        ("0", ("0", "1")),
    ],
)
def test_a_caption_wrapped_over_three_lines_is_one_header_row(
    first: str, body: tuple[str, str]
) -> None:
    lines = [
        line(0, {0: first, 1: "Сальдо на", 2: "Сальдо на", 3: "Обороты"}),
        line(PITCH, {1: "начало", 2: "конец", 3: "за"}),
        line(2 * PITCH, {1: "01.01.2025", 2: "31.12.2025", 3: "период"}),
        line(3 * PITCH + ROW_GAP, {0: body[0], 1: "100,00", 2: "150,00", 3: "50,00"}),
        line(4 * PITCH + 2 * ROW_GAP, {0: body[1], 1: "200,00", 2: "250,00", 3: "50,00"}),
    ]
    rows = texts(fold_wrapped(lines, PITCH))
    assert rows[0] == {
        0: first,
        1: "Сальдо на начало 01.01.2025",
        2: "Сальдо на конец 31.12.2025",
        3: "Обороты за период",
    }
    assert len(rows) == 3


def test_the_next_header_row_with_as_many_cells_is_not_a_wrapped_caption() -> None:
    lines = [
        line(0, {0: "Счет", 1: "Сальдо", 2: "Обороты"}),
        line(PITCH + ROW_GAP, {1: "Дебет", 2: "Кредит"}),
        line(2 * PITCH + 2 * ROW_GAP, {0: "01", 1: "100,00", 2: "150,00"}),
    ]
    # "Дебет | Кредит" sits under the captions at a row's distance: the header's second row.
    rows = texts(fold_wrapped(lines, PITCH / 1.5))
    assert rows[1] == {1: "Дебет", 2: "Кредит"}


def test_a_quantity_line_under_amounts_printed_with_dashes_for_zeros_is_a_row() -> None:
    cells = [
        {0: "Наименование", 1: "Счет", 2: "Дебет", 3: "Кредит"},
        {0: "Материалы", 1: "10", 2: "673777,80", 3: "-"},
        {0: "Кол-во", 2: "2,424"},
        {0: "Товары", 1: "41", 2: "-", 3: "150,00"},
        {0: "Касса", 1: "50", 2: "-", 3: "5,00"},
        {0: "Склад", 1: "51", 2: "-", 3: "7,00"},
    ]
    lines = [line(k * (PITCH + ROW_GAP), row) for k, row in enumerate(cells)]
    assert texts(fold_wrapped(lines, PITCH)) == cells


def test_quantity_lines_of_a_short_table_under_a_deep_header_are_rows() -> None:
    # Four lines of captions over two items: counted with the header's words, the amounts'
    # columns would be columns of text, and each quantity line a name wrapped onto its item.
    cells = [
        {0: "№", 1: "Наименование", 2: "Сальдо", 3: "Оборот", 4: "Сальдо"},
        {2: "на начало", 3: "за", 4: "на конец"},
        {2: "периода", 3: "период", 4: "периода"},
        {2: "Сумма по", 3: "Сумма по", 4: "Сумма по"},
        {0: "1", 1: "Краска", 2: "22977,10", 3: "22159,50", 4: "20002,20"},
        {1: "Кол-во", 2: "366", 3: "366", 4: "366"},
        {0: "2", 1: "Лист", 2: "—", 3: "8968,40", 4: "—"},
        {1: "Кол-во", 2: "234", 3: "234", 4: "234"},
    ]
    lines = [line(k * (PITCH + ROW_GAP), row) for k, row in enumerate(cells)]
    assert texts(fold_wrapped(lines, PITCH))[-4:] == cells[-4:]


def test_a_name_that_starts_with_its_code_on_a_line_without_amounts_is_a_row_of_zeros() -> None:
    y = PITCH + ROW_GAP
    lines = [
        line(0, {0: "Счет", 1: "Сальдо"}),
        line(y, {0: "08 Вложения", 1: "500,00"}),
        line(2 * y, {0: "08.1 Приобретение ОС", 1: "500,00"}),
        # All zeros, printed empty: the code and name alone, one row's pitch lower.
        line(3 * y, {0: "08.1.1 Приобретение ОС (1)"}),
        line(4 * y, {0: "08.1.2 Приобретение ОС (2)", 1: "500,00"}),
    ]
    rows = texts(fold_wrapped(lines, PITCH))
    assert [row[0] for row in rows[1:]] == [
        "08 Вложения",
        "08.1 Приобретение ОС",
        "08.1.1 Приобретение ОС (1)",
        "08.1.2 Приобретение ОС (2)",
    ]


def test_a_four_digit_code_and_its_name_on_a_line_without_amounts_is_a_row_of_zeros() -> None:
    # Kazakhstan's chart: without it, the zero row joined the name above and the trial balance
    # came out done with a row missing (its sums hold either way).
    y = PITCH + ROW_GAP
    lines = [
        line(0, {0: "Шот", 1: "Сальдо"}),
        line(y, {0: "3110 Корпоративный подоходный налог", 1: "500,00"}),
        line(2 * y, {0: "3130 Налог на добавленную стоимость", 1: "200,00"}),
        line(3 * y, {0: "3310 Краткосрочная кредиторская задолженность"}),
        line(4 * y, {0: "5010 Уставный капитал", 1: "700,00"}),
        line(4 * y + PITCH, {0: "2024 года"}),
    ]
    rows = texts(fold_wrapped(lines, PITCH))
    assert [row[0] for row in rows[1:]] == [
        "3110 Корпоративный подоходный налог",
        "3130 Налог на добавленную стоимость",
        "3310 Краткосрочная кредиторская задолженность",
        "5010 Уставный капитал 2024 года",
    ]


def test_a_wrapped_names_last_line_of_a_code_and_a_number_in_brackets_is_no_row() -> None:
    # "… учитываемых на счете" / "01 (1)": a code with no name after it is the name's end.
    y = PITCH + ROW_GAP
    lines = [
        line(0, {0: "Счет", 1: "Сальдо"}),
        line(y, {0: "02 Амортизация", 1: "500,00"}),
        line(2 * y, {0: "02.1 Амортизация ОС", 1: "500,00"}),
        line(2 * y + PITCH, {0: "учитываемых на счете"}),
        line(2 * y + 2 * PITCH, {0: "01 (1)"}),
        line(3 * y + 2 * PITCH, {0: "10 Материалы", 1: "7,00"}),
    ]
    rows = texts(fold_wrapped(lines, PITCH))
    assert [row[0] for row in rows[1:]] == [
        "02 Амортизация",
        "02.1 Амортизация ОС учитываемых на счете 01 (1)",
        "10 Материалы",
    ]


def test_the_lines_of_one_wrapped_cell_join_one_row_even_when_the_last_is_nearer_the_next() -> None:
    # Day captions sit close above their transactions, purposes wrap below: the page looks
    # centred, and a purpose's third line is nearer the next transaction than its first.
    days = {
        "01": [("100,00", ["Оплата по счету № 1 от", "01.02.2025 за строительные", "материалы"])],
        "02": [
            ("200,00", ["Оплата по счету № 2 от", "02.02.2025 за строительные", "материалы"]),
            ("300,00", ["Возврат средств по", "договору № 7"]),
        ],
    }
    y = 0.0
    lines = [line(y, {0: "Дата", 1: "Сумма", 2: "Назначение"})]
    for day, transactions in days.items():
        y += PITCH + 2 * ROW_GAP
        lines.append(line(y, {3: f"За {day}.02.2025"}))
        y += PITCH
        for amount, purpose in transactions:
            lines.append(line(y, {0: f"{day}.02.2025", 1: amount, 2: purpose[0]}))
            for rest in purpose[1:]:
                y += PITCH * 0.9
                lines.append(line(y, {2: rest}))
            y += PITCH + ROW_GAP
        y -= PITCH + ROW_GAP
    rows = texts(fold_wrapped(lines, PITCH))
    assert [row[2] for row in rows if 2 in row][1:] == [
        "Оплата по счету № 1 от 01.02.2025 за строительные материалы",
        "Оплата по счету № 2 от 02.02.2025 за строительные материалы",
        "Возврат средств по договору № 7",
    ]


@pytest.mark.parametrize("column", [0, 3], ids=["dates-column", "account-column"])
def test_a_day_line_close_above_its_transactions_is_a_line_of_its_own(column: int) -> None:
    # "За 09.10.2024" in the column of the dates, or of the account every row repeats: such
    # a column never wraps onto a line of its own.
    lines = [line(0, {0: "Дата", 1: "Сумма", 2: "Назначение", 3: "Счет"})]
    y = 0.0
    for day in ("03", "09", "12"):
        y += PITCH + 2 * ROW_GAP
        lines.append(line(y, {column: f"За {day}.10.2024"}))
        y += PITCH
        lines.append(
            line(y, {0: f"{day}.10.2024", 1: "10,00", 2: "Оплата по счету", 3: "BY40ALFA3012"})
        )
        y += PITCH
        lines.append(line(y, {2: "№ 5 от 01.10.2024"}))
    rows = texts(fold_wrapped(lines, PITCH))
    assert rows[1:4] == [
        {column: "За 03.10.2024"},
        {0: "03.10.2024", 1: "10,00", 2: "Оплата по счету № 5 от 01.10.2024", 3: "BY40ALFA3012"},
        {column: "За 09.10.2024"},
    ]


def test_captions_over_columns_of_dashes_are_no_line_of_the_first_row() -> None:
    # Zeros printed as dashes set left, amounts set right: the dashes are columns of their
    # own until the columns are joined, and "Дт | Кт" over them are the header's, set as
    # close to the first row as the lines of one cell; names wrap around their amounts.
    lines = [line(0, {0: "Счет", 1: "Остаток"}), line(PITCH, {1: "Дт", 3: "Кт"})]
    y = 2 * PITCH
    for name, debit, credit in (("Касса", None, "150,00"), ("Материалы", "100,00", None)):
        lines.append(
            line(y, {0: name, 1: "—", 4: credit} if credit else {0: name, 2: debit, 3: "—"})
        )
        y += PITCH + ROW_GAP
    lines += [line(y, {0: "Расчеты с"}), line(y + PITCH, {0: "поставщиками", 1: "—", 4: "7,00"})]
    lines.append(line(y + 2 * PITCH, {0: "и подрядчиками"}))
    lines.append(line(y + 3 * PITCH + ROW_GAP, {0: "Товары", 2: "5,00", 3: "—"}))
    rows = texts(fold_wrapped(lines, PITCH))
    assert rows[1:] == [
        {1: "Дт", 3: "Кт"},
        {0: "Касса", 1: "—", 4: "150,00"},
        {0: "Материалы", 2: "100,00", 3: "—"},
        {0: "Расчеты с поставщиками и подрядчиками", 1: "—", 4: "7,00"},
        {0: "Товары", 2: "5,00", 3: "—"},
    ]


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("1 200,50", True),
        ("(350.00)", True),
        ("651740,4", True),  # in thousands: one decimal
        ("651740.4", True),
        ("60.1", False),  # an account's code
        ("10.1", False),
        ("08.1.1", False),
        ("2025", False),
    ],
)
def test_an_amount_ends_in_its_decimals_and_an_accounts_code_never_does(
    text: str, amount: bool
) -> None:
    assert ends_in_amount(text) is amount
