"""A bank statement grid into a statementDocument: header fields, lines, checks, confidence."""

from __future__ import annotations

import datetime
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

import recognition_contract as contract
from document_extraction.banks import bank_code, bank_name
from document_extraction.captions import HeaderRepeats
from document_extraction.checks import (
    ZERO,
    StatementLine,
    check_account,
    check_statement,
    check_tax_id,
)
from document_extraction.confidence import (
    LOW_CONFIDENCE,
    UNREADABLE_CELL_PENALTY,
    document_confidence,
    ocr_of,
    row_confidence,
)
from document_extraction.dates import parse_date_cell
from document_extraction.findings import INFO, WARNING, Locate, capped, warning
from document_extraction.grid import CellValue, Grid
from document_extraction.headers import (
    HEADER_SCAN_ROWS,
    MAX_COLUMNS,
    StatementHeader,
    find_statement_header,
)
from document_extraction.identifiers import (
    NUMERIC_CURRENCIES,
    account_by_bic,
    bic_by_account,
    bic_serves,
    compact,
    currency_of_account,
    find_account,
    find_tax_id,
    iban_valid,
    inn_valid,
    normalize_account,
    normalize_bic,
    normalize_tax_id,
    readable_account,
    split_iban,
    tax_id_valid,
    unp_valid,
)
from document_extraction.lookalikes import LATIN_TO_CYRILLIC, latin_spelling
from document_extraction.numbers import (
    Amount,
    find_amount_in_text,
    format_money,
    has_excess_precision,
    parse_amount,
)
from document_extraction.osv import is_totals_label
from document_extraction.parts import split_where
from document_extraction.readings import (
    choose_reading,
    column_readings,
    direction_of,
    identities_held,
    read_running_balance,
    signed_readings,
)
from document_extraction.text import as_text, clean, is_empty, line_of, norm
from document_extraction.titles import currency_in, period_in
from recognition_contract import Equivalents, Locator, Period, Statement, Transaction, Warning

_OPENING = re.compile(r"^(?:входящий остаток|остаток на начало|входящее сальдо|сальдо на начало)")
_CLOSING = re.compile(r"^(?:исходящий остаток|остаток на конец|исходящее сальдо|сальдо на конец)")
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
_TOTAL_DEBIT = re.compile(r"списан|дебет|расход")
_TOTAL_CREDIT = re.compile(r"поступ|зачисл|кредит|приход")
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
_BIC_TOKEN = re.compile(
    rf"[,;]?\s*\b([{_BIC_LETTER}]{{6}} ?{_BIC_CHAR}{{2}}(?:{_BIC_CHAR}{{3}})?)"
    r"(?:\s+[^\w\s«»\"]{1,2})?\s*$"
)
_DATES = re.compile(r"\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}")
_READING_REASONS = {
    "direction": "Стороны операций взяты из колонки направления: при этом сходятся остатки и итоги",
    "direction_completed": "Сторона операций с нечитаемой отметкой направления взята из "
    "остатков и итогов: только при этом они сходятся",
    "credit_positive": "Положительные суммы прочитаны как поступления: при этом сходятся остатки "
    "и итоги",
    "debit_positive": "Положительные суммы прочитаны как списания, отрицательные как поступления: "
    "только при этом сходятся остатки и итоги",
    "swapped": "Колонки дебета и кредита прочитаны наоборот (списания из колонки «Кредит», "
    "поступления из колонки «Дебет»): только при этом сходятся остатки и итоги",
}


@dataclass
class _Labelled:
    text: str | None  # the value written after the label in the same cell
    cell: CellValue  # the next non-empty cell to the right
    column: int
    later: tuple[CellValue, ...] = ()  # every non-empty cell to the right, in order


def _labelled(row: Sequence[CellValue], pattern: re.Pattern[str]) -> _Labelled | None:
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
            return _Labelled(rest, following, col, later)
        return _Labelled(None, following, after[0] if after else col, later)
    return None


def _balances_from_running_balance(
    head: _Head,
    rows: Sequence[Sequence[CellValue]],
    col: int,
    lines: Sequence[StatementLine],
    locate: Locate,
    warnings: list[Warning],
) -> None:
    """A running-balance column checks every line against the one before it, and gives the
    balances a statement without balance lines does not print."""
    balances = [
        parse_amount(rows[line.index][col] if col < len(rows[line.index]) else None).value
        for line in lines
    ]
    running = read_running_balance(balances, [(line.debit, line.credit) for line in lines])
    if running is None:
        return
    for position in running.broken[:1]:
        line = lines[position]
        warnings.append(
            warning(
                "RUNNING_BALANCE_MISMATCH",
                "Остаток после операции не равен предыдущему остатку с учетом операции",
                locate.row(line.index, col),
            )
        )
    if head.opening is None and head.closing is None and not running.broken:
        head.opening, head.closing = running.opening, running.closing
        warnings.append(
            warning(
                "BALANCES_FROM_RUNNING_BALANCE",
                f"Остатки взяты из колонки остатка: входящий {format_money(running.opening)}, "
                f"исходящий {format_money(running.closing)}",
                locate.where(),
                INFO,
            )
        )


_NOT_EXECUTED = re.compile(
    r"^(?:failed|declined|rejected|cancel+ed|отклонен\w*|отменен\w*|ошибка|не проведен\w*|"
    r"не исполнен\w*)$"
)


def _not_executed(cell: CellValue) -> bool:
    """An operation the bank lists but did not carry out (a declined card payment)."""
    return isinstance(cell, str) and _NOT_EXECUTED.match(norm(cell)) is not None


def _two_amounts_after_label(row: Sequence[CellValue]) -> tuple[Decimal, Decimal] | None:
    """The debit and credit totals printed next to their label, as the first two amounts."""
    amounts = [
        amount.value
        for cell in row[:MAX_COLUMNS]
        if not isinstance(cell, str) or not cell.strip()[:1].isalpha()
        if (amount := parse_amount(cell)).value is not None and amount.problem is None
    ]
    return (amounts[0], amounts[1]) if len(amounts) >= 2 else None


def _line_labels(row: Sequence[CellValue]) -> dict[str, str]:
    """Which balance and totals labels start a text cell of the row: {"opening" | "closing" |
    "totals": the text from that cell to the end of the line}."""
    found: dict[str, str] = {}
    texts = [(c, norm(cell)) for c, cell in enumerate(row[:MAX_COLUMNS]) if isinstance(cell, str)]
    for position, (col, text) in enumerate(texts):
        for name, pattern in (
            ("opening", _OPENING.match),
            ("closing", _CLOSING.match),
            ("totals", is_totals_label),
        ):
            if name not in found and pattern(text):
                found[name] = line_of(list(row[col:MAX_COLUMNS]))
        if position > 0 and not found:
            break  # labels open a line; text further right in a line of data is not one
    return found


def _after_account(line: str) -> str | None:
    match = re.search(r"валют\w*\s*:?\s*(.*)", line, re.I)
    return match.group(1) if match else None


def _value_text(found: _Labelled) -> str | None:
    return found.text if found.text is not None else as_text(found.cell)


def _value_amount(found: _Labelled) -> Amount:
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
        if k + 1 < len(later) and _thousands_parted(cell, later[k + 1]):
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


def _thousands_parted(cell: CellValue, after: CellValue) -> bool:
    """Two text cells that are one amount's first group of digits and the rest of it."""
    return (
        isinstance(cell, str)
        and isinstance(after, str)
        and _THOUSANDS_HEAD.fullmatch(cell.strip()) is not None
        and _THOUSANDS_TAIL.fullmatch(after.strip()) is not None
    )


def _currency(text: str | None) -> str | None:
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


def _tax_id(cell: CellValue) -> str | None:
    text = as_text(cell)
    if text is None:
        return None
    candidate = normalize_tax_id(text)
    # A taxpayer number stored as a number loses its leading zero (ИНН 0278...).
    if isinstance(cell, int | float) and text.isdigit():
        if len(text) == 9 and not unp_valid(text) and inn_valid("0" + text):
            return "0" + text
        if len(text) == 11 and inn_valid("0" + text):
            return "0" + text
    return candidate


# Certainty of a statement whose sheet never says "выписка".
UNTITLED_CONFIDENCE = 90.0
# A date column whose cells lost their date format holds Excel serial numbers.
_SERIAL_DATE_PENALTY = 2
_EXCEL_EPOCH = datetime.date(1899, 12, 30)


def _date_of(cell: CellValue) -> tuple[datetime.date | None, int]:
    date, penalty = parse_date_cell(cell)
    if (
        date is None
        and isinstance(cell, int | float)
        and not isinstance(cell, bool)
        and 30000 <= cell <= 80000
        and float(cell).is_integer()
    ):
        return _EXCEL_EPOCH + datetime.timedelta(days=int(cell)), _SERIAL_DATE_PENALTY
    return date, penalty


@dataclass
class _Head:
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


def _read_head_line(
    head: _Head,
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
    if head.opening is None and (found := _labelled(row, _OPENING)) is not None:
        head.opening = _balance(found, index, locate, warnings)
        head.opening_index = index
        balance_line = True
    # "Входящий остаток RUB: | 44 922,18 | Исходящий остаток RUB: | 310 355,96": one line.
    if (head.closing is None or in_body) and (found := _labelled(row, _CLOSING)) is not None:
        head.closing = _balance(found, index, locate, warnings)
        head.closing_index = index
        balance_line = True
    if balance_line:
        return
    if head.bank_bic is None:
        match = _BIC_IN_TEXT.search(line)
        if match is not None:
            head.bank_bic = normalize_bic(latin_spelling(match.group(1).replace(" ", "")))
        elif (found := _labelled(row, _BIC_LABEL)) is not None:
            text = _value_text(found)
            head.bank_bic = normalize_bic(text) if text else None
    if head.bank_name is None and (found := _labelled(row, _BANK)) is not None:
        text = _value_text(found)
        if text:
            head.bank_name = _BIC_IN_TEXT.sub("", text).strip(" ,;") or None
        return
    if head.account is None and (found := _labelled(row, _ACCOUNT)) is not None:
        text = _value_text(found)
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
            head.currency = _currency(_after_account(line)) or _currency(after)
        return
    if head.currency is None and (found := _labelled(row, _CURRENCY)) is not None:
        head.currency = _currency(_value_text(found))
        return
    if head.holder_name is None and (found := _labelled(row, _HOLDER)) is not None:
        text = _value_text(found)
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
    if head.holder_tax_id is None and (found := _labelled(row, _TAX_LABEL)) is not None:
        text = _value_text(found)
        head.holder_tax_id = normalize_tax_id(text) if text else None
        head.holder_where = head.holder_where or locate.row(index)
        return
    if head.period is None:
        head.period = period_in(line)


def _balance(
    found: _Labelled, index: int, locate: Locate, warnings: list[Warning]
) -> Decimal | None:
    amount = _value_amount(found)
    if amount.problem is not None:
        warnings.append(
            warning(
                "AMOUNT_UNREADABLE", f"Остаток не распознан: {amount.problem}", locate.row(index)
            )
        )
    return amount.value


def statement_parts(grid: Grid) -> list[Grid]:
    """A sheet that holds the statements of several accounts one under the other, cut at each
    statement's title ("Выписка по счету …"), each part keeping its rows' numbers."""
    lines = {index: norm(line_of(list(row[:MAX_COLUMNS]))) for index, row in enumerate(grid.rows)}
    titles = [index for index, line in lines.items() if line.startswith("выписка")]
    # A title printed again at the top of each page of one statement is no new statement.
    if len({lines[index] for index in titles}) < 2:
        return [grid]
    return split_where(
        grid,
        titles[1:],
        lambda part: bool(
            find_statement_header(part.rows) or find_statement_without_table(part.rows)
        ),
    )


def find_statement_without_table(rows: Sequence[Sequence[CellValue]]) -> StatementHeader | None:
    """A statement of an account without operations: its title, and its opening and closing
    balances, but no table (one sheet per account, the quiet ones too)."""
    head = rows[:HEADER_SCAN_ROWS]
    lines = [norm(line_of(list(row[:MAX_COLUMNS]))) for row in head]
    if not any(line.startswith("выписка") for line in lines):
        return None
    if not any(_OPENING.match(line) for line in lines) or not any(
        _CLOSING.match(line) for line in lines
    ):
        return None
    return StatementHeader(row=len(rows) - 1, columns={}, confidence=100.0, first_row=len(rows))


# Body rows looked at to find the counterparty's account by its values.
_ACCOUNT_ROWS = 200


def _account_column(rows: Sequence[Sequence[CellValue]], start: int, taken: set[int]) -> int | None:
    """The column of counterparties' accounts told by its values, where its caption was not
    read (an OCR «IBAN» read as «ВАМ»): most of its cells valid IBANs, and not one account
    over and over (the statement's own)."""
    best: tuple[int, int] | None = None
    counts: Counter[int] = Counter()
    seen: dict[int, set[str]] = {}
    filled: Counter[int] = Counter()
    for row in rows[start : start + _ACCOUNT_ROWS]:
        for col, cell in enumerate(row[:MAX_COLUMNS]):
            if col in taken or not isinstance(cell, str) or not cell.strip():
                continue
            filled[col] += 1
            account = normalize_account(cell)
            if account is not None and iban_valid(account):
                counts[col] += 1
                seen.setdefault(col, set()).add(account)
    for col, count in counts.items():
        plausible = count >= 2 and 2 * count >= filled[col] and len(seen[col]) > 1
        if plausible and (best is None or count > best[1]):
            best = (col, count)
    return best[0] if best is not None else None


# What check_statement says when the lines' amounts do not add up to the printed sums.
_SUMS_FAILED = frozenset({"BALANCE_MISMATCH", "TOTALS_MISMATCH", "BALANCE_MISSING"})


def _vouched_columns(
    cols: Mapping[str, int], account: str | None, tax_id: str | None, bic: str | None
) -> set[int]:
    """A line's cells whose own check digits vouch for what was read: an IBAN, an УНП/ИНН,
    and a BIC that names the valid IBAN's bank."""
    checks = {
        "account": account is not None and iban_valid(account),
        "tax_id": tax_id is not None and tax_id_valid(tax_id),
        "bic": bic is not None and account is not None and bic_serves(bic, account),
    }
    return {cols[name] for name, holds in checks.items() if holds and name in cols}


def build_statement(grid: Grid, header: StatementHeader) -> Statement:
    locate = Locate(grid)
    rows = grid.rows
    cols = header.columns
    if "account" not in cols:
        found = _account_column(rows, header.row + 1, set(cols.values()))
        if found is not None:
            cols = {**cols, "account": found}
    warnings: list[Warning] = []
    head = _Head()
    for index in range(header.first_row):
        _read_head_line(head, rows[index], index, locate, warnings)
    head.bank_bic = bic_by_account(head.bank_bic, head.account)
    head.bank_name = bank_name(head.bank_name, bank_code(head.bank_bic, head.account))
    if head.currency is None:
        for index in range(header.first_row):
            head.currency = currency_in(line_of(list(rows[index][:MAX_COLUMNS])))
            if head.currency:
                break

    debit_eq = cols.get("debit_equivalent")
    credit_eq = cols.get("credit_equivalent")
    if "equivalent" in cols:
        debit_eq = cols["equivalent"] if debit_eq is None else debit_eq
        credit_eq = header.extra.get("equivalent", credit_eq)
    has_equivalents = debit_eq is not None or credit_eq is not None
    # One equivalent column for both sides: its amount goes to the side of the operation.
    shared_equivalent = debit_eq is not None and credit_eq is None and "equivalent" in cols
    equivalents: list[Decimal | None] = []
    date_col = cols.get("date", MAX_COLUMNS)
    signed = "debit" not in cols
    direction_col = header.direction_col if signed else None
    signed_values: list[Decimal | None] = []
    directions: list[str | None] = []
    own_account_col = header.extra.get("own_account")
    own_accounts: set[str] = set()
    totals_beside_label: tuple[Decimal, Decimal] | None = None
    not_executed: Counter[str] = Counter()

    transactions: list[Transaction] = []
    check_lines: list[StatementLine] = []
    # Each line's confidence without the cells a check vouches for: its identifiers (own
    # check digits) and, when the statement's sums hold, its amounts as well.
    vouched: list[float] = []
    summed: list[float] = []
    amount_cols = {cols[name] for name in ("debit", "credit", "amount") if name in cols}
    total_debit: Decimal | None = None
    total_credit: Decimal | None = None
    totals_index: int | None = None
    last_index = header.row
    used_cols = [c for c in cols.values()]

    def cell(row: Sequence[CellValue], name: str) -> CellValue:
        col = cols.get(name)
        return row[col] if col is not None and col < len(row) else None

    def money(row: Sequence[CellValue], col: int | None, index: int) -> tuple[Decimal | None, int]:
        if col is None or col >= len(row):
            return None, 0
        amount = parse_amount(row[col])
        if amount.problem is not None:
            warnings.append(
                warning(
                    "AMOUNT_UNREADABLE",
                    f"Сумма не распознана: {amount.problem}",
                    locate.row(index, col),
                )
            )
            return None, UNREADABLE_CELL_PENALTY
        if amount.value is not None and has_excess_precision(amount.value):
            warnings.append(
                warning(
                    "AMOUNT_PRECISION",
                    f"Сумма {amount.value} содержит больше двух знаков после запятой",
                    locate.row(index, col),
                )
            )
        return amount.value, amount.penalty

    repeats = HeaderRepeats(rows, header.first_row, header.row)
    for index in range(header.row + 1, len(rows)):
        row = rows[index]
        if row in repeats:
            continue
        date, date_penalty = _date_of(row[date_col] if date_col < len(row) else None)
        labels = _line_labels(row)
        if date is None or labels:
            # A balance or totals line, even where a date stands in the date column
            # ("Исходящий остаток на: | 18.06.2022 | 23 535.36 | Итого обороты | … | …").
            line = line_of(list(row[:MAX_COLUMNS]))
            if not line:
                continue
            if "totals" in labels:
                totals_index = index
                last_index = index
                totals_text = labels["totals"]
                if signed:
                    value = find_amount_in_text(totals_text).value
                    lowered = norm(totals_text)
                    if value is not None:
                        if _TOTAL_DEBIT.search(lowered):
                            total_debit = abs(value)
                        elif _TOTAL_CREDIT.search(lowered):
                            total_credit = abs(value)
                else:
                    total_debit, _ = money(row, cols.get("debit"), index)
                    total_credit, _ = money(row, cols.get("credit"), index)
                    # A totals line leaves the side without operations empty: its total is 0.
                    if (total_debit is None) != (total_credit is None):
                        total_debit = total_debit if total_debit is not None else ZERO
                        total_credit = total_credit if total_credit is not None else ZERO
                    # "ИТОГО: | 495 000 | 500 000" beside its label, left of the amount
                    # columns: which of the two the totals are, the lines' sums tell below.
                    totals_beside_label = _two_amounts_after_label(row)
                if "opening" not in labels and "closing" not in labels:
                    continue
            before = (head.opening, head.closing)
            # Day sections close each day: the last closing balance is the statement's.
            _read_head_line(head, row, index, locate, warnings, in_body=True)
            if (head.opening, head.closing) != before:
                last_index = index
            continue
        if _not_executed(cell(row, "status")):
            not_executed[as_text(cell(row, "status")) or ""] += 1
            continue
        penalty = date_penalty
        debit = credit = None
        if signed:
            # Put on a side once every line is read: the statement's arithmetic decides how.
            value, cost = money(row, cols.get("amount"), index)
            signed_values.append(value)
            if direction_col is not None:
                directions.append(
                    direction_of(row[direction_col] if direction_col < len(row) else None)
                )
        else:
            debit, cost_d = money(row, cols.get("debit"), index)
            credit, cost_c = money(row, cols.get("credit"), index)
            cost = max(cost_d, cost_c)
            # "0,00" printed on the side the operation is not on.
            if debit == 0 and credit is not None:
                debit = None
            elif credit == 0 and debit is not None:
                credit = None
            if debit is not None and credit is not None:
                warnings.append(
                    warning(
                        "DEBIT_AND_CREDIT",
                        f"В строке заполнены и дебет {format_money(debit)}, и кредит "
                        f"{format_money(credit)}; кредит не перенесен в результат",
                        locate.row(index),
                    )
                )
                credit = None
        penalty += cost
        account_text = as_text(cell(row, "account"))
        account = normalize_account(account_text) if account_text else None
        bank = clean(cell(row, "bank"))
        bic_read = compact(latin_spelling(as_text(cell(row, "bic")) or "")) or None
        bic = normalize_bic(bic_read) if bic_read is not None else None
        if bank is not None and bic is None:
            match = _BIC_TOKEN.search(bank)
            read = match.group(1).replace(" ", "") if match is not None else ""
            code = latin_spelling(read)
            if match is not None and (code == read or any(c.isdigit() for c in code)):
                bic = code
                bank = bank[: match.start()].strip(" ,;") or None
        name = clean(cell(row, "name"))
        glued = split_iban(name) if account is None and name is not None else None
        if glued is not None:
            name, account = glued[0] or None, glued[1]
        bic = bic_by_account(bic_read if bic is None else bic, account)
        account = account_by_bic(account, bic)
        bank = bank_name(bank, bank_code(bic, account))
        if name is not None and grid.cell_confidence is not None and "банк" in name.lower():
            # A bank as the counterparty (its fee), its name read off a page: the directory's.
            name = bank_name(name, None)
        tax_id = _tax_id(cell(row, "tax_id"))
        sure = _vouched_columns(cols, account, tax_id, bic)
        unsure = [c for c in used_cols if c not in sure]
        vouched.append(row_confidence(penalty, ocr_of(grid.cell_confidence, index, unsure)))
        unsure = [c for c in unsure if c not in amount_cols]
        summed.append(row_confidence(penalty, ocr_of(grid.cell_confidence, index, unsure)))
        line_equivalents = None
        if shared_equivalent:
            # Its side is known once the reading of the amounts is chosen, below.
            equivalents.append(money(row, debit_eq, index)[0])
            line_equivalents = Equivalents(None, None)
        elif has_equivalents:
            line_equivalents = Equivalents(
                format_money(money(row, debit_eq, index)[0]),
                format_money(money(row, credit_eq, index)[0]),
            )
        transaction = Transaction(
            date=date,
            number=as_text(cell(row, "number")),
            debit=format_money(debit),
            credit=format_money(credit),
            equivalents=line_equivalents,
            counterparty_name=name,
            counterparty_tax_id=tax_id,
            counterparty_account=account,
            counterparty_bank=bank,
            counterparty_bank_bic=bic,
            purpose=clean(cell(row, "purpose")),
            confidence=vouched[-1],
            locator=locate.row(index),
        )
        if tax_id is None and as_text(cell(row, "tax_id")):
            warnings.append(
                warning(
                    "TAX_ID_UNREADABLE",
                    f"УНП/ИНН контрагента «{as_text(cell(row, 'tax_id'))}» не распознан",
                    locate.row(index, cols.get("tax_id")),
                )
            )
        warnings.extend(check_tax_id(tax_id, locate.row(index, cols.get("tax_id")), "контрагент"))
        warnings.extend(
            check_account(account, locate.row(index, cols.get("account")), "контрагент")
        )
        if own_account_col is not None and own_account_col < len(row):
            own = readable_account(as_text(row[own_account_col]) or "")
            if own:
                own_accounts.add(own)
        transactions.append(transaction)
        check_lines.append(StatementLine(index, date, debit, credit))
        last_index = index

    for status, count in not_executed.items():
        warnings.append(
            warning(
                "OPERATION_NOT_EXECUTED",
                f"Операций со статусом «{status}» (не проведены): {count}; они не учтены",
                locate.where(),
                INFO,
            )
        )
    if totals_beside_label is not None:
        debits = sum((line.debit or ZERO for line in check_lines), ZERO)
        credits = sum((line.credit or ZERO for line in check_lines), ZERO)
        if (total_debit, total_credit) != (debits, credits) and totals_beside_label == (
            debits,
            credits,
        ):
            total_debit, total_credit = totals_beside_label
    readings = (
        signed_readings(signed_values, directions if direction_col is not None else None)
        if signed
        else column_readings([(line.debit, line.credit) for line in check_lines])
    )
    reading, overruled = choose_reading(
        readings, head.opening, head.closing, total_debit, total_credit
    )
    for position, (debit, credit) in enumerate(reading.sides):
        transaction = transactions[position]
        turned = transaction.equivalents
        if turned is not None and reading.swaps_totals and not shared_equivalent:
            turned = Equivalents(turned.credit, turned.debit)
        transactions[position] = replace(
            transaction, debit=format_money(debit), credit=format_money(credit), equivalents=turned
        )
        read = check_lines[position]
        check_lines[position] = StatementLine(read.index, read.date, debit, credit)
    if reading.swaps_totals:
        total_debit, total_credit = total_credit, total_debit
    if overruled:
        warnings.append(
            warning("SIGN_CONVENTION", _READING_REASONS[reading.name], locate.where(), INFO)
        )
    elif (
        reading.name == "credit_positive"
        and signed_values
        and all(value is None or value >= 0 for value in signed_values)
        and "balance" not in cols
        and identities_held(reading, head.opening, head.closing, total_debit, total_credit) == 0
    ):
        # Unsigned amounts and nothing that tells a side: neither a sign, nor a direction
        # column, nor balances or totals to check a reading against.
        warnings.append(
            warning(
                "SIDES_UNKNOWN",
                "Все суммы без знака, колонки направления нет: стороны операций не "
                "определены, суммы прочитаны как поступления",
                locate.where(),
            )
        )
    if "balance" in cols:
        _balances_from_running_balance(head, rows, cols["balance"], check_lines, locate, warnings)
    if head.currency is None and "currency" in cols:
        printed = {as_text(rows[line.index][cols["currency"]]) for line in check_lines}
        if len(printed) == 1:
            head.currency = _currency(printed.pop())
    for position, equivalent in enumerate(equivalents):
        transaction = transactions[position]
        amount = format_money(abs(equivalent) if equivalent is not None else None)
        on_credit = transaction.credit is not None
        transactions[position] = replace(
            transaction,
            equivalents=Equivalents(None, amount) if on_credit else Equivalents(amount, None),
        )
    if head.account is None and len(own_accounts) == 1:
        # The statement's own account printed on every line instead of in its header.
        head.account = own_accounts.pop()
        head.account_where = locate.row(header.row + 1, own_account_col)
    if head.currency is None:
        head.currency = currency_of_account(head.account)

    for balance_index in (head.closing_index, head.opening_index):
        if balance_index is not None and balance_index > last_index:
            last_index = balance_index
    where = locate.row(totals_index) if totals_index is not None else locate.where()
    if head.closing_index is not None and totals_index is None:
        where = locate.row(head.closing_index)
    all_warnings = check_account(head.account, head.account_where or locate.where(), "выписка")
    all_warnings += check_tax_id(
        head.holder_tax_id, head.holder_where or locate.where(), "владелец счета"
    )
    all_warnings += warnings
    checked = check_statement(
        check_lines,
        head.opening,
        head.closing,
        total_debit,
        total_credit,
        where,
        (head.period.start, head.period.end) if head.period else None,
        locate,
        date_col,
    )
    all_warnings += checked
    sums_hold = not any(w.code in _SUMS_FAILED for w in checked) and (
        (head.opening is not None and head.closing is not None)
        or (total_debit is not None and total_credit is not None)
    )
    # OCR's doubt about a cell a check confirms says nothing: what stays is the doubt about
    # what no check covers (names, purposes, numbers).
    confidences = summed if sums_hold else vouched
    transactions = [
        replace(line, confidence=sure) for line, sure in zip(transactions, confidences, strict=True)
    ]
    # A table of dates and amounts without a "Выписка" title may be a ledger, not a statement.
    titled = any(
        "выписк" in norm(line_of(list(rows[i][:MAX_COLUMNS]))) for i in range(header.first_row)
    )
    certainty = header.confidence if titled else min(header.confidence, UNTITLED_CONFIDENCE)
    quiet = not transactions and head.opening is not None and head.opening == head.closing
    # A quiet account's statement has nothing to read but its header and balances.
    doc_conf = certainty if quiet else document_confidence(certainty, confidences)
    if doc_conf < LOW_CONFIDENCE:
        all_warnings.append(
            warning(
                "LOW_CONFIDENCE",
                f"Низкая уверенность распознавания выписки: {doc_conf}",
                locate.where(),
            )
        )
    if not transactions:
        # No operations and an unchanged balance: a quiet account, not a reading failure.
        all_warnings.append(
            warning(
                "NO_ROWS",
                "В выписке не найдено ни одной операции",
                locate.where(),
                INFO if quiet else WARNING,
            )
        )
    first = next((i for i, r in enumerate(rows) if any(not is_empty(c) for c in r)), 0)
    return Statement(
        header=contract.StatementHeader(
            bank_name=head.bank_name,
            bank_bic=head.bank_bic,
            account=head.account,
            currency=head.currency,
            holder_name=head.holder_name,
            holder_tax_id=head.holder_tax_id,
            period=head.period,
            opening_balance=format_money(head.opening),
            closing_balance=format_money(head.closing),
            total_debit=format_money(total_debit),
            total_credit=format_money(total_credit),
        ),
        transactions=tuple(transactions),
        confidence=doc_conf,
        locator=locate.span(min(first, header.row), last_index),
        warnings=capped(all_warnings),
    )
