"""Bank statements composed from independent axes: column sets and captions, header rows,
currency and equivalents, day sections, key-value header lines, totals and balances, dates and
amounts as printed."""

from __future__ import annotations

import datetime
import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from recognition_corpus import money as m
from recognition_corpus.axes.draw import (
    NOT_APPLICABLE,
    Axis,
    Draw,
    Printed,
    print_amount,
    text_amount,
    uniform,
)
from recognition_corpus.data import (
    BANKS,
    COUNTERPARTIES,
    ORGANISATIONS_BY,
    PURPOSES,
    make_iban,
    make_inn,
    make_unp,
)
from recognition_corpus.generate import _layout
from recognition_corpus.layout import Cell, Layout, Sheet
from recognition_corpus.osv import _confidence
from recognition_corpus.statement import CURRENCY_NUMBERS, StatementSheet

STATEMENT_AXES: dict[str, Axis] = {
    "st_amount_columns": uniform("debit_credit", "signed", "amount_flag"),
    "st_flag_values": uniform("en", "ru", "letters", "signs"),
    "st_debit_caption": uniform(
        "Дебет", "Списание", "Расход", "Списание/Дебет", "Сумма по дебету", "Дебет (списание)"
    ),
    "st_credit_caption": uniform(
        "Кредит", "Зачисление", "Поступление", "Приход", "Пополнение/Кредит", "Сумма по кредиту"
    ),
    "st_date_caption": uniform("Дата", "Дата операции", "Дата документа", "Дата проводки"),
    "st_extra_dates": (("none", 0.6), ("creation_empty", 0.2), ("value_date", 0.2)),
    "st_name_caption": uniform(
        "Корреспондент", "Контрагент", "Получатель/Плательщик", "Наименование корреспондента"
    ),
    "st_taxid_caption": uniform("УНП", "ИНН", "УНП контрагента", "none"),
    "st_account_caption": uniform("Счет корреспондента", "№ счета", "IBAN", "Счет контрагента"),
    "st_bank_columns": uniform("bank_and_bic", "bank_with_bic", "bic_only", "bank_only"),
    "st_purpose_caption": uniform(
        "Назначение платежа", "Содержание операции", "Детали", "Назначение"
    ),
    "st_header_rows": uniform("flat", "amount_group", "counterparty_group", "both"),
    "st_currency": (("BYN", 0.5), ("foreign", 0.25), ("foreign_equivalents", 0.25)),
    "st_day_sections": (
        ("none", 0.55),
        ("day_line", 0.15),
        ("day_opening", 0.15),
        ("day_closing", 0.15),
    ),
    "st_kv_layout": uniform(
        "one_cell", "next_cell", "far_cell", "shifted_next", "label_date_value"
    ),
    "st_account_place": uniform("header_line", "title_line", "grouped_iban", "column"),
    "st_holder": uniform("client_inline", "org_separate", "owner_inline"),
    "st_bank_header": uniform("inline", "separate", "none"),
    "st_currency_print": uniform("alpha", "numeric_alpha"),
    "st_period_form": uniform("dash", "dash_tight", "s_po", "title", "bare_s_po"),
    "st_opening_label": uniform(
        "Входящий остаток", "Остаток на начало", "Остаток на начало периода", "Входящее сальдо"
    ),
    "st_closing_label": uniform(
        "Исходящий остаток",
        "Остаток на конец",
        "Исходящий остаток Пассив",
        "Остаток на конец периода",
    ),
    "st_totals": uniform("Итого оборотов", "Обороты за период", "Итого", "none"),
    "st_dates": uniform("date", "text", "datetime", "text_time", "iso_text"),
    "st_amount_repr": uniform(
        "number_format",
        "number_plain",
        "text_nbsp_comma",
        "text_nnbsp_comma",
        "text_space_comma",
        "text_nogroup_comma",
        "text_nogroup_dot",
        "text_space_dot",
        "text_lead_nbsp_comma",
    ),
    "st_negatives": uniform("minus", "parentheses"),
    "st_zero_repr": uniform("empty", "zero", "dash"),
    "st_number_repr": uniform("text", "number"),
    # Operations grouped by day without their date: each day opened by a row of its date and
    # incoming balance, closed by its turnovers and outgoing balance, in the amount columns.
    "st_day_blocks": (("none", 0.8), ("blocks", 0.2)),
    # The entry's two parties and one unsigned amount: the holder's account on a side says the
    # operation's side. cells: «Счет: Дебет | Кредит», account, tax id and name in one cell;
    # blocks: «Плательщик» and «Получатель», each over «Счет | УНП | Наименование».
    "st_entry_accounts": (("none", 0.8), ("cells", 0.1), ("blocks", 0.1)),
    # A running sequence number beside the document number (№ п/п, 1..N): not the number.
    "st_sequence": (("none", 0.6), ("first", 0.2), ("after_date", 0.2)),
    "st_padding": (("none", 0.6), ("nbsp_ids", 0.2), ("trailing_spaces", 0.2)),
    "st_title": uniform(
        "Выписка по счету", "Выписка из лицевого счета", "Выписка по расчетному счету"
    ),
}
FLAGS = {
    "en": ("Тип операции (пополнение/списание)", "Credit", "Debit"),
    "ru": ("Тип операции", "Пополнение", "Списание"),
    "letters": ("Д/К", "К", "Д"),
    "signs": ("Направление", "+", "-"),
}
RATES = {"USD": Decimal("3.2745"), "EUR": Decimal("3.5512"), "RUB": Decimal("0.0361")}


@dataclass
class _Line:
    date: datetime.date
    moment: datetime.datetime
    number: str | None
    debit: Decimal | None
    credit: Decimal | None
    name: str
    tax_id: str | None
    account: str | None
    bank_name: str | None
    bic: str | None
    purpose: str


def _entry_cell(account: str | None, tax_id: str | None, name: str) -> str:
    """A party of an entry as one cell prints it: account, tax id and name on lines of their
    own."""
    label = "ИНН" if tax_id is not None and len(tax_id) in (10, 12) else "УНП"
    lines = [account, f"{label} {tax_id}" if tax_id else None, name.strip()]
    return "\n".join(line for line in lines if line)


def _group_iban(iban: str) -> str:
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))


def statement_layout(
    seed: int, index: int, name: str, fixed: Mapping[str, Any] | None = None
) -> Layout:
    draw = Draw(seed, index, STATEMENT_AXES, fixed)
    rng = random.Random(f"{seed}:{index}:statement-data")  # noqa: S311 - test data
    entry_form = draw["st_entry_accounts"]
    entries = entry_form != "none"
    if entries:
        draw.effective("st_amount_columns", "signed")  # one amount column, printed unsigned
        for axis in ("st_name_caption", "st_account_caption", "st_negatives"):
            draw.effective(axis, NOT_APPLICABLE)
        draw.effective("st_header_rows", "entry_group")
        if draw["st_account_place"] == "column":
            draw.effective("st_account_place", "header_line")
    kind = draw["st_amount_columns"]
    if kind != "amount_flag":
        draw.effective("st_flag_values", NOT_APPLICABLE)
    if kind != "debit_credit":
        draw.effective("st_debit_caption", NOT_APPLICABLE)
        draw.effective("st_credit_caption", NOT_APPLICABLE)
        draw.effective("st_zero_repr", NOT_APPLICABLE)
        if draw["st_header_rows"] in ("amount_group", "both"):
            draw.effective(
                "st_header_rows",
                "flat" if draw["st_header_rows"] == "amount_group" else "counterparty_group",
            )
    if kind != "debit_credit" and draw["st_day_blocks"] != "none":
        draw.effective("st_day_blocks", "none")
    if draw["st_day_blocks"] != "none":
        draw.effective("st_day_sections", NOT_APPLICABLE)
        # Its operations print no date: another date column would be the only one they fill.
        draw.effective("st_extra_dates", "none")
    if kind != "signed":
        draw.effective("st_negatives", NOT_APPLICABLE)
    elif draw["st_amount_repr"] == "number_plain" and draw["st_negatives"] == "parentheses":
        draw.effective("st_negatives", "minus")
    currency_kind = draw["st_currency"]
    currency = "BYN" if currency_kind == "BYN" else rng.choice(("USD", "EUR", "RUB"))
    equivalents = currency_kind == "foreign_equivalents"
    rate = RATES.get(currency, Decimal(1))

    year = rng.choice((2024, 2025))
    month = rng.randint(1, 12)
    start = datetime.date(year, month, 1)
    end = datetime.date(year + (month == 12), month % 12 + 1, 1) - datetime.timedelta(days=1)
    own_bank = rng.choice(BANKS)
    account = make_iban(rng, own_bank, CURRENCY_NUMBERS[currency])
    holder = rng.choice(ORGANISATIONS_BY)
    holder_unp = make_unp(rng)
    tax_caption = draw["st_taxid_caption"]
    lines: list[_Line] = []
    count = rng.randint(3, 20)
    for k in range(count):
        day = start + datetime.timedelta(days=rng.randint(0, (end - start).days))
        moment = datetime.datetime.combine(
            day, datetime.time(rng.randint(8, 19), rng.randint(0, 59), rng.randint(0, 59))
        )
        if k == count - 1:
            lines.append(
                _Line(
                    end,
                    datetime.datetime.combine(end, datetime.time(23, 0)),
                    None,
                    m.amount(rng, 1, 40),
                    None,
                    own_bank.name,
                    None,
                    None,
                    None,
                    None,
                    "Комиссия банка за расчетно-кассовое обслуживание",
                )
            )
            continue
        bank = rng.choice(BANKS)
        incoming = rng.random() < 0.5
        value = m.amount(rng, 50, 60000)
        tax = (
            None
            if tax_caption == "none"
            else make_inn(rng)
            if tax_caption == "ИНН"
            else make_unp(rng)
        )
        lines.append(
            _Line(
                day,
                moment,
                str(rng.randint(1, 99999)),
                None if incoming else value,
                value if incoming else None,
                rng.choice(COUNTERPARTIES),
                tax,
                make_iban(rng, bank, CURRENCY_NUMBERS[currency]),
                bank.name,
                bank.bic,
                rng.choice(PURPOSES).format(n=rng.randint(1, 999), d=f"{day:%d.%m.%Y}"),
            )
        )
    lines.sort(key=lambda ln: ln.moment)
    opening = m.amount(rng, 1000, 90000)
    debits = sum((ln.debit or Decimal(0) for ln in lines), Decimal(0))
    credits = sum((ln.credit or Decimal(0) for ln in lines), Decimal(0))
    closing = opening + credits - debits

    sheet = Sheet(rng.choice(("Выписка", "Sheet0", "Лист1")))
    amount_repr = draw["st_amount_repr"]
    negatives = draw["st_negatives"] if kind == "signed" else "minus"
    zero = draw["st_zero_repr"] if kind == "debit_credit" else "empty"
    kv = draw["st_kv_layout"]

    def pair(label: str, value: str) -> str:
        """A key-value header line; returns the text a reader joins (label and value)."""
        if kv == "one_cell":
            sheet.add([f"{label} {value}"])
        elif kv in ("next_cell", "label_date_value"):
            sheet.add([label, value])
        elif kv == "far_cell":
            sheet.add([label, None, None, value])
        else:
            sheet.add([None, label, value])
        return f"{label} {value}"

    def balance(label: str, value: Decimal, on: datetime.date) -> int:
        if kv == "one_cell":
            return sheet.add([f"{label}: {text_amount(value, ' ', ',', 'minus')}"])
        p = print_amount(value, amount_repr, negatives="minus", zero="zero")
        fmt = p.fmt
        if kv == "next_cell":
            return sheet.add([f"{label}:", p.cell], formats={1: fmt} if fmt else None)
        if kv == "label_date_value":
            # Halyk: "Входящий остаток на:" | date | amount.
            cells: list[Cell] = [f"{label} на:", f"{on:%d.%m.%Y}", p.cell]
            return sheet.add(cells, formats={2: fmt} if fmt else None)
        if kv == "far_cell":
            return sheet.add([f"{label}:", None, p.cell], formats={2: fmt} if fmt else None)
        return sheet.add([None, f"{label}:", p.cell], formats={2: fmt} if fmt else None)

    bank_header = draw["st_bank_header"]
    if bank_header == "inline":
        sheet.add([f"Банк: {own_bank.name}, БИК {own_bank.bic}"])
    elif bank_header == "separate":
        pair("Банк:", own_bank.name)
        pair("БИК:", own_bank.bic)
    place = draw["st_account_place"]
    form = draw["st_period_form"]
    period_title = f"за период с {start:%d.%m.%Y} по {end:%d.%m.%Y}"
    title = draw["st_title"]
    if place == "title_line":
        title = f"{title} {account}"
    period_text = ""
    if form == "title":
        title = f"{title} {period_title}"
        period_text = period_title
    sheet.add([title])
    if place == "header_line":
        pair("Счет:", account)
    elif place == "grouped_iban":
        pair("Счет:", _group_iban(account))
    if form == "dash":
        period_text = pair("Период:", f"{start:%d.%m.%Y} - {end:%d.%m.%Y}")
    elif form == "dash_tight":
        period_text = pair("Период", f"{start:%d.%m.%Y}-{end:%d.%m.%Y}")
    elif form == "s_po":
        period_text = pair("Период:", f"с {start:%d.%m.%Y} по {end:%d.%m.%Y}")
    elif form == "bare_s_po":
        period_text = f"с {start:%d.%m.%Y} по {end:%d.%m.%Y}"
        sheet.add([period_text])
    printed_currency = currency
    if draw["st_currency_print"] == "numeric_alpha":
        printed_currency = f"{CURRENCY_NUMBERS[currency]} ({currency})"
    pair("Валюта:", printed_currency)
    holder_form = draw["st_holder"]
    if holder_form == "client_inline":
        sheet.add([f"Клиент: {holder}, УНП {holder_unp}"])
    elif holder_form == "owner_inline":
        sheet.add([f"Владелец счета: {holder} (УНП {holder_unp})"])
    else:
        pair("Организация:", holder)
        pair("УНП:", holder_unp)
    balance(draw["st_opening_label"], opening, start)
    sheet.blank()

    # Columns: (field, caption, group caption for two header rows or None).
    cols: list[tuple[str, str, str | None]] = []
    sequence = draw["st_sequence"]
    if sequence == "first":
        cols.append(("sequence", rng.choice(("№ п/п", "№", "N п/п")), None))
    if place == "column":
        cols.append(("own_account", "Номер счета", None))
    extra = draw["st_extra_dates"]
    if extra == "creation_empty":
        cols.append(("extra_date", "Дата создания операции", None))
    cols.append(("date", draw["st_date_caption"], None))
    if extra == "value_date":
        cols.append(("extra_date", "Дата валютирования", None))
    if sequence == "after_date":
        cols.append(("sequence", rng.choice(("№ п/п", "Порядковый номер")), None))
    cols.append(("number", rng.choice(("№ док", "№ док.", "Номер документа")), None))
    group_rows = draw["st_header_rows"]
    amount_group = "Сумма" if rng.random() < 0.5 else "Обороты"
    if kind == "debit_credit":
        in_group = amount_group if group_rows in ("amount_group", "both") else None
        cols.append(("debit", draw["st_debit_caption"], in_group))
        cols.append(("credit", draw["st_credit_caption"], in_group))
        if equivalents:
            cols.append(("debit_eq", "Эквивалент дебет, BYN", None))
            cols.append(("credit_eq", "Эквивалент кредит, BYN", None))
    else:
        if kind == "amount_flag":
            cols.append(("flag", FLAGS[draw["st_flag_values"]][0], None))
        cols.append(
            ("amount", rng.choice(("Сумма", "Сумма операции", "Сумма в валюте счета")), None)
        )
        if equivalents:
            cols.append(("amount_eq", "Эквивалент, BYN", None))
    if entry_form == "cells":
        cols += [("debit_entry", "Дебет", "Счет"), ("credit_entry", "Кредит", "Счет")]
    elif entry_form == "blocks":
        tax_column = "ИНН" if tax_caption == "ИНН" else "УНП"
        for entry_side, block in (("debit", "Плательщик"), ("credit", "Получатель")):
            cols.append((f"{entry_side}_entry", "Счет", block))
            if tax_caption != "none":
                cols.append((f"{entry_side}_tax", tax_column, block))
            cols.append((f"{entry_side}_name", "Наименование", block))
    else:
        party = draw["st_name_caption"]
        grouped = group_rows in ("counterparty_group", "both")
        party_group = (
            (party if party != "Наименование корреспондента" else "Корреспондент")
            if grouped
            else None
        )
        cols.append(("name", "Наименование" if grouped else party, party_group))
        if tax_caption != "none":
            tax_column = tax_caption.split()[0] if grouped else tax_caption
            cols.append(("tax_id", tax_column, party_group))
        account_caption = draw["st_account_caption"]
        if grouped and account_caption in ("Счет корреспондента", "Счет контрагента"):
            account_caption = "Счет"
        cols.append(("account", account_caption, party_group))
    bank_cols = draw["st_bank_columns"]
    if bank_cols in ("bank_and_bic", "bank_only"):
        cols.append(("bank", "Банк корреспондента", None))
    if bank_cols == "bank_with_bic":
        cols.append(("bank_bic", "Банк корреспондента", None))
    if bank_cols in ("bank_and_bic", "bic_only"):
        cols.append(("bic", "БИК", None))
    cols.append(("purpose", draw["st_purpose_caption"], None))
    col_of = {f: i for i, (f, _, _) in enumerate(cols)}
    if any(g for _, _, g in cols):
        top: list[Cell] = []
        seen: set[str] = set()
        for _, caption, group in cols:
            if group is None:
                top.append(caption)
            elif group in seen:
                top.append(None)
            else:
                seen.add(group)
                top.append(group)
        first = sheet.add(top)
        sheet.add([caption if group else None for _, caption, group in cols])
        c = 0
        while c < len(cols):
            group = cols[c][2]
            if group is None:
                sheet.merge(first, c, first + 1, c)
                c += 1
                continue
            span = c
            while span + 1 < len(cols) and cols[span + 1][2] == group:
                span += 1
            sheet.merge(first, c, first, span)
            c = span + 1
    else:
        sheet.add([caption for _, caption, _ in cols])

    padding = draw["st_padding"]
    dates = draw["st_dates"]
    transactions: list[dict[str, Any]] = []
    sections = draw["st_day_sections"]
    blocks = draw["st_day_blocks"] == "blocks"
    running = opening
    day_sums = [Decimal(0), Decimal(0)]
    previous: datetime.date | None = None
    has_bic = bank_cols != "bank_only"
    has_bank = bank_cols != "bic_only"

    def eq(value: Decimal | None) -> Decimal | None:
        if value is None:
            return None
        return (value * rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)

    def spaced(value: Decimal) -> str:
        return text_amount(value, " ", ",", "minus")

    def block_line(label: str, debit: Decimal | None, credit: Decimal | None) -> list[Cell]:
        """A day block's own line: its label where a name stands, its amounts where amounts do."""
        cells: list[Cell] = [None] * len(cols)
        cells[col_of["name"]] = label
        for f, value in (("debit", debit), ("credit", credit)):
            cells[col_of[f]] = print_amount(value, amount_repr, negatives="minus", zero=zero).cell
        return cells

    def balance_line(label: str, value: Decimal) -> list[Cell]:
        # A passive account's balance stands on the credit side, an overdraft on the debit.
        return block_line(label, -value if value < 0 else None, value if value >= 0 else None)

    def close_block() -> None:
        sheet.add(block_line("Обороты за день", day_sums[0], day_sums[1]))
        sheet.add(balance_line("Исходящий остаток", running))

    def day_closing(value: Decimal) -> str:
        # As Bakai Bank prints it: label and amount in one cell, NBSP-padded.
        return f"Остаток на конец дня Пассив\u00a0 \u00a0 {spaced(value)}"

    for position, line in enumerate(lines, start=1):
        if blocks and line.date != previous:
            if previous is not None:
                close_block()
            opening_row = balance_line("Входящий остаток", running)
            opening_row[col_of["date"]] = line.date
            sheet.add(opening_row, formats={col_of["date"]: "dd.mm.yyyy"})
            previous, day_sums = line.date, [Decimal(0), Decimal(0)]
        elif line.date != previous:
            if previous is not None and sections == "day_closing":
                sheet.add([day_closing(running)])
            if sections == "day_line":
                sheet.add([f"За {line.date:%d.%m.%Y}"])
            elif sections == "day_opening":
                sheet.add([f"Остаток на начало дня {line.date:%d.%m.%Y}: {spaced(running)}"])
            previous = line.date
        running += (line.credit or Decimal(0)) - (line.debit or Decimal(0))
        day_sums = [day_sums[0] + (line.debit or 0), day_sums[1] + (line.credit or 0)]
        row: list[Cell] = [None] * len(cols)
        formats: dict[int, str] = {}
        penalty = 0
        if blocks:
            penalty += 1  # the date is its day's, not printed on the line
        elif dates == "date":
            row[col_of["date"]] = line.date
            formats[col_of["date"]] = "dd.mm.yyyy"
        elif dates == "datetime":
            row[col_of["date"]] = line.moment
            formats[col_of["date"]] = "dd.mm.yyyy hh:mm:ss"
        elif dates == "text":
            row[col_of["date"]] = f"{line.date:%d.%m.%Y}"
            penalty += 1
        elif dates == "iso_text":
            row[col_of["date"]] = line.date.isoformat()
            penalty += 1
        else:
            row[col_of["date"]] = f"{line.moment:%d.%m.%Y %H:%M:%S}"
            penalty += 1
        if "extra_date" in col_of:
            if extra == "value_date":
                later = line.date + datetime.timedelta(days=rng.randint(0, 3))
                row[col_of["extra_date"]] = later
                formats[col_of["extra_date"]] = "dd.mm.yyyy"
            elif rng.random() < 0.2:
                row[col_of["extra_date"]] = line.moment - datetime.timedelta(
                    minutes=rng.randint(1, 90)
                )
                formats[col_of["extra_date"]] = "dd.mm.yyyy hh:mm:ss"
        if place == "column":
            row[col_of["own_account"]] = account
        if "sequence" in col_of:
            row[col_of["sequence"]] = (
                position if draw["st_number_repr"] == "text" else float(position)
            )
        if line.number is not None:
            row[col_of["number"]] = (
                float(line.number) if draw["st_number_repr"] == "number" else line.number
            )
        printed: list[Printed] = []
        if kind == "debit_credit":
            for f, side in (("debit", line.debit), ("credit", line.credit)):
                printed.append(print_amount(side, amount_repr, negatives=negatives, zero=zero))
                row[col_of[f]] = printed[-1].cell
                if printed[-1].fmt:
                    formats[col_of[f]] = printed[-1].fmt
            if equivalents:
                for f, side in (("debit_eq", eq(line.debit)), ("credit_eq", eq(line.credit))):
                    p = print_amount(side, amount_repr, negatives=negatives, zero="empty")
                    row[col_of[f]] = p.cell
                    if p.fmt:
                        formats[col_of[f]] = p.fmt
        else:
            out = line.debit is not None
            moved = line.debit if out else line.credit
            assert moved is not None
            signed = -moved if (out and kind == "signed" and not entries) else moved
            printed.append(print_amount(signed, amount_repr, negatives=negatives, zero="empty"))
            row[col_of["amount"]] = printed[-1].cell
            if printed[-1].fmt:
                formats[col_of["amount"]] = printed[-1].fmt
            if kind == "amount_flag":
                row[col_of["flag"]] = FLAGS[draw["st_flag_values"]][2 if out else 1]
            if equivalents:
                signed_eq = eq(signed)
                p = print_amount(signed_eq, amount_repr, negatives=negatives, zero="empty")
                row[col_of["amount_eq"]] = p.cell
                if p.fmt:
                    formats[col_of["amount_eq"]] = p.fmt
        penalty += max((p.penalty for p in printed), default=0)
        name_cell = line.name + ("   " if padding == "trailing_spaces" else "")
        pad = "\u00a0" if padding == "nbsp_ids" else ""
        if entry_form == "cells":
            theirs = _entry_cell(line.account, line.tax_id, name_cell)
            ours = _entry_cell(account, holder_unp, holder)
            out = line.debit is not None
            row[col_of["debit_entry"]], row[col_of["credit_entry"]] = (
                (ours, theirs) if out else (theirs, ours)
            )
        elif entry_form == "blocks":
            out = line.debit is not None
            parties = {
                "debit" if out else "credit": (account, holder_unp, holder),
                "credit" if out else "debit": (line.account, line.tax_id, name_cell),
            }
            for entry_side, (party_account, party_tax, party_name) in parties.items():
                row[col_of[f"{entry_side}_entry"]] = party_account
                if f"{entry_side}_tax" in col_of:
                    row[col_of[f"{entry_side}_tax"]] = party_tax
                row[col_of[f"{entry_side}_name"]] = party_name
        else:
            row[col_of["name"]] = name_cell
        if "tax_id" in col_of and line.tax_id is not None:
            row[col_of["tax_id"]] = line.tax_id
        if line.account is not None and "account" in col_of:
            row[col_of["account"]] = pad + line.account
        if "bank" in col_of:
            row[col_of["bank"]] = line.bank_name
        if "bank_bic" in col_of and line.bank_name is not None:
            row[col_of["bank_bic"]] = f"{line.bank_name}, {line.bic}"
        if "bic" in col_of and line.bic is not None:
            row[col_of["bic"]] = pad + line.bic
        row[col_of["purpose"]] = line.purpose
        index = sheet.add(row, formats=formats)
        transaction: dict[str, Any] = {
            "date": line.date.isoformat(),
            "number": line.number,
            "debit": m.money(line.debit),
            "credit": m.money(line.credit),
        }
        if equivalents:
            transaction["debit_equivalent"] = m.money(eq(line.debit))
            transaction["credit_equivalent"] = m.money(eq(line.credit))
        transaction.update(
            {
                "counterparty_name": line.name,
                "counterparty_tax_id": line.tax_id,
                "counterparty_account": line.account,
                "counterparty_bank": line.bank_name if has_bank else None,
                "counterparty_bank_bic": line.bic if has_bic else None,
                "purpose": line.purpose,
                "confidence": 100 - penalty,
                "locator": {"sheet": sheet.name, "row": index + 1},
            }
        )
        transactions.append(transaction)
    if sections == "day_closing":
        sheet.add([day_closing(running)])
    if blocks:
        close_block()

    totals = draw["st_totals"]
    total_debit = total_credit = None
    if totals != "none":
        total_debit, total_credit = debits, credits
        if kind == "debit_credit":
            row = [None] * len(cols)
            row[0] = totals
            fmt_cells: dict[int, str] = {}
            for f, value in (("debit", debits), ("credit", credits)):
                p = print_amount(value, amount_repr, negatives=negatives, zero=zero)
                row[col_of[f]] = p.cell
                if p.fmt:
                    fmt_cells[col_of[f]] = p.fmt
            sheet.add(row, formats=fmt_cells)
        else:
            totals = draw.effective("st_totals", "spent_received_lines")
            sheet.add([f"Итого списано: {text_amount(debits, ' ', ',', 'minus')}"])
            sheet.add([f"Итого поступило: {text_amount(credits, ' ', ',', 'minus')}"])
    closing_index = balance(draw["st_closing_label"], closing, end)
    header_doc = {
        "bank_name": own_bank.name if bank_header != "none" else None,
        "bank_bic": own_bank.bic if bank_header != "none" else None,
        "account": account,
        "currency": currency,
        "holder_name": holder,
        "holder_tax_id": holder_unp,
        "period": {"from": start.isoformat(), "to": end.isoformat(), "text": period_text},
        "opening_balance": m.money(opening),
        "closing_balance": m.money(closing),
        "total_debit": m.money(total_debit),
        "total_credit": m.money(total_credit),
    }
    document = {
        "type": "statement",
        "header": header_doc,
        "transactions": transactions,
        "confidence": _confidence(transactions),
        "locator": {"sheet": sheet.name, "row": 1, "row_end": closing_index + 1},
        "warnings": [],
    }
    return _layout(
        name, "axes-statement", [], [StatementSheet(sheet, document)], params=dict(draw.record)
    )
