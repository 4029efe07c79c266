"""Bank statement layouts of several banks' column sets, with expected documents."""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from recognition_corpus import money as m
from recognition_corpus.data import (
    BANKS,
    COUNTERPARTIES,
    ORGANISATIONS_BY,
    PURPOSES,
    break_check_digit,
    make_iban,
    make_unp,
)
from recognition_corpus.layout import Cell, Sheet, column_letters
from recognition_corpus.osv import _confidence, _w

DATE_FORMAT = "dd.mm.yyyy"
CURRENCY_NUMBERS = {"BYN": "933", "USD": "840", "EUR": "978", "RUB": "643"}

# Column sets by bank: each column is (header text, field).
COLUMN_SETS: dict[str, list[tuple[str, str]]] = {
    "prior": [
        ("Дата", "date"),
        ("№ док", "number"),
        ("Дебет", "debit"),
        ("Кредит", "credit"),
        ("Корреспондент", "name"),
        ("УНП", "tax_id"),
        ("Счет корреспондента", "account"),
        ("Банк корреспондента", "bank"),
        ("БИК", "bic"),
        ("Назначение платежа", "purpose"),
    ],
    "belarusbank": [
        ("Дата операции", "date"),
        ("Номер документа", "number"),
        ("Наименование корреспондента", "name"),
        ("УНП корреспондента", "tax_id"),
        ("Счет корреспондента", "account"),
        ("Банк корреспондента", "bank_bic"),
        ("Списание (дебет)", "debit"),
        ("Поступление (кредит)", "credit"),
        ("Назначение платежа", "purpose"),
    ],
    "signed": [
        ("Дата", "date"),
        ("Номер", "number"),
        ("Сумма", "amount"),
        ("Контрагент", "name"),
        ("УНП/ИНН контрагента", "tax_id"),
        ("Счет контрагента", "account"),
        ("Банк контрагента", "bank"),
        ("Назначение платежа", "purpose"),
    ],
    "tworow": [
        ("Дата", "date"),
        ("№ док.", "number"),
        ("Дебет", "debit"),
        ("Кредит", "credit"),
        ("Наименование корреспондента", "name"),
        ("УНП", "tax_id"),
        ("Счет корреспондента", "account"),
        ("Банк корреспондента", "bank"),
        ("Назначение платежа", "purpose"),
    ],
    "currency": [
        ("Дата", "date"),
        ("№ док", "number"),
        ("Дебет", "debit"),
        ("Кредит", "credit"),
        ("Эквивалент дебет, BYN", "debit_equivalent"),
        ("Эквивалент кредит, BYN", "credit_equivalent"),
        ("Корреспондент", "name"),
        ("Счет корреспондента", "account"),
        ("Банк корреспондента", "bank"),
        ("Назначение платежа", "purpose"),
    ],
}


@dataclass(frozen=True)
class StatementStyle:
    columns: str = "prior"  # a key of COLUMN_SETS
    currency: str = "BYN"
    dates: str = "date"  # date | text
    amounts: str = "number"  # number | text_nbsp | text_nnbsp | text_space
    head: str = "one"  # one: "Банк: X" in one cell | split: label and value in two cells
    title_account: bool = True  # account and period in the "Выписка по счету ..." line
    totals_row: bool = True
    lines: int = 8
    broken: str = "none"  # none | balance | unp


@dataclass
class StatementSheet:
    sheet: Sheet
    document: dict[str, Any]


@dataclass
class _Line:
    date: datetime.date
    number: str | None
    debit: Decimal | None
    credit: Decimal | None
    name: str
    tax_id: str | None
    account: str | None
    bank_name: str | None
    bic: str | None
    purpose: str
    rate: Decimal


def _lines(
    rng: random.Random,
    style: StatementStyle,
    start: datetime.date,
    end: datetime.date,
    own_bank: Any,
) -> list[_Line]:
    days = (end - start).days
    out: list[_Line] = []
    rate = Decimal("3.2745") if style.currency != "BYN" else Decimal(1)
    for k in range(style.lines):
        date = start + datetime.timedelta(days=sorted(rng.sample(range(days + 1), 1))[0])
        commission = k == style.lines - 1
        if commission:
            out.append(
                _Line(end, None, m.amount(rng, 1, 40), None, own_bank.name, None, None, None, None,
                      "Комиссия банка за расчетно-кассовое обслуживание", rate)
            )  # fmt: skip
            continue
        bank = rng.choice(BANKS)
        incoming = rng.random() < 0.5
        value = m.amount(rng, 50, 60000)
        purpose = rng.choice(PURPOSES).format(n=rng.randint(1, 999), d=f"{date:%d.%m.%Y}")
        out.append(
            _Line(
                date,
                str(rng.randint(1, 999)),
                None if incoming else value,
                value if incoming else None,
                rng.choice(COUNTERPARTIES),
                None if style.columns == "currency" else make_unp(rng),
                make_iban(rng, bank, CURRENCY_NUMBERS[style.currency]),
                bank.name,
                bank.bic,
                purpose,
                rate,
            )
        )
    out.sort(key=lambda line: line.date)
    return out


def _equivalent(value: Decimal | None, rate: Decimal) -> Decimal | None:
    if value is None:
        return None
    return (value * rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def statement(
    rng: random.Random, style: StatementStyle, sheet_name: str = "Выписка"
) -> StatementSheet:
    year = rng.choice((2024, 2025))
    month = rng.randint(1, 12)
    start = datetime.date(year, month, 1)
    end = (datetime.date(year + (month == 12), month % 12 + 1, 1)) - datetime.timedelta(days=1)
    own_bank = rng.choice(BANKS)
    account = make_iban(rng, own_bank, CURRENCY_NUMBERS[style.currency])
    holder = rng.choice(ORGANISATIONS_BY)
    holder_unp = make_unp(rng)
    lines = _lines(rng, style, start, end, own_bank)
    opening = m.amount(rng, 1000, 90000)
    debits = sum((ln.debit or Decimal(0) for ln in lines), Decimal(0))
    credits = sum((ln.credit or Decimal(0) for ln in lines), Decimal(0))
    closing = opening + credits - debits
    printed_closing = closing + Decimal("100.00") if style.broken == "balance" else closing
    sheet = Sheet(sheet_name)
    warnings: list[dict[str, Any]] = []

    def pair(label: str, value: Cell, *, fmt: str | None = None) -> int:
        if style.head == "split":
            return sheet.add([label, value], formats={1: fmt} if fmt else None)
        text = value if isinstance(value, str) else ""
        return sheet.add([f"{label} {text}".strip()])

    period_dates = f"{start:%d.%m.%Y} - {end:%d.%m.%Y}"
    if style.head == "split":
        sheet.add(["Банк:", own_bank.name])
        sheet.add(["БИК:", own_bank.bic])
    else:
        sheet.add([f"Банк: {own_bank.name}, БИК {own_bank.bic}"])
    if style.title_account and style.head == "one":
        period_text = f"за период с {start:%d.%m.%Y} по {end:%d.%m.%Y}"
        sheet.add([f"Выписка по счету {account} {period_text}"])
    else:
        sheet.add(["Выписка по счету"])
        pair("Счет:", account)
        period_text = f"Период: {period_dates}"
        pair("Период:", period_dates)
    pair(
        "Валюта:",
        style.currency
        if rng.random() < 0.5
        else f"{CURRENCY_NUMBERS[style.currency]} ({style.currency})",
    )
    if style.head == "split":
        sheet.add(["Клиент:", holder])
        sheet.add(["УНП:", holder_unp])
    else:
        sheet.add([f"Клиент: {holder}, УНП {holder_unp}"])
    if style.head == "split":
        amount_cell = m.cell(opening, style.amounts)
        sheet.add(["Входящий остаток:", None, amount_cell])
    else:
        sheet.add([f"Входящий остаток: {m.text_amount(opening, 'text_space')}"])
    sheet.blank()
    columns = COLUMN_SETS[style.columns]
    if style.columns == "tworow":
        # "Сумма" merged over "Дебет | Кредит"; the other captions merged down two rows.
        top_row: list[Cell] = []
        for header, field in columns:
            top_row.append(None if field == "credit" else "Сумма" if field == "debit" else header)
        top = sheet.add(top_row)
        sub_row: list[Cell] = [
            header if field in ("debit", "credit") else None for header, field in columns
        ]
        sheet.add(sub_row)
        for col, (_, field) in enumerate(columns):
            if field == "debit":
                sheet.merge(top, col, top, col + 1)
            elif field != "credit":
                sheet.merge(top, col, top + 1, col)
    else:
        sheet.add([header for header, _ in columns])
    col_of = {f: i for i, (_, f) in enumerate(columns)}
    transactions: list[dict[str, Any]] = []
    broken_done = False
    for line in lines:
        row: list[Cell] = [None] * len(columns)
        formats: dict[int, str] = {}
        penalty = 0
        if style.dates == "date":
            row[col_of["date"]] = line.date
            formats[col_of["date"]] = DATE_FORMAT
        else:
            row[col_of["date"]] = f"{line.date:%d.%m.%Y}"
            penalty += 1
        row[col_of["number"]] = line.number
        values: list[tuple[str, Decimal | None]]
        if "amount" in col_of:
            signed = -line.debit if line.debit is not None else line.credit
            values = [("amount", signed)]
        else:
            values = [("debit", line.debit), ("credit", line.credit)]
        if "debit_equivalent" in col_of:
            values += [
                ("debit_equivalent", _equivalent(line.debit, line.rate)),
                ("credit_equivalent", _equivalent(line.credit, line.rate)),
            ]
        cost = 0
        for field, value in values:
            row[col_of[field]] = m.cell(value, style.amounts)
            if value is not None and style.amounts == "number":
                formats[col_of[field]] = "#,##0.00"
            if not field.endswith("equivalent"):
                cost = max(cost, m.penalty(value, style.amounts))
        penalty += cost
        tax_id = line.tax_id
        if style.broken == "unp" and tax_id is not None and not broken_done:
            tax_id = break_check_digit(tax_id)
            broken_done = True
        row[col_of["name"]] = line.name
        if "tax_id" in col_of:
            row[col_of["tax_id"]] = tax_id
        row[col_of["account"]] = line.account
        bank_cell = line.bank_name
        if "bank_bic" in col_of:
            if line.bank_name is not None:
                bank_cell = f"{line.bank_name}, {line.bic}"
            row[col_of["bank_bic"]] = bank_cell
        else:
            row[col_of["bank"]] = line.bank_name
        if "bic" in col_of:
            row[col_of["bic"]] = line.bic
        row[col_of["purpose"]] = line.purpose
        index = sheet.add(row, formats=formats)
        if tax_id != line.tax_id:
            warnings.append(
                _w(
                    "TAX_ID_CHECK_FAILED",
                    {
                        "sheet": sheet_name,
                        "row": index + 1,
                        "column": column_letters(col_of["tax_id"]),
                    },
                )
            )
        has_bic = "bic" in col_of or "bank_bic" in col_of
        transaction: dict[str, Any] = {
            "date": line.date.isoformat(),
            "number": line.number,
            "debit": m.money(line.debit),
            "credit": m.money(line.credit),
        }
        if "debit_equivalent" in col_of:
            transaction["debit_equivalent"] = m.money(_equivalent(line.debit, line.rate))
            transaction["credit_equivalent"] = m.money(_equivalent(line.credit, line.rate))
        transaction.update(
            {
                "counterparty_name": line.name,
                "counterparty_tax_id": tax_id,
                "counterparty_account": line.account,
                "counterparty_bank": line.bank_name,
                "counterparty_bank_bic": line.bic if has_bic else None,
                "purpose": line.purpose,
                "confidence": 100 - penalty,
                "locator": {"sheet": sheet_name, "row": index + 1},
            }
        )
        transactions.append(transaction)
    totals_index: int | None = None
    total_debit = total_credit = None
    if style.totals_row:
        total_debit, total_credit = debits, credits
        if "amount" in col_of:
            sheet.add([f"Итого списано: {m.text_amount(debits, 'text_space')}"])
            totals_index = sheet.add([f"Итого поступило: {m.text_amount(credits, 'text_space')}"])
        else:
            row = [None] * len(columns)
            row[0] = "Итого"
            row[col_of["debit"]] = m.cell(debits, style.amounts)
            row[col_of["credit"]] = m.cell(credits, style.amounts)
            totals_index = sheet.add(row)
    if style.head == "split":
        closing_index = sheet.add(
            ["Исходящий остаток:", None, m.cell(printed_closing, style.amounts)]
        )
    else:
        closing_index = sheet.add(
            [f"Исходящий остаток: {m.text_amount(printed_closing, 'text_space')}"]
        )
    if style.broken == "balance":
        where_index = totals_index if totals_index is not None else closing_index
        warnings.append(_w("BALANCE_MISMATCH", {"sheet": sheet_name, "row": where_index + 1}))
    header_doc = {
        "bank_name": own_bank.name,
        "bank_bic": own_bank.bic,
        "account": account,
        "currency": style.currency,
        "holder_name": holder,
        "holder_tax_id": holder_unp,
        "period": {"from": start.isoformat(), "to": end.isoformat(), "text": period_text},
        "opening_balance": m.money(opening),
        "closing_balance": m.money(printed_closing),
        "total_debit": m.money(total_debit),
        "total_credit": m.money(total_credit),
    }
    document = {
        "type": "statement",
        "header": header_doc,
        "transactions": transactions,
        "confidence": _confidence(transactions),
        "locator": {"sheet": sheet_name, "row": 1, "row_end": closing_index + 1},
        "warnings": warnings,
    }
    return StatementSheet(sheet, document)
