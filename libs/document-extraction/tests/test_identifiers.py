"""УНП, ИНН and IBAN check digits."""

from __future__ import annotations

import pytest

from document_extraction.identifiers import (
    find_account,
    iban_valid,
    inn_valid,
    normalize_account,
    normalize_tax_id,
    unp_valid,
)


@pytest.mark.parametrize("unp", ["192745313", "190657200", "191184620", "100220190"])
def test_valid_unp(unp: str) -> None:
    assert unp_valid(unp)


@pytest.mark.parametrize("unp", ["190657201", "192745314", "19274531", "1927453130", "19274531X"])
def test_invalid_unp(unp: str) -> None:
    assert not unp_valid(unp)


def test_inn_10_and_12_digits() -> None:
    assert inn_valid("6658142076")
    assert not inn_valid("6658142075")
    assert inn_valid("500100732259")
    assert not inn_valid("500100732258")
    assert not inn_valid("66581420")


def test_iban_mod_97_and_belarus_shape() -> None:
    assert iban_valid("BY66PJCB30120612341010000933")
    assert iban_valid("BY95ALFA30122231870010270000")
    assert not iban_valid("BY67PJCB30120612341010000933")  # check digits off by one
    assert not iban_valid("BY66PJCB3012061234101000093")  # 27 characters
    assert iban_valid("DE89370400440532013000")


def test_identifiers_are_compacted() -> None:
    assert normalize_account("BY66 PJCB 3012 0612 3410 1000 0933") == "BY66PJCB30120612341010000933"
    assert normalize_tax_id(" 192 745 313 ") == "192745313"
    assert normalize_tax_id("12345") is None


@pytest.mark.parametrize(
    "line",
    [
        "Счет: BY62 BAPB 3012 3188 8731 8016 4300",
        "Счет: BY62 ВАРВ 3012 3188 8731 8016 4300",  # the bank code read in Cyrillic
        "Счет: ВУ62ВАРВ30123188873180164300 (BYN)",
    ],
)
def test_an_account_is_found_in_a_line(line: str) -> None:
    assert find_account(line) == "BY62BAPB30123188873180164300"
