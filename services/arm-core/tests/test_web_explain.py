"""Error codes, statuses, locators and amounts in an analyst's words."""

from __future__ import annotations

import re

import pytest

from arm_core.db.tables import FILE_STATUSES, JOB_STATUSES
from arm_core.web import explain
from recognition_contract import ErrorCode

# Codes the core itself sets (intake, outbox, mapping), besides the contract's.
CORE_CODES = (
    "NO_ACK",
    "MAPPING_ERROR",
    "FILE_TOO_LARGE",
    "EMPTY_FILE",
    "MALFORMED_MULTIPART",
    "DATABASE_UNAVAILABLE",
)
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


@pytest.mark.parametrize("code", [c.value for c in ErrorCode] + list(CORE_CODES))
def test_every_error_code_is_explained_in_russian(code: str) -> None:
    explained = explain.explain(code)
    assert explained is not None
    assert explained.code == code
    assert code in explain.ERRORS, f"{code} falls back to the generic text"
    for text in (explained.title, explained.text):
        assert CYRILLIC.search(text), text
        # The analyst reads words, not the code or English.
        assert code not in text
        assert not re.search(r"[A-Za-z]{4,}", text.replace("XLSX", "").replace("XLSB", ""))


def test_explanations_differ_where_the_analyst_must_act_differently() -> None:
    timeout, no_ack, unreadable = (explain.explain(c) for c in ("TIMEOUT", "NO_ACK", "UNREADABLE"))
    assert timeout is not None and no_ack is not None and unreadable is not None
    assert "время" in timeout.text
    assert "не подтвердил" in no_ack.text
    assert "паролем" in unreadable.text
    assert len({timeout.title, no_ack.title, unreadable.title}) == 3
    titles = [e.title for e in explain.ERRORS.values()]
    assert len(titles) == len(set(titles)), "two codes read the same"


def test_unknown_code_still_reads_as_an_error_and_no_code_as_nothing() -> None:
    unknown = explain.explain("SOMETHING_NEW")
    assert unknown is not None
    assert unknown.title == "Ошибка SOMETHING_NEW"
    assert unknown.advice
    assert explain.explain(None) is None
    assert explain.explain("") is None


def test_every_status_has_a_label_and_a_tone() -> None:
    assert set(explain.FILE_STATUSES) == set(FILE_STATUSES)
    assert set(explain.JOB_STATUSES) == set(JOB_STATUSES)
    for status in (*FILE_STATUSES, *JOB_STATUSES):
        assert explain.TONES[status] in {"wait", "work", "ok", "check", "bad"}
    assert explain.TONES["NEEDS_CHECK"] != explain.TONES["RECOGNIZED"]


@pytest.mark.parametrize(
    ("locator", "text"),
    [
        ({"sheet": "ОСВ 60", "row": 14}, "лист «ОСВ 60», строка 14"),
        ({"sheet": "ОСВ 60", "row": 15, "column": "D"}, "лист «ОСВ 60», строка 15, столбец D"),
        ({"sheet": "ОСВ", "row": 1, "row_end": 32}, "лист «ОСВ», строки 1–32"),
        ({"page": 2}, "страница 2"),
        ({"page": 1, "row": 7}, "страница 1, строка 7"),
        ({}, ""),
        (None, ""),
    ],
)
def test_locator_says_where_to_look(locator: dict[str, object] | None, text: str) -> None:
    assert explain.locator_text(locator) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("1234567.89", "1\u00a0234\u00a0567,89"),
        ("-1234.5", "−1\u00a0234,50"),
        ("0.00", "0,00"),
        ("999", "999,00"),
        (None, ""),
        ("", ""),
    ],
)
def test_money_in_russian_notation(value: str | None, text: str) -> None:
    assert explain.money(value) == text


def test_warning_titles_fall_back_to_the_code() -> None:
    assert explain.warning_title("TOTALS_MISMATCH") == "«Итого» не равно сумме счетов"
    assert explain.warning_title("NEW_CHECK") == "NEW_CHECK"
    assert explain.warning_title(None) == "Замечание"
