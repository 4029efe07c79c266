"""Banks of Belarus as the National Bank's directory names them, by the bank code of their
BIC (its first four characters, which a Belarusian IBAN carries at 5-8).

A statement names the counterparty's bank in words beside its BIC or account; OCR misreads a
letter of a short abbreviation there ("АСВ" for "АСБ") that no check digit covers. The bank the
code names has one spelling (or a former one), and a name read a letter or two away from it is
that name.
"""

from __future__ import annotations

from typing import Final

from document_extraction.identifiers import iban_valid
from document_extraction.misreads import ocr_distance

DIRECTORY: Final[dict[str, tuple[str, ...]]] = {
    "AKBB": ("ОАО «АСБ Беларусбанк»",),
    "ALFA": ("ЗАО «Альфа-Банк»",),
    "BAPB": ("ОАО «Белагропромбанк»",),
    "BLBB": ("ОАО «Белинвестбанк»",),
    "BLNB": ("ОАО «БНБ-Банк»",),
    "BPSB": ("ОАО «Сбер Банк»", "ОАО «БПС-Сбербанк»"),
    "MMBN": ("ОАО «Банк Дабрабыт»",),
    "MTBK": ("ЗАО «МТБанк»",),
    "OLMP": ("ОАО «Белгазпромбанк»",),
    "PJCB": ("ОАО «Приорбанк»",),
    "POIS": ("ОАО «Паритетбанк»",),
    "SLAN": ("ЗАО Банк ВТБ (Беларусь)",),
    "TECN": ("ОАО «Технобанк»",),
    "UNBS": ("ЗАО «БСБ Банк»",),
}
# How far (in OCR's edits, see ``ocr_distance``) a name read may be from the directory's.
NAME_BUDGET: Final = 2.0


def bank_code(bic: str | None, account: str | None) -> str | None:
    """The bank code a BIC or a valid Belarusian IBAN carries."""
    if bic is not None:
        return bic[:4]
    if account is not None and account.startswith("BY") and iban_valid(account):
        return account[4:8]
    return None


def bank_name(read: str | None, code: str | None) -> str | None:
    """A bank's name as read, spelled as the directory has it where OCR misread a letter or
    two: the bank ``code`` names (without a code, the one bank whose name is that near)."""
    if read is None:
        return None
    if code is not None:
        names = DIRECTORY.get(code, ())
    else:
        names = tuple(name for spellings in DIRECTORY.values() for name in spellings)
    if read in names:
        return read
    near = [name for name in names if ocr_distance(read, name, NAME_BUDGET) <= NAME_BUDGET]
    return near[0] if len(near) == 1 else read
