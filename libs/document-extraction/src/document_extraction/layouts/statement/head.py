"""A statement's lines outside its table: the title lines above it (bank, account, holder, tax id,
period, currency) and the balance and totals lines within and below it, read by their labels."""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from document_extraction.banks import bank_code, bank_name
from document_extraction.captions import MAX_COLUMNS
from document_extraction.dates import parse_date_cell
from document_extraction.findings import Locate, warning
from document_extraction.grid import CellValue
from document_extraction.identifiers import (
    NUMERIC_CURRENCIES,
    bic_by_account,
    find_account,
    find_tax_id,
    normalize_account,
    normalize_bic,
    normalize_tax_id,
)
from document_extraction.layouts.line_labels import is_totals_label
from document_extraction.lookalikes import LATIN_TO_CYRILLIC, latin_spelling
from document_extraction.numbers import (
    Amount,
    find_amount_in_text,
    parse_amount,
)
from document_extraction.text import as_text, is_empty, line_of, norm
from document_extraction.titles import currency_in, period_in
from document_extraction.vocabulary import CLOSING_BALANCE_LABELS, OPENING_BALANCE_LABELS
from recognition_contract import Locator, Period, Warning

OPENING_LABEL = re.compile(rf"^(?:{'|'.join(OPENING_BALANCE_LABELS)})")
CLOSING_LABEL = re.compile(rf"^(?:{'|'.join(CLOSING_BALANCE_LABELS)})")
_BANK = re.compile(r"^(?:банк\b|наименование банка|обслуживающий банк)")
_BIC_LABEL = re.compile(r"^(?:бик|bic|swift|мфо)\b")
_ACCOUNT = re.compile(
    r"^(?:(?:расч[её]тный|текущий|лицевой|валютный)\s+)?сч[её]т\b|^iban\b|^р/с|^номер сч[её]та"
)
_CURRENCY = re.compile(r"^валюта")
_HOLDER = re.compile(
    r"^(?:клиент|владелец сч[её]та|владелец|наименование клиента|организация"
    r"|наименование организации)\b"
)
_TAX_LABEL = re.compile(r"^(?:унп|инн|иин|бин)(?:\s*/\s*(?:иин|бин|инн))?\b")
TOTAL_DEBIT = re.compile(r"списан|дебет|расход")
TOTAL_CREDIT = re.compile(r"поступ|зачисл|кредит|приход")
# A BIC's letters in Latin capitals, or (OCR of a Cyrillic page) in their Cyrillic
# look-alikes; «З» is a 3.
_BIC_LETTER = "A-Z" + "".join(c for latin, c in LATIN_TO_CYRILLIC.items() if latin.isupper())
_BIC_CHAR = f"[0-9{_BIC_LETTER}З]"
# OCR may part a BIC's location code from its country ("PJCBBY 2Х").
_BIC_IN_TEXT = re.compile(
    rf"(?:БИК|BIC|SWIFT|МФО)\s*:?\s*({_BIC_CHAR}{{6}} ?{_BIC_CHAR}{{2}}(?:{_BIC_CHAR}{{3}})?"
    rf"|\d{{9}})\b"
)
# A BIC at the end of the bank's name, and perhaps a speck after it ("ВАРВВУ2Х ="); OCR may
# part its location code from its country ("BPSBBY 2X").
BIC_TOKEN = re.compile(
    rf"[,;]?\s*\b([{_BIC_LETTER}]{{6}} ?{_BIC_CHAR}{{2}}(?:{_BIC_CHAR}{{3}})?)"
    r"(?:\s+[^\w\s«»\"]{1,2})?\s*$"
)
_DATES = re.compile(r"\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}")


@dataclass
class Labelled:
    text: str | None  # the value written after the label in the same cell
    cell: CellValue  # the next non-empty cell to the right
    column: int
    later: tuple[CellValue, ...] = ()  # every non-empty cell to the right, in order


def labelled(row: Sequence[CellValue], pattern: re.Pattern[str]) -> Labelled | None:
    width = min(len(row), MAX_COLUMNS)
    for col in range(width):
        cell = row[col]
        if not isinstance(cell, str):
            continue
        text = " ".join(cell.split())
        lowered = text.lower().replace("ё", "е")
        match = pattern.search(lowered)
        if match is None or match.start() != 0:
            continue
        rest = text[match.end() :]
        rest = re.sub(r"^[^:]*?:\s*", "", rest, count=1) if ":" in rest[:40] else rest
        # A dash used as a separator ("Остаток — 100,00"), not the minus of "-100,00".
        rest = re.sub(r"^[\s:]*(?:[-–—]\s+)?", "", rest).strip()
        after = tuple(c for c in range(col + 1, width) if not is_empty(row[c]))
        following = row[after[0]] if after else None
        later = tuple(row[c] for c in after)
        if rest:
            return Labelled(rest, following, col, later)
        return Labelled(None, following, after[0] if after else col, later)
    return None


def line_labels(row: Sequence[CellValue]) -> dict[str, str]:
    """Which balance and totals labels start a text cell of the row: {"opening" | "closing" |
    "totals": the text from that cell to the end of the line}."""
    found: dict[str, str] = {}
    # Amounts and dashes printed as text are values, not words: a day block's line may print
    # them before its label ("- | 14 598,25 | Входящий остаток").
    texts = [
        (c, norm(cell))
        for c, cell in enumerate(row[:MAX_COLUMNS])
        if isinstance(cell, str) and not _is_value(cell)
    ]
    for position, (col, text) in enumerate(texts):
        for name, pattern in (
            ("opening", OPENING_LABEL.match),
            ("closing", CLOSING_LABEL.match),
            ("totals", is_totals_label),
        ):
            if name not in found and pattern(text):
                found[name] = line_of(list(row[col:MAX_COLUMNS]))
        if position > 0 and not found:
            break  # labels open a line; text further right in a line of data is not one
    return found


def _is_value(cell: str) -> bool:
    text = cell.strip()
    return not text.strip("-–—") or parse_amount(text).value is not None


def _after_account(line: str) -> str | None:
    match = re.search(r"валют\w*\s*:?\s*(.*)", line, re.I)
    return match.group(1) if match else None


def value_text(found: Labelled) -> str | None:
    return found.text if found.text is not None else as_text(found.cell)


def value_amount(found: Labelled) -> Amount:
    """The amount after the label in its own cell, else in the next cell: "Исходящий остаток
    Пассив | 5,75" names the side in the label cell and prints the amount beside it."""
    if found.text is not None:
        amount = find_amount_in_text(found.text)
        if amount.value is not None or amount.problem is not None:
            return amount
    # "Входящий остаток на: | 06.06.2022 | 7 320.28": the date of the balance comes first;
    # "Входящий остаток: | 0.00 на 01.02.2026": the date follows the amount in its cell.
    # OCR may read the date and the amount after it as one cell ("01.09.2024 79 483.18").
    first = parse_amount(found.cell)
    later = list(found.later)
    for k, cell in enumerate(later):
        if isinstance(cell, datetime.date):
            continue
        if k + 1 < len(later) and thousands_parted(cell, later[k + 1]):
            # A page's column boundary fell in the space between the thousands ("-44 | 046,21").
            cell = f"{str(cell).strip()} {str(later[k + 1]).strip()}"
        dated = parse_date_cell(cell)[0] is not None
        amount = Amount(None) if dated else parse_amount(cell)
        if (dated or amount.problem is not None) and isinstance(cell, str):
            amount = find_amount_in_text(_DATES.sub(" ", cell))
        if amount.value is not None and amount.problem is None:
            return amount
    return first


_THOUSANDS_HEAD = re.compile(r"[-\u2212]?\d{1,3}")
_THOUSANDS_TAIL = re.compile(r"\d{3}(?:[ \u00a0]\d{3})*[.,]\d{2}")


def thousands_parted(cell: CellValue, after: CellValue) -> bool:
    """Two text cells that are one amount's first group of digits and the rest of it."""
    return (
        isinstance(cell, str)
        and isinstance(after, str)
        and _THOUSANDS_HEAD.fullmatch(cell.strip()) is not None
        and _THOUSANDS_TAIL.fullmatch(after.strip()) is not None
    )


def currency_of(text: str | None) -> str | None:
    if not text:
        return None
    named = currency_in(text)
    if named is not None:
        return named
    for number in re.findall(r"\b(\d{3})\b", text):
        if number in NUMERIC_CURRENCIES:
            return NUMERIC_CURRENCIES[number]
    code = re.search(r"\b([A-Z]{3})\b", text)
    return code.group(1) if code else None


@dataclass
class Head:
    bank_name: str | None = None
    bank_bic: str | None = None
    account: str | None = None
    account_where: Locator | None = None
    currency: str | None = None
    holder_name: str | None = None
    holder_tax_id: str | None = None
    holder_where: Locator | None = None
    period: Period | None = None
    opening: Decimal | None = None
    closing: Decimal | None = None
    closing_index: int | None = None
    opening_index: int | None = None


def read_head_line(
    head: Head,
    row: Sequence[CellValue],
    index: int,
    locate: Locate,
    warnings: list[Warning],
    *,
    in_body: bool = False,
) -> None:
    line = line_of(list(row[:MAX_COLUMNS]))
    if not line:
        return
    lowered = norm(line)
    if lowered.startswith("выписка"):
        account = find_account(line)
        if head.account is None and account is not None:
            head.account = account
            head.account_where = locate.row(index)
        if head.period is None:
            head.period = period_in(line)
        return
    balance_line = False
    if head.opening is None and (found := labelled(row, OPENING_LABEL)) is not None:
        head.opening = balance_of(found, index, locate, warnings)
        head.opening_index = index
        balance_line = True
    # "Входящий остаток RUB: | 44 922,18 | Исходящий остаток RUB: | 310 355,96": one line.
    if (head.closing is None or in_body) and (found := labelled(row, CLOSING_LABEL)) is not None:
        head.closing = balance_of(found, index, locate, warnings)
        head.closing_index = index
        balance_line = True
    if balance_line:
        return
    if head.bank_bic is None:
        match = _BIC_IN_TEXT.search(line)
        if match is not None:
            head.bank_bic = normalize_bic(latin_spelling(match.group(1).replace(" ", "")))
        elif (found := labelled(row, _BIC_LABEL)) is not None:
            text = value_text(found)
            head.bank_bic = normalize_bic(text) if text else None
    if head.bank_name is None and (found := labelled(row, _BANK)) is not None:
        text = value_text(found)
        if text:
            head.bank_name = _BIC_IN_TEXT.sub("", text).strip(" ,;") or None
        return
    if head.account is None and (found := labelled(row, _ACCOUNT)) is not None:
        text = value_text(found)
        if text:
            # An account in groups that a page set over two cells ("BY40 | BAPB 3012 …").
            joined = " ".join(t for t in (as_text(c) for c in found.later) if t)
            head.account = (
                find_account(text)
                or (find_account(joined) if found.text is None else None)
                or normalize_account(text.split(" ")[0])
            )
            head.account_where = locate.row(index, found.column)
        if head.currency is None:
            # "Счет BY09… Валюта BYN" or "№ KZ61… (KZT)": the currency after the account.
            after = text.split(head.account[-4:], 1)[-1] if text and head.account else None
            head.currency = currency_of(_after_account(line)) or currency_of(after)
        return
    if head.currency is None and (found := labelled(row, _CURRENCY)) is not None:
        head.currency = currency_of(value_text(found))
        return
    if head.holder_name is None and (found := labelled(row, _HOLDER)) is not None:
        text = value_text(found)
        if text:
            tax = find_tax_id(line)
            head.holder_name = (
                re.sub(
                    r"[,;(]?\s*(?:УНП|ИНН)\s*[:№]?\s*[0-9A-ZА-Я]{9,12}\)?", "", text, flags=re.I
                ).strip(" ,;")
                or None
            )
            head.holder_where = locate.row(index)
            if tax is not None:
                head.holder_tax_id = tax
        return
    if head.holder_tax_id is None and (found := labelled(row, _TAX_LABEL)) is not None:
        text = value_text(found)
        head.holder_tax_id = normalize_tax_id(text) if text else None
        head.holder_where = head.holder_where or locate.row(index)
        return
    if head.period is None:
        head.period = period_in(line)


def balance_of(
    found: Labelled, index: int, locate: Locate, warnings: list[Warning]
) -> Decimal | None:
    amount = value_amount(found)
    if amount.problem is not None:
        warnings.append(
            warning(
                "AMOUNT_UNREADABLE", f"Остаток не распознан: {amount.problem}", locate.row(index)
            )
        )
    return amount.value


def read_head(
    rows: Sequence[Sequence[CellValue]], end: int, locate: Locate, warnings: list[Warning]
) -> Head:
    """The title lines above the table (rows before ``end``), the bank completed from its BIC or
    the account, the currency from any title line that names one."""
    head = Head()
    for index in range(end):
        read_head_line(head, rows[index], index, locate, warnings)
    head.bank_bic = bic_by_account(head.bank_bic, head.account)
    head.bank_name = bank_name(head.bank_name, bank_code(head.bank_bic, head.account))
    if head.currency is None:
        lines = (line_of(list(rows[index][:MAX_COLUMNS])) for index in range(end))
        head.currency = next((found for line in lines if (found := currency_in(line))), None)
    return head
