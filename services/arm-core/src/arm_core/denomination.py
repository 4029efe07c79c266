"""How a document's amounts are denominated, in the analyst's words: the scale and the
currency («тыс. руб.», «USD»), shown beside every block of amounts and written into every
export. An amount read in thousands as if in roubles is a thousandfold error, so the words
are always there, and say so when the document does not name its currency."""

from __future__ import annotations

# ISO 4217 codes (and the old ones 1C still prints) a Russian reader names in words.
CURRENCY_WORDS = {
    "RUB": "руб.",
    "RUR": "руб.",
    "BYN": "бел. руб.",
    "BYR": "бел. руб.",
    "KZT": "тенге",
    "UAH": "грн",
}
SCALE_WORDS = {"units": "", "thousands": "тыс.", "millions": "млн"}
NO_CURRENCY = "валюта не указана"


def denomination(unit: str | None, currency: str | None) -> str:
    """«тыс. руб.», «руб.», «тыс. USD», «USD»; «тыс., валюта не указана» for a document
    that names no currency."""
    scale = SCALE_WORDS.get(unit or "units", unit or "")
    if not currency:
        return f"{scale}, {NO_CURRENCY}" if scale else NO_CURRENCY
    code = currency.strip().upper()
    words = CURRENCY_WORDS.get(code, code)
    return f"{scale} {words}" if scale else words
