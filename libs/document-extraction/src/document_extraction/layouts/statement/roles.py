"""What a statement column holds, from its caption words (``vocabulary``)."""

from __future__ import annotations

from collections.abc import Sequence

from document_extraction.captions import (
    Column,
)
from document_extraction.layouts.header_blocks import side_of
from document_extraction.vocabulary import (
    ACCOUNT_WORDS,
    AMOUNT_WORDS,
    BALANCE_WORDS,
    BANK_WORDS,
    BIC_WORDS,
    CARD_WORDS,
    CREDIT_WORDS,
    DATE_WORD,
    DEBIT_WORDS,
    DIRECTION_WORDS,
    EQUIVALENT_WORDS,
    NAME_WORDS,
    NOT_NAME_WORDS,
    NUMBER_WORDS,
    PURPOSE_WORDS,
    SEQUENCE_WORDS,
    STATUS_WORDS,
    TAX_ID_WORDS,
    TAX_REGISTRATION_WORDS,
)


def statement_role(words: frozenset[str]) -> str | None:
    """What a statement column holds, from its caption words; the first rule that fits wins,
    so specific captions (the bank, the equivalent) come before generic ones (an account)."""
    if words & TAX_REGISTRATION_WORDS:
        return None
    if words & SEQUENCE_WORDS and words <= SEQUENCE_WORDS | NUMBER_WORDS | {"n"}:
        return "sequence"
    if words & PURPOSE_WORDS:
        return "purpose"
    if words & EQUIVALENT_WORDS:
        side = side_of(words)
        return "equivalent" if side is None else f"{side}_equivalent"
    if words & BIC_WORDS or ("код" in words and "банк" in words):
        return "bic"
    if words & BANK_WORDS:
        return None if "счет" in words or "корр" in words else "bank"
    if words & TAX_ID_WORDS:
        return "tax_id"
    debit, credit = bool(words & DEBIT_WORDS), bool(words & CREDIT_WORDS)
    if (debit and credit) or words & DIRECTION_WORDS:
        return "direction"
    if debit:
        return "debit"
    if credit:
        return "credit"
    if words & AMOUNT_WORDS:
        return "amount"
    if words & BALANCE_WORDS:
        return "balance"  # a running balance, not an amount or an account
    if "валюта" in words:
        return "currency"
    if words & STATUS_WORDS:
        return "status"
    if words & ACCOUNT_WORDS:
        return "account"
    if "дата" in words or DATE_WORD in words:
        return "date"
    if (words & NUMBER_WORDS or words == {"n"}) and not words & CARD_WORDS:
        return "number"
    if words & NAME_WORDS and not words & NOT_NAME_WORDS:
        return "name"
    return None


def statement_roles(columns: Sequence[Column]) -> dict[int, str]:
    roles: dict[int, str] = {}
    for column in columns:
        role = statement_role(column.own)
        if role in (None, "name", "account", "number") and column.above:
            # "Наименование" under "Банк корреспондента" names the bank.
            wider = statement_role(column.words)
            if wider in ("bank", "bic"):
                role = wider
        if role is not None:
            roles[column.index] = role
    return roles
