"""The C kernel of the trial balance body: it changes how fast rows are written, never what.

Documents are compared as JSON text (so an int where a float was, or a key in another order,
counts as a difference) between extraction with the kernel and the Python loop alone, over
random bodies that mix the rows the kernel takes with every kind of row it must leave alone.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import document_extraction.osv as osv
from document_extraction import Grid, extract

GROUPS = ["Сальдо на начало периода", "", "Обороты за период", "", "Сальдо на конец периода", ""]
PAIRS = ["Дебет", "Кредит"] * 3
HEADER_WITH_NAMES = [
    ["ООО «Ромашка»"],
    ["Оборотно-сальдовая ведомость за январь 2025 г."],
    ["Счет", "Наименование счета", *GROUPS],
    ["", "", *PAIRS],
]
HEADER_CODE_ONLY = [
    ["Оборотно-сальдовая ведомость"],
    ["Счет", *GROUPS],
    ["", *PAIRS],
]

LABELS: list[Any] = [
    *["60", "60.01", "60.01.1", "01", "10.5", "90.2.1", "08", "51"] * 6,
    "٦٠.01",  # digits the kernel leaves to Python's isdigit
    ".5",
    "60..1",
    "60.",
    "6",
    "60/1",
    " 60.01",
    60.0,
    8,
    "Итого",
    "Количество",
    *["ООО Контрагент", "Договор № 5", "  Иванов И.И.", "Supplier Ltd"] * 3,
    # Code and name in one cell, the forms the kernel splits and those it leaves to Python.
    *["60.01 Поставщики", "60 Расчеты с поставщиками", "601.1.22 Прочие", "08.3 Вложения"] * 3,
    "60.01. Поставщики",
    "60.01 - Поставщики",
    "60.01, Поставщики",
    "94.Н Недостачи",
    "6001 Нечто",
    "60.12345 Длинная часть",
    "60. Пустая часть",
    "60.01  Двойной пробел",
    "60.01 Имя ",
    "60.01 ",
    "60.01 5 лет",
    "60/1 Дробь",
    "٦٠.01 Арабские цифры",
    "60.01 Мягкий\u00adперенос",
    "Касса",  # к: could be "Кол.", Python looks
    "итого по счету",
    "ёлочные игрушки",
    "\u00adИтого",
    "И\u00adтого",
    "-Итого",
    "(прочие)",
    "Кол.",
    "ǅemal",  # a title-case letter
    "Контрагент  с двумя пробелами",
    None,
    "",
    "  ",
    "Главный бухгалтер ________ (подпись)",
]
NAMES: list[Any] = [
    *["Расчеты с поставщиками", "Основные средства", "Materials", "Касса"] * 4,
    "  с пробелами по краям  ",
    "двойной  пробел",
    "с\tтабуляцией",
    "с\u00a0неразрывным",
    "перенос\nстроки",
    "мягкий\u00adперенос",
    "   ",
    "",
    None,
    123.0,
]


def _amount(rng: random.Random, odd: float = 0.25) -> Any:
    kind = rng.random()
    if kind < (1 - odd) * 0.7:
        return rng.randrange(-(10**9), 10**11) / 100
    if kind < 1 - odd:
        return rng.choice([None, ""])
    return rng.choice(
        [
            -0.0,
            0.0,
            0.005,
            1e-9,
            0.1 + 0.2,
            9999999999999.99,
            1e13,
            -1e13,
            1.5e15,
            float("nan"),
            float("inf"),
            7,
            True,
            "1 234,56",
            "(1 234,00)",
            "  ",
            "abc",
        ]
    )


def _row(rng: random.Random, with_names: bool) -> list[Any]:
    # Most rows hold only numbers and empty cells, as exports do; the others anything at all.
    odd = 0.0 if rng.random() < 0.6 else 0.3
    money = [_amount(rng, odd) for _ in range(6)]
    if rng.random() < 0.8 and all(
        v is None or v == "" or (type(v) is float and abs(v) < 1e12) for v in money[:4]
    ):
        # Mostly balanced rows, so that the kernel's runs are long.
        cents = [round(v * 100) if type(v) is float else 0 for v in money[:4]]
        net = cents[0] - cents[1] + cents[2] - cents[3]
        money[4], money[5] = (net / 100, None) if net >= 0 else (None, -net / 100)
    label = rng.choice(LABELS)
    row = [label, rng.choice(NAMES), *money] if with_names else [label, *money]
    if rng.random() < 0.1:
        del row[rng.randrange(2, len(row)) :]  # short rows: missing cells read as empty
    return row


def _grids(seed: int) -> Iterator[Grid]:
    rng = random.Random(seed)
    for _ in range(6):
        with_names = rng.random() < 0.8
        header = HEADER_WITH_NAMES if with_names else HEADER_CODE_ONLY
        body = [_row(rng, with_names) for _ in range(rng.randrange(1, 60))]
        if rng.random() < 0.5:
            body.append(
                ["Итого", *([None] if with_names else []), *[_amount(rng) for _ in range(6)]]
            )
        rows: list[Any] = [*header, *body]
        if rng.random() < 0.1:
            rows = [tuple(r) for r in rows]
        grid: dict[str, Any] = {}
        if rng.random() < 0.4:
            first = len(header)
            # Levels as readers give them, and a few no reader should (huge, negative).
            depth = [0, 1, 2, 3] if rng.random() < 0.8 else [0, 1, 2, 10**30, -1]
            grid["outline_levels"] = {
                i: rng.choice(depth) for i in range(first, len(rows)) if rng.random() < 0.6
            }
        if rng.random() < 0.15:
            grid["row_numbers"] = [i * 2 + 1 for i in range(len(rows))]
        if rng.random() < 0.1:
            grid.update(kind="page", page=1)
        yield Grid(f"ОСВ {seed}", rows, **grid)


def _documents(grid: Grid) -> str:
    try:
        extraction = extract([grid])
    except Exception as exc:  # both paths must fail alike too
        return f"{type(exc).__name__}: {exc}"
    return json.dumps(
        [extraction.documents, extraction.warnings, extraction.status, extraction.group_schema],
        ensure_ascii=False,
    )


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Rows the kernel wrote, per call."""
    kernel = osv.plain_rows
    assert kernel is not None
    taken: list[int] = []

    def counting(*args: Any) -> tuple[int, int, int | None]:
        result = kernel(*args)
        taken.append(result[0] - args[1])
        return result

    monkeypatch.setattr(osv, "plain_rows", counting)
    return taken


def _without_kernel(monkeypatch: pytest.MonkeyPatch, run: Callable[[], str]) -> str:
    with monkeypatch.context() as patch:
        patch.setattr(osv, "plain_rows", None)
        return run()


def test_the_kernel_is_built() -> None:
    # A build without a C compiler would fall back to the Python loop, silently slower.
    from document_extraction import _osvbody

    assert osv.plain_rows is _osvbody.plain_rows


@pytest.mark.parametrize("seed", range(40))
def test_kernel_and_python_loop_write_the_same_documents(
    seed: int, counted: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    for grid in _grids(seed):
        with_kernel = _documents(grid)
        assert with_kernel == _without_kernel(monkeypatch, lambda grid=grid: _documents(grid))
    assert sum(counted) > 0, "no row of these bodies reached the kernel"


def test_the_kernel_writes_the_common_rows_and_leaves_the_rest(counted: list[int]) -> None:
    body = [
        ["60", "Расчеты с поставщиками", 100.0, None, 50.5, 20.25, 130.25, None],
        ["60.01", "Поставщик 1", 100.0, "", 50.5, 20.25, 130.25, ""],
        ["60.02", " Поставщик 2 ", None, None, None, 0.5, None, 0.5],
        ["60.03", "Текстовая сумма", "1 000,00", None, None, None, 1000.0, None],
        ["60.04", "Поставщик 4", 1.0, None, None, None, 1.0, None],
        ["Итого", None, 101.0, None, 50.5, 20.25, 131.25, None],
    ]
    doc = extract([Grid("ОСВ", [*HEADER_WITH_NAMES, *body])]).documents[0]
    # Rows 1-3 by the kernel; row 4 (a text amount) by Python, row 5 by the kernel again.
    assert [n for n in counted if n] == [3, 1]
    assert [(r["code"], r["name"], r["parent"], r["level"]) for r in doc["rows"]] == [
        ("60", "Расчеты с поставщиками", None, 0),
        ("60.01", "Поставщик 1", 1, 1),
        ("60.02", "Поставщик 2", 1, 1),
        ("60.03", "Текстовая сумма", 1, 1),
        ("60.04", "Поставщик 4", 1, 1),
    ]
    assert doc["rows"][2]["turnover_credit"] == "0.50"
    assert doc["rows"][2]["locator"] == {"sheet": "ОСВ", "row": 7}
    assert doc["totals"]["closing_debit"] == "131.25"


def test_the_kernel_writes_subconto_rows_under_their_account(counted: list[int]) -> None:
    body = [
        ["60", "Расчеты с поставщиками", 300.0, None, None, None, 300.0, None],
        ["ООО Альфа", None, 100.0, None, None, None, 100.0, None],
        [" ИП Бета ", None, 200.0, None, None, None, 200.0, None],
        ["Итого", None, 300.0, None, None, None, 300.0, None],
    ]
    header = [["Оборотно-сальдовая ведомость по счету 60"], *HEADER_WITH_NAMES[2:]]
    doc = extract([Grid("ОСВ 60", [*header, *body])]).documents[0]
    assert doc["variant"] == "account"
    assert [n for n in counted if n] == [3]
    assert [(r["kind"], r["code"], r["name"], r["parent"], r["level"]) for r in doc["rows"]] == [
        ("account", "60", "Расчеты с поставщиками", None, 0),
        ("subconto", None, "ООО Альфа", 1, 1),
        ("subconto", None, "ИП Бета", 1, 1),
    ]
    assert doc["warnings"] == []


def test_subconto_first_tables_group_the_accounts_below(counted: list[int]) -> None:
    body = [
        ["ООО Альфа", None, 100.0, None, None, None, 100.0, None],
        ["60.01", "Авансы", 100.0, None, None, None, 100.0, None],
        ["ООО Бета", None, 50.0, None, None, None, 50.0, None],
        ["60.01", "Авансы", 50.0, None, None, None, 50.0, None],
    ]
    doc = extract([Grid("ОСВ 60", [*HEADER_WITH_NAMES, *body])]).documents[0]
    assert sum(counted) == 4
    assert [(r["kind"], r["parent"], r["level"]) for r in doc["rows"]] == [
        ("subconto", None, 0),
        ("account", 1, 1),
        ("subconto", None, 0),
        ("account", 3, 1),
    ]


def test_the_kernel_splits_a_code_and_name_cell(counted: list[int]) -> None:
    header = [["Оборотно-сальдовая ведомость"], ["Счет", *GROUPS], ["", *PAIRS]]
    body = [
        ["60 Расчеты с поставщиками", 100.0, None, None, None, 100.0, None],
        ["60.01 ООО Альфа", 100.0, None, None, None, 100.0, None],
        ["60.02. ООО Бета", None, None, None, None, None, None],
    ]
    doc = extract([Grid("ОСВ", [*header, *body])]).documents[0]
    assert [n for n in counted if n] == [2]
    assert [(r["code"], r["name"], r["parent"]) for r in doc["rows"]][:2] == [
        ("60", "Расчеты с поставщиками", None),
        ("60.01", "ООО Альфа", 1),
    ]
