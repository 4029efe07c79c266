"""A trial balance from the Kazakh edition of 1C in its Kazakh interface: captions, the totals
word and the period in Kazakh, the four-digit chart of Kazakhstan."""

from __future__ import annotations

import datetime

from document_extraction import Grid, extract, parse_period
from document_extraction.captions import words_of
from document_extraction.layouts.line_labels import is_totals_label
from document_extraction.text import norm
from document_extraction.titles import is_osv_title, read_titles
from recognition_contract import TrialBalance

ROWS = [
    ["ТОО «Алтын Дала»", None, None, None, None, None, None],
    ["Шот бойынша айналым-сальдо ведомосі", None, None, None, None, None, None],
    ["Кезең: 01.01.2024 - 31.12.2024", None, None, None, None, None, None],
    [None] * 7,
    ["Шот", "Кезең басындағы сальдо", None, "Кезеңдегі айналым", None,
     "Кезең соңындағы сальдо", None],
    [None, "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"],
    ["1010", 150000.0, None, 2000000.0, 1900000.0, 250000.0, None],
    ["1030", 1200000.0, None, 5000000.0, 4800000.0, 1400000.0, None],
    ["3310", None, 350000.0, 3000000.0, 3100000.0, None, 450000.0],
    ["5010", None, 1000000.0, None, None, None, 1000000.0],
    ["6010", None, None, 1800000.0, 2000000.0, None, 200000.0],
    ["Барлығы", 1350000.0, 1350000.0, 11800000.0, 11800000.0, 1650000.0, 1650000.0],
]  # fmt: skip


def test_kazakh_captions_read_as_the_russian_words_they_mean() -> None:
    assert words_of(norm("Кезең басындағы сальдо")) >= {"начало", "сальдо"}
    assert words_of(norm("Кезеңдегі айналым")) >= {"оборот"}
    assert words_of(norm("Кезең соңындағы сальдо")) >= {"конец", "сальдо"}
    assert words_of(norm("Шоттың атауы")) >= {"счет", "наименование"}


def test_kazakh_totals_word_and_title() -> None:
    assert is_totals_label(norm("Барлығы"))
    assert is_totals_label(norm("Жиыны:"))
    assert not is_totals_label(norm("Барлық шоттар бойынша есеп"))
    assert is_osv_title("Шот бойынша айналым-сальдо ведомосі")
    assert is_osv_title("Айналым-сальдо ведомосі")


def test_kazakh_periods() -> None:
    period = parse_period("Кезең: 2024 ж. қаңтар - желтоқсан")
    assert period is not None
    assert (period.start, period.end) == (datetime.date(2024, 1, 1), datetime.date(2024, 12, 31))
    period = parse_period("2025 ж. 1 тоқсан")
    assert period is None or period.start.year == 2025  # a quarter word we do not read: no guess
    period = parse_period("01.04.2025 - 30.06.2025")
    assert period is not None and period.end == datetime.date(2025, 6, 30)


def test_a_kazakh_trial_balance_is_read_and_checked_done() -> None:
    titles = read_titles(ROWS, 4)
    assert titles.period is not None and titles.period.end == datetime.date(2024, 12, 31)
    extraction = extract([Grid("TDSheet", ROWS)])
    [document] = extraction.documents
    assert isinstance(document, TrialBalance)
    assert [row.code for row in document.rows] == ["1010", "1030", "3310", "5010", "6010"]
    assert document.totals is not None
    assert document.totals.closing_debit == "1650000.00"
    assert document.totals.turnover_credit == "11800000.00"
    assert extraction.status == "done", [w.code for w in document.warnings]
