"""What an analyst may correct, and how a value is read and written: per part of a document
(its header, a trial balance row, a statement transaction) the fields, their kind, and where
the value sits in the contract's typed document (the attributes from the part to it)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any, Literal, TypeVar

from recognition_contract import MONEY_FIELDS, empty, fields_of

Target = Literal["header", "row", "transaction"]
TARGETS: dict[str, Target] = {"header": "header", "row": "row", "transaction": "transaction"}
# Amounts below this many units: far past any balance, inside numeric(20, 2).
_LARGEST = Decimal("1e15")
_LONGEST = 2000


class Kind(StrEnum):
    TEXT = "text"
    AMOUNT = "amount"
    DATE = "date"
    VARIANT = "variant"


@dataclass(frozen=True)
class Editable:
    kind: Kind
    # Attributes from the document (header), the row or the transaction to the value.
    path: tuple[str, ...]


def _amounts(*names: str, under: tuple[str, ...] = ()) -> dict[str, Editable]:
    return {name: Editable(Kind.AMOUNT, (*under, name)) for name in names}


FIELDS: dict[tuple[str, Target], dict[str, Editable]] = {
    ("osv", "header"): {
        "organisation_name": Editable(Kind.TEXT, ("organisation", "name")),
        "organisation_tax_id": Editable(Kind.TEXT, ("organisation", "tax_id")),
        "period_from": Editable(Kind.DATE, ("period", "start")),
        "period_to": Editable(Kind.DATE, ("period", "end")),
        "unit": Editable(Kind.TEXT, ("unit",)),
        "currency": Editable(Kind.TEXT, ("currency",)),
        "account_code": Editable(Kind.TEXT, ("account", "code")),
        "account_name": Editable(Kind.TEXT, ("account", "name")),
        "variant": Editable(Kind.VARIANT, ("variant",)),
    },
    ("osv", "row"): {
        # A row's account is its ``code`` in the contract; the API has always said account.
        "account": Editable(Kind.TEXT, ("code",)),
        "name": Editable(Kind.TEXT, ("name",)),
        **_amounts(*MONEY_FIELDS),
    },
    ("statement", "header"): {
        **{
            name: Editable(Kind.TEXT, ("header", name))
            for name in ("bank_name", "bank_bic", "account", "currency", "holder_name")
        },
        "holder_tax_id": Editable(Kind.TEXT, ("header", "holder_tax_id")),
        "period_from": Editable(Kind.DATE, ("header", "period", "start")),
        "period_to": Editable(Kind.DATE, ("header", "period", "end")),
        **_amounts(
            "opening_balance",
            "closing_balance",
            "total_debit",
            "total_credit",
            under=("header",),
        ),
    },
    ("statement", "transaction"): {
        "date": Editable(Kind.DATE, ("date",)),
        "number": Editable(Kind.TEXT, ("number",)),
        **_amounts("debit", "credit"),
        **{
            name: Editable(Kind.TEXT, (name,))
            for name in (
                "counterparty_name",
                "counterparty_tax_id",
                "counterparty_account",
                "counterparty_bank",
                "counterparty_bank_bic",
                "purpose",
            )
        },
    },
}
VARIANTS = frozenset({"general", "account", "subconto"})
# The fields in the analyst's words (the same name means the same in every part).
LABELS = {
    "organisation_name": "организация",
    "organisation_tax_id": "УНП/ИНН",
    "period_from": "период с",
    "period_to": "период по",
    "unit": "единицы",
    "currency": "валюта",
    "account_code": "счёт (код)",
    "account_name": "счёт (название)",
    "variant": "вид ведомости",
    "account": "счёт",
    "name": "наименование",
    "opening_debit": "сальдо на начало Дт",
    "opening_credit": "сальдо на начало Кт",
    "turnover_debit": "оборот Дт",
    "turnover_credit": "оборот Кт",
    "closing_debit": "сальдо на конец Дт",
    "closing_credit": "сальдо на конец Кт",
    "bank_name": "банк",
    "bank_bic": "БИК",
    "holder_name": "владелец счёта",
    "holder_tax_id": "УНП/ИНН владельца",
    "opening_balance": "входящий остаток",
    "closing_balance": "исходящий остаток",
    "total_debit": "итого списано",
    "total_credit": "итого поступило",
    "date": "дата",
    "number": "номер",
    "debit": "дебет",
    "credit": "кредит",
    "counterparty_name": "контрагент",
    "counterparty_tax_id": "УНП/ИНН контрагента",
    "counterparty_account": "счёт контрагента",
    "counterparty_bank": "банк контрагента",
    "counterparty_bank_bic": "БИК банка контрагента",
    "purpose": "назначение",
}
PART_LABELS = {"header": "заголовок", "row": "строка", "transaction": "операция"}


class InvalidValue(ValueError):
    pass


def normalised(kind: Kind, value: str | None) -> str | None:
    """The value as stored in a correction (None clears the field), or ``InvalidValue``."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if kind is Kind.AMOUNT:
        try:
            amount = Decimal(value.replace("\u00a0", "").replace(" ", "").replace(",", "."))
        except InvalidOperation:
            raise InvalidValue("сумма должна быть числом: 1234.56") from None
        if not amount.is_finite() or abs(amount) >= _LARGEST or amount != round(amount, 2):
            raise InvalidValue("сумма: не больше двух знаков после запятой и меньше 10^15")
        return f"{amount:.2f}"
    if kind is Kind.DATE:
        return _date(value).isoformat()
    if kind is Kind.VARIANT and value not in VARIANTS:
        raise InvalidValue("вид ведомости: general, account или subconto")
    if len(value) > _LONGEST or "\x00" in value:
        raise InvalidValue("текст слишком длинный или содержит недопустимые символы")
    return value


def _date(value: str) -> dt.date:
    """A date as the analyst types it (ДД.ММ.ГГГГ), or as the API may send it (ГГГГ-ММ-ДД)."""
    for parse in (lambda v: dt.datetime.strptime(v, "%d.%m.%Y").date(), dt.date.fromisoformat):
        try:
            return parse(value)
        except ValueError:
            continue
    raise InvalidValue("дата должна быть в виде ДД.ММ.ГГГГ")


def shown(kind: Kind, stored: str | None) -> Any:
    """A stored value as the document view holds such values (dates as dates)."""
    if stored is not None and kind is Kind.DATE:
        return dt.date.fromisoformat(stored)
    return stored


def read(part: object, path: tuple[str, ...]) -> Any:
    value: Any = part
    for name in path:
        if value is None:
            return None
        value = getattr(value, name)
    return value


Part = TypeVar("Part")


def replaced(part: Part, **changes: Any) -> Part:
    """A changed copy of a typed value: a dataclass, or a named tuple (rows are)."""
    if isinstance(part, tuple):
        changed: Part = part._replace(**changes)  # type: ignore[attr-defined]
        return changed
    return dataclasses.replace(part, **changes)  # type: ignore[type-var]


def written(part: Part, path: tuple[str, ...], value: Any) -> Part:
    """``part`` with the value at ``path`` changed; a nested value that was not read at all (a
    period, an organisation) is made, every other field of it empty."""
    name, rest = path[0], path[1:]
    if not rest:
        return replaced(part, **{name: value})
    inner = getattr(part, name)
    if inner is None:
        owner: type = type(part)
        of = next(field.of for field in fields_of(owner) if field.name == name)
        assert of is not None  # a path goes through nested values only
        inner = empty(of)
    return replaced(part, **{name: written(inner, rest, value)})
