"""УНП, ИНН and IBAN check digits."""

from __future__ import annotations

import pytest

from document_extraction.identifiers import (
    account_by_bic,
    bic_by_account,
    bic_serves,
    compact,
    find_account,
    iban_valid,
    inn_valid,
    normalize_account,
    normalize_tax_id,
    readable_account,
    split_iban,
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
        "Счет: BY62 B/PB 3012 3188 8731 8016 4300",  # a letter OCR left as a mark
    ],
)
def test_an_account_is_found_in_a_line(line: str) -> None:
    assert find_account(line) == "BY62BAPB30123188873180164300"


def test_an_account_read_with_a_dollar_for_an_s_is_found_in_a_line() -> None:
    assert find_account("Выписка по счету ВУ568ВР$В30120569676650193300") == (
        "BY56BPSB30120569676650193300"
    )


@pytest.mark.parametrize(
    ("line", "iban"),
    [
        ("Счет: BY11 РЭСВ 3012 5636 9143 1019 3300", "BY11PJCB30125636914310193300"),
        ("Счет: BYO2 PJCB 3012 9769 2638 9019 3300", "BY02PJCB30129769263890193300"),
    ],
)
def test_an_account_with_a_character_read_as_a_letter_is_found_in_a_line(
    line: str, iban: str
) -> None:
    assert find_account(line) == iban


@pytest.mark.parametrize(
    ("read", "iban"),
    [
        ("ВУ12ВАРВЗ0125736483800164300", "BY12BAPB30125736483800164300"),  # Cyrillic, З for 3
        ("В\\У66ВАРВЗ0124611658960164300", "BY66BAPB30124611658960164300"),  # a stray stroke
        ("В\\90ВАРВЗ0126082297920193300", "BY90BAPB30126082297920193300"),  # Y read as "\\"
        # Y read as "\\" and J as ")": a mark where a character went unread.
        ("В\\08Р)СВЗ0123403466420193300", "BY08PJCB30123403466420193300"),
        ("BY08PJCB30123403466420)93300", "BY08PJCB30123403466420193300"),
        ("BYO2ALFA30127335907930193300", "BY02ALFA30127335907930193300"),  # O in check digits
        ("BY11PICB30125636914310193300", "BY11PJCB30125636914310193300"),  # I for J
        ("ВУ11Р1СВ30125636914310193300", "BY11PJCB30125636914310193300"),  # 1 for the J
        ("ВУ11РЭСВ30125636914310193300", "BY11PJCB30125636914310193300"),  # Э for the J
        ("BY62BAP830123188873180164300", "BY62BAPB30123188873180164300"),  # 8 in bank code
        ("BYS53ALFA30127875779190164300", "BY53ALFA30127875779190164300"),  # one too many
        # S read as a dollar sign, and one character too many.
        ("ВУ568ВР$В30120569676650193300", "BY56BPSB30120569676650193300"),
    ],
)
def test_an_iban_misread_by_ocr_is_the_reading_its_check_digits_confirm(
    read: str, iban: str
) -> None:
    assert normalize_account(read) == iban


@pytest.mark.parametrize(
    ("read", "kept"),
    [
        # No reading holds: what was read stays for its check to fail, nothing is invented.
        ("BY99ALFA30127335907930193300", "BY99ALFA30127335907930193300"),
        ("B\\Y99ALFA30127335907930193300", "BY99ALFA30127335907930193300"),
        # Domestic accounts are digits alone, never an IBAN short of its country.
        ("40702810900000001234", "40702810900000001234"),
        ("GB29NWBK60161331926819", "GB29NWBK60161331926819"),
    ],
)
def test_an_account_no_reading_confirms_is_kept_as_read(read: str, kept: str) -> None:
    assert normalize_account(read) == kept


def test_a_bank_code_ocr_lost_is_the_bic_beside_it_when_the_check_digits_agree() -> None:
    assert account_by_bic("BB07BPB30128469535270184000", "BPSBBY2X") == (
        "BY07BPSB30128469535270184000"
    )
    assert account_by_bic("BY13PCB30128003547210193300", "PJCBBY2X") == (
        "BY13PJCB30128003547210193300"
    )
    # Another bank's BIC does not make the check digits hold: the account stays as read.
    assert account_by_bic("BY13PCB30128003547210193300", "ALFABY2X") == (
        "BY13PCB30128003547210193300"
    )
    assert account_by_bic("BY13PJCB30128003547210193300", "ALFABY2X") == (
        "BY13PJCB30128003547210193300"
    )
    assert account_by_bic(None, "ALFABY2X") is None


def test_a_bic_with_a_character_ocr_could_not_read_is_the_one_its_account_vouches_for() -> None:
    assert bic_by_account("P)CBBY2X", "BY08PJCB30123403466420193300") == "PJCBBY2X"
    assert bic_by_account("PJCBBY2X", "BY08PJCB30123403466420193300") == "PJCBBY2X"
    # One more character read as no letter a BIC has: "АГЕАВУ2Х" for ALFABY2X.
    assert bic_by_account(compact("АГЕАВУ2Х"), "BY45ALFA30126210703310193300") == "ALFABY2X"
    # Two letters read otherwise are another bank's BIC, not a misread.
    assert bic_by_account("BPSBBY2X", "BY79BAPB30129963971770164300") == "BPSBBY2X"
    # No account, or another bank's: nothing vouches for the unread character.
    assert bic_by_account("P)CBBY2X", None) is None
    assert bic_by_account("P)CBBY2X", "BY95ALFA30122231870010270000") is None


def test_an_iban_read_into_the_cell_before_it_is_taken_out() -> None:
    assert split_iban("ОАО «Керамин» BY82BAPB30127007311330193300") == (
        "ОАО «Керамин»",
        "BY82BAPB30127007311330193300",
    )
    assert split_iban("ОАО «Керамин» BY83BAPB30127007311330193300") is None
    assert split_iban("ОАО «Керамин»") is None


def test_a_bic_serves_the_iban_whose_bank_code_and_country_it_carries() -> None:
    iban = "BY95ALFA30122231870010270000"
    assert bic_serves("ALFABY2X", iban)
    assert not bic_serves("PJCBBY2X", iban)  # another bank
    assert not bic_serves("ALFARU2X", iban)  # another country
    assert not bic_serves("ALFABY2X", "BY96ALFA30122231870010270000")  # check digits fail


def test_an_iban_whose_check_digits_fail_reads_as_no_account() -> None:
    assert readable_account("В\\90ВАРВЗ0126082297920193300") == "BY90BAPB30126082297920193300"
    assert readable_account("40702810900000001234") == "40702810900000001234"
    # A digit went unread: the reading is no account, neither this one nor another.
    assert normalize_account("BY90BAPB3012608229° ‘920193300") == "BY90BAPB3012608229920193300"
    assert readable_account("BY90BAPB3012608229° ‘920193300") is None
