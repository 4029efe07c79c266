"""A statement's operation lines: which column holds what for the whole table, and each row under
the header read into the contract's transaction with the figures its checks need."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property

from document_extraction.banks import bank_code, bank_name
from document_extraction.captions import MAX_COLUMNS
from document_extraction.checks import StatementLine, check_account, check_tax_id
from document_extraction.confidence import UNREADABLE_CELL_PENALTY, ocr_of, row_confidence
from document_extraction.findings import Locate, warning
from document_extraction.grid import CellValue, Grid
from document_extraction.identifiers import (
    account_by_bic,
    bic_by_account,
    compact,
    normalize_account,
    normalize_bic,
    readable_account,
    split_iban,
)
from document_extraction.layouts.statement.cells import tax_id_of, vouched_columns
from document_extraction.layouts.statement.columns import lines_of
from document_extraction.layouts.statement.entry_accounts import (
    Party,
    holder_account,
    party_in_cell,
)
from document_extraction.layouts.statement.head import BIC_TOKEN
from document_extraction.layouts.statement.header import StatementHeader
from document_extraction.layouts.statement.parts import account_column
from document_extraction.lookalikes import latin_spelling
from document_extraction.numbers import format_money, has_excess_precision, parse_amount
from document_extraction.readings import direction_of
from document_extraction.text import as_text, clean
from recognition_contract import Equivalents, Transaction, Warning


@dataclass(frozen=True)
class Columns:
    """What each column of the table holds, settled once for all its lines."""

    by_role: dict[str, int]
    debit_equivalent: int | None
    credit_equivalent: int | None
    # One equivalent column for both sides: its amount goes to the side of the operation.
    shared_equivalent: bool
    direction: int | None  # a column saying a signed amount's side
    own_account: int | None  # the statement's own account printed on every line
    # The entry's two accounts in the side columns: the holder's is on every line.
    holder: str | None = None

    @classmethod
    def of(cls, grid: Grid, header: StatementHeader) -> Columns:
        by_role = dict(header.columns)
        if "account" not in by_role:
            found = account_column(grid.rows, header.row + 1, set(by_role.values()))
            if found is not None:
                by_role["account"] = found
        debit_eq = by_role.get("debit_equivalent")
        credit_eq = by_role.get("credit_equivalent")
        if "equivalent" in by_role:
            debit_eq = by_role["equivalent"] if debit_eq is None else debit_eq
            credit_eq = header.extra.get("equivalent", credit_eq)
        signed = "debit" not in by_role
        shared = debit_eq is not None and credit_eq is None and "equivalent" in by_role
        sides = [by_role[r] for r in ("debit_account", "credit_account") if r in by_role]
        return cls(
            by_role=by_role,
            debit_equivalent=debit_eq,
            credit_equivalent=credit_eq,
            shared_equivalent=shared,
            direction=header.direction_col if signed else None,
            own_account=header.extra.get("own_account"),
            holder=holder_account(_operations(grid, header, by_role), sides) if sides else None,
        )

    @property
    def signed(self) -> bool:
        """One amount column whose sign (or a direction) tells the side, no debit | credit."""
        return "debit" not in self.by_role

    @property
    def date(self) -> int:
        return self.by_role.get("date", MAX_COLUMNS)  # none: beyond every row read

    @property
    def directed(self) -> bool:
        """Whether a line's cells say its side: a direction column, or the holder's account on
        the debit or the credit side of the entry."""
        return self.direction is not None or self.holder is not None

    @property
    def has_equivalents(self) -> bool:
        return self.debit_equivalent is not None or self.credit_equivalent is not None

    @cached_property
    def amounts(self) -> set[int]:
        return {self.by_role[n] for n in ("debit", "credit", "amount") if n in self.by_role}


@dataclass
class CellReader:
    """Reads a line's cells by role, noting what a bad amount cell earns."""

    grid: Grid
    columns: Columns
    locate: Locate
    warnings: list[Warning] = field(default_factory=list)

    def cell(self, row: Sequence[CellValue], name: str) -> CellValue:
        col = self.columns.by_role.get(name)
        return row[col] if col is not None and col < len(row) else None

    def amount_in(self, row: Sequence[CellValue]) -> bool:
        """Whether an amount column of the line holds an amount (read quietly)."""
        width = len(row)
        return any(
            col < width and parse_amount(row[col]).value is not None for col in self.columns.amounts
        )

    def money(
        self, row: Sequence[CellValue], col: int | None, index: int
    ) -> tuple[Decimal | None, int]:
        """An amount cell's value and what reading it cost."""
        if col is None or col >= len(row):
            return None, 0
        amount = parse_amount(row[col])
        where = self.locate.row(index, col)
        if amount.problem is not None:
            text = f"Сумма не распознана: {amount.problem}"
            self.warnings.append(warning("AMOUNT_UNREADABLE", text, where))
            return None, UNREADABLE_CELL_PENALTY
        if amount.value is not None and has_excess_precision(amount.value):
            text = f"Сумма {amount.value} содержит больше двух знаков после запятой"
            self.warnings.append(warning("AMOUNT_PRECISION", text, where))
        return amount.value, amount.penalty


@dataclass(frozen=True)
class Operation:
    """One line as read, before the statement's arithmetic settles its sides."""

    transaction: Transaction
    check: StatementLine
    vouched: float  # confidence without the cells their own check digits vouch for
    summed: float  # ... nor the amounts, for when the statement's sums hold
    signed_value: Decimal | None  # a signed statement's amount, its side still open
    direction: str | None  # what a direction column says of it
    equivalent: Decimal | None  # a shared equivalent column's amount, its side still open
    own_account: str | None


def zero_side_dropped(
    debit: Decimal | None, credit: Decimal | None
) -> tuple[Decimal | None, Decimal | None]:
    """A line's sides without the "0,00" printed on the side the operation is not on."""
    if debit == 0 and credit is not None:
        return None, credit
    if credit == 0 and debit is not None:
        return debit, None
    return debit, credit


def read_operation(
    reader: CellReader, row: Sequence[CellValue], index: int, date: datetime.date, penalty: int
) -> Operation:
    columns, locate = reader.columns, reader.locate
    by_role = columns.by_role
    debit = credit = signed_value = None
    # The entry's two parties, read once: the holder's side and the other party.
    holder_side, entry = _entry(reader, row)
    direction = None
    if columns.signed:
        # Put on a side once every line is read: the statement's arithmetic decides how.
        signed_value, cost = reader.money(row, by_role.get("amount"), index)
        if columns.direction is not None:
            direction = direction_of(
                row[columns.direction] if columns.direction < len(row) else None
            )
        else:
            direction = holder_side
    else:
        debit, cost_d = reader.money(row, by_role.get("debit"), index)
        credit, cost_c = reader.money(row, by_role.get("credit"), index)
        cost = max(cost_d, cost_c)
        debit, credit = zero_side_dropped(debit, credit)
        if debit is not None and credit is not None:
            text = (
                f"В строке заполнены и дебет {format_money(debit)}, и кредит "
                f"{format_money(credit)}; кредит не перенесен в результат"
            )
            reader.warnings.append(warning("DEBIT_AND_CREDIT", text, locate.row(index)))
            credit = None
    penalty += cost
    party = read_counterparty(reader, row, entry)
    sure = vouched_columns(by_role, party.account, party.tax_id, party.bic)
    unsure = [c for c in by_role.values() if c not in sure]
    vouched = row_confidence(penalty, ocr_of(reader.grid.cell_confidence, index, unsure))
    unsure = [c for c in unsure if c not in columns.amounts]
    summed = row_confidence(penalty, ocr_of(reader.grid.cell_confidence, index, unsure))
    equivalent, equivalents = _equivalents(reader, row, index)
    _check_party(reader, row, index, party)
    return Operation(
        transaction=Transaction(
            date=date,
            number=as_text(reader.cell(row, "number")),
            debit=format_money(debit),
            credit=format_money(credit),
            equivalents=equivalents,
            counterparty_name=party.name,
            counterparty_tax_id=party.tax_id,
            counterparty_account=party.account,
            counterparty_bank=party.bank,
            counterparty_bank_bic=party.bic,
            purpose=clean(reader.cell(row, "purpose")),
            confidence=vouched,
            locator=locate.row(index),
        ),
        check=StatementLine(index, date, debit, credit),
        vouched=vouched,
        summed=summed,
        signed_value=signed_value,
        direction=direction,
        equivalent=equivalent,
        own_account=_own_account(row, columns.own_account),
    )


def _equivalents(
    reader: CellReader, row: Sequence[CellValue], index: int
) -> tuple[Decimal | None, Equivalents | None]:
    columns = reader.columns
    if columns.shared_equivalent:
        # Its side is known once the reading of the amounts is chosen.
        return reader.money(row, columns.debit_equivalent, index)[0], Equivalents(None, None)
    if columns.has_equivalents:
        debit = reader.money(row, columns.debit_equivalent, index)[0]
        credit = reader.money(row, columns.credit_equivalent, index)[0]
        return None, Equivalents(format_money(debit), format_money(credit))
    return None, None


def _own_account(row: Sequence[CellValue], column: int | None) -> str | None:
    if column is None or column >= len(row):
        return None
    return readable_account(as_text(row[column]) or "") or None


@dataclass(frozen=True)
class Counterparty:
    name: str | None
    account: str | None
    bank: str | None
    bic: str | None
    tax_id: str | None


def read_counterparty(
    reader: CellReader, row: Sequence[CellValue], entry: Party | None = None
) -> Counterparty:
    """The other party's name, account, bank, BIC and tax id, each completed from the others
    where a cell lacks it (a BIC glued to the bank's name, an IBAN to the name, a bank named by
    its code) and from the ``entry``'s other party where the statement names it so."""
    account_text = as_text(reader.cell(row, "account"))
    account = normalize_account(account_text) if account_text else None
    bank = clean(reader.cell(row, "bank"))
    bic_read = compact(latin_spelling(as_text(reader.cell(row, "bic")) or "")) or None
    bic = normalize_bic(bic_read) if bic_read is not None else None
    if bank is not None and bic is None:
        bank, bic = _bic_after_bank(bank)
    name = clean(reader.cell(row, "name"))
    if entry is not None:
        account = account or entry.account
        name = name or entry.name
    glued = split_iban(name) if account is None and name is not None else None
    if glued is not None:
        name, account = glued[0] or None, glued[1]
    bic = bic_by_account(bic_read if bic is None else bic, account)
    account = account_by_bic(account, bic)
    bank = bank_name(bank, bank_code(bic, account))
    if name is not None and reader.grid.cell_confidence is not None and "банк" in name.lower():
        # A bank as the counterparty (its fee), its name read off a page: the directory's.
        name = bank_name(name, None)
    tax_id = tax_id_of(reader.cell(row, "tax_id"))
    if tax_id is None and entry is not None:
        tax_id = entry.tax_id
    return Counterparty(name, account, bank, bic, tax_id)


def _bic_after_bank(bank: str) -> tuple[str | None, str | None]:
    """A BIC written at the end of the bank's name, taken off it."""
    match = BIC_TOKEN.search(bank)
    read = match.group(1).replace(" ", "") if match is not None else ""
    code = latin_spelling(read)
    if match is not None and (code == read or any(c.isdigit() for c in code)):
        return bank[: match.start()].strip(" ,;") or None, code
    return bank, None


def _check_party(
    reader: CellReader, row: Sequence[CellValue], index: int, party: Counterparty
) -> None:
    locate, by_role = reader.locate, reader.columns.by_role
    printed = as_text(reader.cell(row, "tax_id"))
    where = locate.row(index, by_role.get("tax_id"))
    if party.tax_id is None and printed:
        text = f"УНП/ИНН контрагента «{printed}» не распознан"
        reader.warnings.append(warning("TAX_ID_UNREADABLE", text, where))
    reader.warnings.extend(check_tax_id(party.tax_id, where, "контрагент"))
    where = locate.row(index, by_role.get("account"))
    reader.warnings.extend(check_account(party.account, where, "контрагент"))


def _entry(reader: CellReader, row: Sequence[CellValue]) -> tuple[str | None, Party | None]:
    """The holder's side of the entry (money out where the holder's account is the debit, the
    payer's; in where it is the credit, the receiver's) and the party on the other side, as its
    cells name it (a bank's fee names the bank and no account); neither where the line does not
    tell."""
    holder = reader.columns.holder
    if holder is None:
        return None, None
    debit, credit = _side_party(reader, row, "debit"), _side_party(reader, row, "credit")
    if (debit.account == holder) == (credit.account == holder):
        return None, None
    return ("debit", credit) if debit.account == holder else ("credit", debit)


def _side_party(reader: CellReader, row: Sequence[CellValue], side: str) -> Party:
    """A side's party: its account cell (which may name it whole), its tax id and name cells."""
    party = party_in_cell(reader.cell(row, f"{side}_account"))
    tax_id = tax_id_of(reader.cell(row, f"{side}_tax_id")) or party.tax_id
    return Party(party.account, tax_id, clean(reader.cell(row, f"{side}_name")) or party.name)


def _operations(
    grid: Grid, header: StatementHeader, by_role: dict[str, int]
) -> list[Sequence[CellValue]]:
    """The operation lines under the header (an amount and a date, no balance label)."""
    money = [by_role[r] for r in ("debit", "credit", "amount") if r in by_role]
    return lines_of(grid.rows, header.row + 1, money, [by_role.get("date", MAX_COLUMNS)])
