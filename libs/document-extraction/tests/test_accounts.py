"""Account codes: leading zeros, formats, code and name in one cell, the chart they fit."""

from __future__ import annotations

import pytest

from document_extraction.accounts import (
    RESTORED_CODE_PENALTY,
    code_from_cell,
    detect_chart,
    parent_codes,
    render_code_format,
)


@pytest.mark.parametrize(
    ("cell", "fmt", "code", "penalty"),
    [
        (8.0, "00", "08", 0),
        (8, None, "08", RESTORED_CODE_PENALTY),
        (60.0, None, "60", 0),
        (94.0, '00".Н"', "94.Н", 0),
        (94.0, "00\\.\\Н", "94.Н", 0),
        (60.1, None, "60.1", RESTORED_CODE_PENALTY),
        (8.1, None, "08.1", RESTORED_CODE_PENALTY),
        ("60.01", None, "60.01", 0),
        ("60.1.1", None, "60.1.1", 0),
        ("10/1", None, "10/1", 0),
        ("94.Н", None, "94.Н", 0),
        ("08", None, "08", 0),
        ("8", None, "08", RESTORED_CODE_PENALTY),
        ("001", None, "001", 0),
    ],
)
def test_codes(cell: object, fmt: str | None, code: str, penalty: int) -> None:
    found = code_from_cell(cell, fmt)  # type: ignore[arg-type]
    assert found is not None
    assert (found.code, found.penalty) == (code, penalty)


def test_float_code_never_shows_binary_noise() -> None:
    found = code_from_cell(60.1 + 1e-13)
    assert found is not None
    assert found.code == "60.1"


def test_code_and_name_in_one_cell() -> None:
    for text, code, name in [
        ("60 Расчеты с поставщиками", "60", "Расчеты с поставщиками"),
        ("08, Вложения в долгосрочные активы", "08", "Вложения в долгосрочные активы"),
        ("60.01 - Расчеты", "60.01", "Расчеты"),
    ]:
        found = code_from_cell(text)
        assert found is not None
        assert (found.code, found.name) == (code, name)


@pytest.mark.parametrize(
    "text",
    # ООО as OCR reads it, with or without an outline level before it: a name, no account.
    ["ООО «Альфа»", "2-й цех", "2024 г.", "Итого", "", "000 «Альфа»", "0 000 «Альфа»"],
)
def test_names_are_not_codes(text: str) -> None:
    assert code_from_cell(text) is None


def test_amount_and_date_formats_are_not_code_formats() -> None:
    assert render_code_format(8, "#,##0.00") is None
    assert render_code_format(8, "dd.mm.yyyy") is None
    assert render_code_format(8, "General") is None
    assert render_code_format(5, "000") == "005"


def test_parent_codes_longest_first() -> None:
    assert parent_codes("60.1.1") == ["60.1", "60"]
    assert parent_codes("10/1") == ["10"]
    assert parent_codes("60") == []


def test_chart_from_distinguishing_accounts() -> None:
    common = [("01", "Основные средства"), ("60", "Расчеты с поставщиками и подрядчиками")]
    assert detect_chart([*common, ("18", "НДС по приобретенным товарам, работам, услугам")]) == (
        "BY-50-2011"
    )
    assert detect_chart([*common, ("19", "НДС по приобретенным ценностям")]) == "RU-94N"
    assert detect_chart([*common, ("90", "Продажи")]) == "RU-94N"
    assert detect_chart([*common, ("90", "Доходы и расходы по текущей деятельности")]) == (
        "BY-50-2011"
    )
    assert detect_chart(common) == "unknown"
    assert detect_chart([*common, ("18", "НДС"), ("19", "НДС")]) == "unknown"


def test_codes_of_four_and_eight_digits_are_codes_amounts_are_not() -> None:
    # Kazakhstan's chart (1030) and an ERP's ledger (10010000) print longer codes.
    assert code_from_cell(1030.0) == ("1030", None, 0)
    assert code_from_cell(10010000.0) == ("10010000", None, 0)
    found = code_from_cell("1030 Денежные средства на текущих банковских счетах")
    assert found is not None
    assert (found.code, found.name) == ("1030", "Денежные средства на текущих банковских счетах")
    assert code_from_cell(1234.5) is None  # a fractional number this large is an amount
    assert code_from_cell(123456789.0) is None
    assert code_from_cell("2024 год") is None
