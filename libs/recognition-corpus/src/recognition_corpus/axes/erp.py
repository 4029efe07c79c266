"""An ERP's general-ledger balance list (SAP «Балансы счетов Главной книги» and its kin): flat
eight-digit accounts, one signed column per balance (debit positive), amounts printed
``1.234,56-``, credit turnovers often with their minus, totals marked by asterisks («*» after
each account class, «**» for the whole list)."""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, Final

from recognition_corpus import money as m
from recognition_corpus.axes.draw import NOT_APPLICABLE, Axis, Draw, uniform
from recognition_corpus.generate import _layout
from recognition_corpus.layout import Cell, Layout, Sheet
from recognition_corpus.osv import FIELDS, OsvSheet, _confidence

ERP_AXES: Final[dict[str, Axis]] = {
    "erp_columns": uniform(
        "company_account_text_currency", "account_text", "account_text_currency"
    ),
    "erp_captions": uniform("sap", "generic"),
    "erp_amounts": uniform("dot_trailing_minus", "dot_leading_minus", "number"),
    "erp_credit_sign": uniform("minus", "plain"),
    "erp_totals": uniform("grand", "by_class"),
    "erp_title": uniform(
        "Балансы счетов Главной книги",
        "Сальдовая ведомость по счетам Главной книги",
        "Оборотная ведомость по счетам Главной книги",
    ),
}
CAPTIONS: Final = {
    "sap": ("Сальдо переноса", "Дебет отч. периода", "Кредит отч. периода", "Накопленное сальдо"),
    "generic": ("Сальдо на начало", "Оборот Дт", "Оборот Кт", "Сальдо на конец"),
}
ACCOUNTS: Final = (
    ("10010000", "Касса"),
    ("10020000", "Расчетный счет в рублях"),
    ("10030000", "Валютный счет"),
    ("12010000", "Сырье и материалы"),
    ("14010000", "Товары для перепродажи"),
    ("20010000", "Основные средства"),
    ("20020000", "Амортизация основных средств"),
    ("31000000", "Расчеты с поставщиками"),
    ("31100000", "Расчеты с покупателями"),
    ("33000000", "Расчеты по НДС"),
    ("35000000", "Расчеты с персоналом по оплате труда"),
    ("50000000", "Уставный капитал"),
    ("60000000", "Выручка от реализации"),
    ("70000000", "Себестоимость продаж"),
    ("72000000", "Общехозяйственные расходы"),
)
CAPITAL: Final = "50000000"
# What reading a printed amount costs (``document_extraction.numbers``): a text amount 1, a dot
# between thousands 5 more (it could be a decimal point).
TEXT_COST, GROUPED_DOT_COST = 1, 5


def not_applicable(draw: Draw, axes: Iterable[str]) -> None:
    """The ``axes`` had no effect on the form drawn."""
    for axis in axes:
        draw.effective(axis, NOT_APPLICABLE)


def _printed(value: Decimal, style: str, *, zero: bool) -> tuple[Cell, int]:
    if value == 0 and not zero:
        return None, 0
    if style == "number":
        return float(value), 0
    q = abs(value).quantize(Decimal("0.01"))
    whole, frac = f"{q:f}".split(".")
    groups: list[str] = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    text = ".".join(groups) + "," + frac
    if value < 0:
        text = text + "-" if style == "dot_trailing_minus" else "-" + text
    return text, TEXT_COST + (GROUPED_DOT_COST if len(groups) > 1 else 0)


def _ledger(rng: random.Random) -> list[tuple[str, str, list[Decimal]]]:
    """Accounts with (opening signed, debit, credit, closing signed), the opening balances and
    the postings each summing to nothing, as a whole ledger's do."""
    chosen = sorted([*rng.sample(ACCOUNTS[:11], rng.randint(4, 9)), *ACCOUNTS[11:]])
    opening = {code: m.amount(rng, 100, 900000) * rng.choice((1, -1)) for code, _ in chosen}
    opening[CAPITAL] = Decimal(0)
    opening[CAPITAL] = -sum(opening.values(), Decimal(0))
    debit = dict.fromkeys(opening, Decimal(0))
    credit = dict.fromkeys(opening, Decimal(0))
    for _ in range(rng.randint(6, 30)):
        value = m.amount(rng, 10, 250000)
        to, frm = rng.sample(sorted(opening), 2)
        debit[to] += value
        credit[frm] += value
    return [
        (code, name, [opening[code], debit[code], credit[code],
                      opening[code] + debit[code] - credit[code]])
        for code, name in chosen
    ]  # fmt: skip


def erp_layout(draw: Draw, seed: int, index: int, name: str) -> Layout:
    rng = random.Random(f"{seed}:{index}:erp-data")  # noqa: S311 - test data
    year = rng.choice((2023, 2024, 2025))
    start, end = datetime.date(year, 1, 1), datetime.date(year, 12, 31)
    period_text = f"Период: {start:%d.%m.%Y} - {end:%d.%m.%Y}"
    columns = draw["erp_columns"]
    company = columns.startswith("company")
    currency = columns.endswith("currency")
    style, minus = draw["erp_amounts"], draw["erp_credit_sign"] == "minus"
    ledger = _ledger(rng)
    classes = sorted({code[0] for code, _, _ in ledger})
    by_class = draw["erp_totals"] == "by_class"

    sheet = Sheet(rng.choice(("Sheet1", "Лист1", "Балансы")))
    sheet.add([draw["erp_title"]])
    sheet.add([period_text])
    sheet.blank()
    captions = CAPTIONS[draw["erp_captions"]]
    head: list[Cell] = [*(["БЕ"] if company else []), "Счет ГК", "Краткий текст"]
    head += [*(["Вал."] if currency else []), *captions]
    sheet.add(head)
    first_money = len(head) - 4

    def money_row(label: list[Cell], values: list[Decimal], zero: bool) -> tuple[list[Cell], int]:
        row = [*label, *([None] * (first_money - len(label)))]
        if currency:
            row[first_money - 1] = "RUB"
        worst = 0
        for position, value in enumerate(values):
            shown = -value if position == 2 and minus else value
            cell, cost = _printed(shown, style, zero=zero)
            row.append(cell)
            worst = max(worst, cost)
        return row, worst

    rows: list[dict[str, Any]] = []
    for klass in classes:
        members = [entry for entry in ledger if entry[0][0] == klass]
        for code, title, values in members:
            label: list[Cell] = [*(["1000"] if company else []), code, title]
            row, cost = money_row(label, values, zero=True)
            at = sheet.add(row)
            rows.append(_expected_row(len(rows) + 1, code, title, values, 100 - cost, sheet, at))
        if by_class and len(classes) > 1:
            sums = [sum((v[2][k] for v in members), Decimal(0)) for k in range(4)]
            sheet.add(money_row(["*"], sums, zero=True)[0])
    if not by_class or len(classes) < 2:
        draw.effective("erp_totals", "grand")
    grand = [sum((v[2][k] for v in ledger), Decimal(0)) for k in range(4)]
    total_at = sheet.add(money_row(["**"], grand, zero=True)[0])
    totals = {
        "opening_debit": "0.00", "opening_credit": None,
        "turnover_debit": m.money(grand[1]), "turnover_credit": m.money(grand[2]),
        "closing_debit": "0.00", "closing_credit": None,
        "locator": {"sheet": sheet.name, "row": total_at + 1},
    }  # fmt: skip
    document = {
        "type": "osv",
        "variant": "general",
        "title": draw["erp_title"],
        "organisation": None,
        "period": {"from": start.isoformat(), "to": end.isoformat(), "text": period_text},
        "currency": None,
        "unit": "units",
        "account": None,
        "rows": rows,
        "totals": totals,
        "confidence": _confidence(rows),
        "locator": {"sheet": sheet.name, "row": 1, "row_end": total_at + 1},
        "warnings": [],
    }
    osv = OsvSheet(sheet, document, document, True)
    return _layout(name, "axes-osv-erp", [(osv, "unknown")], [], params=dict(draw.record))


def _expected_row(
    number: int, code: str, name: str, values: list[Decimal], confidence: int, sheet: Sheet, at: int
) -> dict[str, Any]:
    opening, debit, credit, closing = values
    # A signed balance is the debit's unless below zero; a zero is printed, so read as 0.00.
    six = [
        opening if opening >= 0 else None, -opening if opening < 0 else None,
        debit, credit,
        closing if closing >= 0 else None, -closing if closing < 0 else None,
    ]  # fmt: skip
    return {
        "id": number,
        "parent": None,
        "kind": "account",
        "level": 0,
        "code": code,
        "name": name,
        **{f: m.money(v) if v is not None else None for f, v in zip(FIELDS, six, strict=True)},
        "locator": {"sheet": sheet.name, "row": at + 1},
        "confidence": confidence,
    }
