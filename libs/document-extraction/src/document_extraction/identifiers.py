"""Taxpayer numbers (Belarus УНП, Russian ИНН), IBANs and bank identifiers, with check digits."""

from __future__ import annotations

import re
import string

from document_extraction.lookalikes import DIGIT_LOOKALIKES

_UNP_WEIGHTS = (29, 23, 19, 17, 13, 7, 5, 3)
_INN10_WEIGHTS = (2, 4, 10, 3, 5, 9, 4, 6, 8)
_INN11_WEIGHTS = (7, 2, 4, 10, 3, 5, 9, 4, 6, 8)
_INN12_WEIGHTS = (3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8)
_TAX_ID = re.compile(r"[0-9A-Z]{9}|[0-9]{10}|[0-9]{12}")
_ACCOUNT = re.compile(r"[0-9A-Z]{5,34}")
_BIC = re.compile(r"[0-9A-Z]{8}|[0-9A-Z]{11}|[0-9]{9}")
_IBAN = re.compile(r"[A-Z]{2}\d{2}[0-9A-Z]{11,30}")
_BY_IBAN = re.compile(r"BY\d{2}[A-Z]{4}\d{4}[0-9A-Z]{16}")
_BY_IBAN_LENGTH = 28
# Latin look-alikes that OCR and hand typing put into identifiers, and the S that OCR
# reads as a dollar sign ("ВР$В" for BPSB): no identifier holds one.
_LOOKALIKES = str.maketrans("АВЕКМНОРСТУХ$", "ABEKMHOPCTYXS")


def compact(text: str) -> str:
    """Identifier without spaces, upper case, Cyrillic look-alike letters made Latin."""
    return re.sub(r"[\s\u00a0\u202f-]", "", text).upper().translate(_LOOKALIKES)


_KPP = re.compile(r"[0-9]{4}[0-9A-Z]{2}[0-9]{3}")


def normalize_kpp(text: str | None) -> str | None:
    """A Russian КПП (nine characters, letters allowed in the fifth and sixth), or None for
    anything else (banks write 0 for "none")."""
    if text is None:
        return None
    value = compact(text)
    return value if _KPP.fullmatch(value) and value != "000000000" else None


def unp_valid(unp: str) -> bool:
    """Belarus УНП: 9 characters, the last a check digit: weights 29,23,19,17,13,7,5,3 over the
    base-36 values of the first eight, sum mod 11 (10 is never issued)."""
    if len(unp) != 9 or not unp.isalnum() or not unp[8].isdigit():
        return False
    try:
        total = sum(w * int(ch, 36) for w, ch in zip(_UNP_WEIGHTS, unp[:8], strict=True))
    except ValueError:
        return False
    check = total % 11
    return check != 10 and check == int(unp[8])


def _inn_digit(digits: str, weights: tuple[int, ...]) -> int:
    return sum(w * int(d) for w, d in zip(weights, digits, strict=False)) % 11 % 10


def inn_valid(inn: str) -> bool:
    """Russian ИНН: 10 digits (organisation) or 12 (individual) with their check digits."""
    if not inn.isdigit():
        return False
    if len(inn) == 10:
        return _inn_digit(inn[:9], _INN10_WEIGHTS) == int(inn[9])
    if len(inn) == 12:
        return _inn_digit(inn[:10], _INN11_WEIGHTS) == int(inn[10]) and _inn_digit(
            inn[:11], _INN12_WEIGHTS
        ) == int(inn[11])
    return False


def tax_id_valid(tax_id: str) -> bool:
    if len(tax_id) == 9:
        return unp_valid(tax_id)
    # Twelve digits: a Russian ИНН of a person or a Kazakh ИИН/БИН, which the same column holds.
    return inn_valid(tax_id) or (len(tax_id) == 12 and bin_valid(tax_id))


def bin_valid(number: str) -> bool:
    """Kazakhstan ИИН/БИН check digit: weights 1..11 mod 11; on 10, weights 3..11, 1, 2."""
    if len(number) != 12 or not number.isdigit():
        return False
    digits = [int(d) for d in number]
    check = sum(w * d for w, d in zip(range(1, 12), digits, strict=False)) % 11
    if check == 10:
        weights = [3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2]
        check = sum(w * d for w, d in zip(weights, digits, strict=False)) % 11
    return check != 10 and check == digits[11]


def tax_id_kind(tax_id: str) -> str:
    return "УНП" if len(tax_id) == 9 else "ИНН/БИН" if len(tax_id) == 12 else "ИНН"


def looks_like_iban(account: str) -> bool:
    return _IBAN.fullmatch(account) is not None


def iban_valid(iban: str) -> bool:
    """ISO 13616 / ISO 7064 mod 97-10; a Belarus IBAN also has its fixed 28-character shape."""
    if not looks_like_iban(iban):
        return False
    if iban.startswith("BY") and _BY_IBAN.fullmatch(iban) is None:
        return False
    rearranged = iban[4:] + iban[:4]
    digits = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(digits) % 97 == 1


def normalize_tax_id(text: str) -> str | None:
    candidate = compact(text)
    return candidate if _TAX_ID.fullmatch(candidate) else None


def normalize_account(text: str) -> str | None:
    """An account number as printed; an IBAN that OCR misread with look-alike glyphs ("ВУ12ВАРВЗ0…",
    "BYO2…", a stray "\\" or one extra character, the Y of "BY" read as a stroke) is the one
    reading whose check digits hold."""
    candidate = compact(text)
    if iban_valid(candidate):
        return candidate
    read = _iban_through_ocr(candidate)
    if read is not None:
        return read
    if _ACCOUNT.fullmatch(candidate):
        return candidate
    # What was read stays, its check then failing, rather than an account lost without a word.
    stripped = re.sub(r"[^0-9A-Z]", "", candidate)
    return stripped if looks_like_iban(stripped) else None


def readable_account(text: str) -> str | None:
    """The account ``text`` reads as, unless it is an IBAN whose check digits fail: such a
    reading tells of no account (a digit of it went unread), only of a misread one."""
    account = normalize_account(text)
    if account is not None and looks_like_iban(account) and not iban_valid(account):
        return None
    return account


# Digits OCR reads in place of the capitals of an IBAN's country and bank code.
_LETTER_LOOKALIKES = {"0": "O", "8": "B", "5": "S", "1": "I", "6": "G", "2": "Z"}
_BY_BANK_CODE = range(4, 8)
_CHECK_DIGITS = range(2, 4)


def _iban_through_ocr(text: str) -> str | None:
    """The only IBAN among the readings of ``text`` with look-alikes put right where an IBAN
    has digits (check digits, and all but a Belarusian bank code) or letters (country, bank
    code), and with one character too many for a Belarusian IBAN left out."""
    alnum = _letters_and_digits(text)
    if len(alnum) < 15 or alnum[:2].isdigit():
        # A number of digits alone is a domestic account, not an IBAN missing its country.
        return None
    readings = {_by_position(alnum)}
    if len(alnum) == _BY_IBAN_LENGTH - 1 and alnum[0] in "BВ" and alnum[1:3].isdigit():
        # The Y of "BY" read as a stroke ("В\\90…") and dropped with the other strays.
        readings.add(_by_position("BY" + alnum[1:]))
    if alnum[:2] == "BY" and len(alnum) == _BY_IBAN_LENGTH + 1:
        readings |= {_by_position(alnum[:k] + alnum[k + 1 :]) for k in range(len(alnum))}
    readings |= _unread_filled(text)
    readings |= {bank for reading in list(readings) for bank in _bank_code_lookalikes(reading)}
    valid = {reading for reading in readings if iban_valid(reading)}
    return valid.pop() if len(valid) == 1 else None


# Capitals OCR confuses with one another in a Belarusian bank code ("PICB" for PJCB).
_CODE_LETTER_LOOKALIKES = {"I": "JL", "J": "I", "L": "I", "O": "QD", "Q": "O", "D": "O",
                           "U": "V", "V": "U", "C": "G", "G": "C"}  # fmt: skip


def _bank_code_lookalikes(iban: str) -> set[str]:
    """A Belarusian IBAN's readings with one letter of its bank code read as its look-alike."""
    if not iban.startswith("BY") or len(iban) != _BY_IBAN_LENGTH:
        return set()
    return {
        iban[:k] + other + iban[k + 1 :]
        for k in _BY_BANK_CODE
        for other in _CODE_LETTER_LOOKALIKES.get(iban[k], "")
    }


def _unread_filled(text: str) -> set[str]:
    """The readings of a Belarusian IBAN with a mark in place of a character OCR could not
    read ("В\\08Р)СВЗ…" for BY08PJCB3…): the Y of its country, and one other character, each
    letter or digit its place may hold (the check digits then leave one)."""
    # A Cyrillic letter with no Latin look-alike ("Э" for a J) is a character OCR misread.
    marked = "".join(
        ch if "0" <= ch <= "9" or "A" <= ch <= "Z" or ch in DIGIT_LOOKALIKES else "?"
        for ch in compact(text)
    )
    if len(marked) != _BY_IBAN_LENGTH or marked[0] != "B":
        return set()
    marked = "BY" + marked[2:] if marked[1] == "?" else marked
    unread = [k for k, ch in enumerate(marked) if ch == "?"]
    if len(unread) > 1:
        return set()
    if not unread:
        return {_by_position(marked)}
    k = unread[0]
    choices = string.ascii_uppercase if k in _BY_BANK_CODE else string.digits
    return {_by_position(marked[:k] + ch + marked[k + 1 :]) for ch in choices}


def _letters_and_digits(text: str) -> str:
    """Strays that are no letter or digit gone; Cyrillic look-alikes ("З") stay to be put
    right."""
    return re.sub(r"[\W_]", "", text.upper())


def _by_position(iban: str) -> str:
    """Letters where the shape has letters, digits where it has digits; other countries' IBANs
    may carry letters after the bank code, so only their country and check digits are known."""
    by = iban.startswith("BY")

    def fixed(k: int, ch: str) -> str:
        if k < 2 or (by and k in _BY_BANK_CODE):
            return _LETTER_LOOKALIKES.get(ch, ch)
        if k in _CHECK_DIGITS or (by and k >= _BY_BANK_CODE.stop):
            return DIGIT_LOOKALIKES.get(ch, ch)
        return ch

    return "".join(fixed(k, ch) for k, ch in enumerate(iban))


def normalize_bic(text: str) -> str | None:
    candidate = compact(text)
    return candidate if _BIC.fullmatch(candidate) else None


def find_tax_id(text: str) -> str | None:
    """The number after УНП / ИНН in a line of text."""
    match = re.search(
        r"(?:УНП|ИНН|ИИН|БИН)(?:\s*/\s*(?:ИИН|БИН))?\s*[:№]?\s*([0-9A-ZА-Я]{9,12})\b",
        text,
        re.IGNORECASE,
    )
    if match is None:
        return None
    return normalize_tax_id(match.group(1))


# ISO 4217 numeric codes of the currencies the borrowers' accounts are kept in ("810" is the
# rouble's code before 1998, still used in Russian account numbers).
NUMERIC_CURRENCIES = {
    "933": "BYN", "643": "RUB", "810": "RUB", "840": "USD", "978": "EUR", "156": "CNY",
    "398": "KZT", "417": "KGS", "860": "UZS", "980": "UAH", "826": "GBP", "756": "CHF",
    "985": "PLN", "392": "JPY", "949": "TRY", "051": "AMD", "944": "AZN", "981": "GEL",
}  # fmt: skip


def currency_of_account(account: str | None) -> str | None:
    """The currency a Russian 20-digit account number names (40702 810 ...), or None."""
    if account is None or len(account) != 20 or not account.isdigit():
        return None
    return NUMERIC_CURRENCIES.get(account[5:8])


# A mark OCR left where it could not read a character ("BY22 P/CB 3012 …", "BY11 РЭСВ 3012 …")
# stays in the match for the check digits to settle, and so does a check digit read as its
# look-alike letter ("BYO2 PJCB …").
_IBAN_IN_TEXT = re.compile(
    r"(?<![0-9A-Za-z])[A-Z]{2}(?:\d[\dOIS]|[OIS]\d)(?:[ \u00a0]?[0-9A-ZА-ЯЁ/|)\]}\\]){11,30}"
)
_DIGIT_ACCOUNT = re.compile(r"(?<!\d)(?:\d{20}|\d{16}|\d{13})(?!\d)")


def find_account(text: str) -> str | None:
    """The first account number in a line: an IBAN, also printed in groups of four
    ("BY09 ALFA 3012 …"), with Cyrillic look-alikes ("BY62 ВАРВ 3012 …") and followed by
    other words, else a 20-, 16- or 13-digit number."""
    for match in _IBAN_IN_TEXT.finditer(text.translate(_LOOKALIKES)):
        raw = compact(match.group(0))
        for end in range(len(raw), 14, -1):
            if iban_valid(raw[:end]):
                return raw[:end]
        by = raw.startswith("BY")
        kept = raw[:_BY_IBAN_LENGTH] if by else raw
        # One character too many may be OCR's, or the start of the next word.
        for reading in (raw[: _BY_IBAN_LENGTH + 1], kept) if by else (kept,):
            read = normalize_account(reading)
            if read is not None and iban_valid(read):
                return read
        # A broken IBAN is kept (its check then fails) at the length its country prints.
        return kept
    digits = _DIGIT_ACCOUNT.search(text.replace("\u00a0", "").replace(" ", ""))
    return digits.group(0) if digits else None


def split_iban(text: str) -> tuple[str, str] | None:
    """A text with a valid IBAN inside ("ОАО «Керамин» BY82BAPB3012…", two cells that OCR
    read as one): the text without it, and the IBAN."""
    for match in _IBAN_IN_TEXT.finditer(text.translate(_LOOKALIKES)):
        iban = compact(match.group(0))
        if iban_valid(iban):
            rest = f"{text[: match.start()]} {text[match.end() :]}"
            return " ".join(rest.split()), iban
    return None


# The most characters of a BIC's bank code OCR may misread and the account still vouch for.
_BIC_CODE_MISREADS = 2


def bic_by_account(read: str | None, account: str | None) -> str | None:
    """The BIC ``read`` (as OCR read it, compacted) names; where it is Belarusian and its bank
    code one character off the bank code of the account it serves (a valid IBAN carries it
    at 5-8, under its check digits), OCR misread or could not read that character, and the
    account's code is the one the arithmetic vouches for. So it is with one more character
    OCR could not read at all ("AГEABY2X" for ALFABY2X: no letter of a BIC reads as "Г")."""
    if read is None:
        return None
    if (
        account is not None
        and account.startswith("BY")
        and iban_valid(account)
        and len(read) in (8, 11)
        and read[4:6] == "BY"
    ):
        off = [a for a, b in zip(read[:4], account[4:8], strict=True) if a != b]
        unread = sum(not ("A" <= ch <= "Z" or ch.isdigit()) for ch in off)
        if len(off) == 1 or (len(off) == _BIC_CODE_MISREADS and unread):
            read = account[4:8] + read[4:]
    return normalize_bic(read)


def bic_serves(bic: str, account: str) -> bool:
    """A SWIFT BIC names the bank and country of a valid IBAN: its first four characters are
    the IBAN's bank code and the next two its country (a Belarusian IBAN carries the code at
    5-8, under its check digits)."""
    return iban_valid(account) and bic[:4] == account[4:8] and bic[4:6] == account[:2]


def account_by_bic(account: str | None, bic: str | None) -> str | None:
    """A Belarusian IBAN that OCR misread in its country or bank code ("BB07BPB3012…", a
    letter lost) put together from its check digits, the twenty digits of the account after
    the bank code, and the bank code of the BIC beside it (the first four characters of a
    Belarusian BIC), when that reading's check digits hold."""
    if account is None or bic is None or bic[4:6] != "BY" or iban_valid(account):
        return account
    alnum = _letters_and_digits(account)
    if len(alnum) < _BY_IBAN_LENGTH - 4:
        return account
    check, number = (
        "".join(DIGIT_LOOKALIKES.get(ch, ch) for ch in part) for part in (alnum[2:4], alnum[-20:])
    )
    candidate = "BY" + check + bic[:4] + number
    return candidate if iban_valid(candidate) else account
