"""A statement grid into the contract's document."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

import recognition_contract as contract
from document_extraction.banks import bank_code, bank_name
from document_extraction.captions import MAX_COLUMNS, HeaderRepeats
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
from document_extraction.findings import INFO, WARNING, Locate, capped, warning
from document_extraction.grid import CellValue, Grid
from document_extraction.identifiers import (
    account_by_bic,
    bic_by_account,
    compact,
    currency_of_account,
    normalize_account,
    normalize_bic,
    readable_account,
    split_iban,
)
from document_extraction.layouts.statement.balances import (
    READING_REASONS,
    balances_from_running_balance,
)
from document_extraction.layouts.statement.cells import (
    SUMS_FAILED,
    UNTITLED_CONFIDENCE,
    date_of,
    is_not_executed,
    tax_id_of,
    two_amounts_after_label,
    vouched_columns,
)
from document_extraction.layouts.statement.head import (
    BIC_TOKEN,
    TOTAL_CREDIT,
    TOTAL_DEBIT,
    Head,
    currency_of,
    line_labels,
    read_head_line,
)
from document_extraction.layouts.statement.header import StatementHeader
from document_extraction.layouts.statement.parts import account_column
from document_extraction.lookalikes import latin_spelling
from document_extraction.numbers import (
    find_amount_in_text,
    format_money,
    has_excess_precision,
    parse_amount,
)
from document_extraction.readings import (
    choose_reading,
    column_readings,
    direction_of,
    identities_held,
    signed_readings,
)
from document_extraction.text import as_text, clean, is_empty, line_of, norm
from document_extraction.titles import currency_in
from recognition_contract import Equivalents, Statement, Transaction, Warning


def build_statement(grid: Grid, header: StatementHeader) -> Statement:
    locate = Locate(grid)
    rows = grid.rows
    cols = header.columns
    if "account" not in cols:
        found = account_column(rows, header.row + 1, set(cols.values()))
        if found is not None:
            cols = {**cols, "account": found}
    warnings: list[Warning] = []
    head = Head()
    for index in range(header.first_row):
        read_head_line(head, rows[index], index, locate, warnings)
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
        date, date_penalty = date_of(row[date_col] if date_col < len(row) else None)
        labels = line_labels(row)
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
                        if TOTAL_DEBIT.search(lowered):
                            total_debit = abs(value)
                        elif TOTAL_CREDIT.search(lowered):
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
                    totals_beside_label = two_amounts_after_label(row)
                if "opening" not in labels and "closing" not in labels:
                    continue
            before = (head.opening, head.closing)
            # Day sections close each day: the last closing balance is the statement's.
            read_head_line(head, row, index, locate, warnings, in_body=True)
            if (head.opening, head.closing) != before:
                last_index = index
            continue
        if is_not_executed(cell(row, "status")):
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
            match = BIC_TOKEN.search(bank)
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
        tax_id = tax_id_of(cell(row, "tax_id"))
        sure = vouched_columns(cols, account, tax_id, bic)
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
            warning("SIGN_CONVENTION", READING_REASONS[reading.name], locate.where(), INFO)
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
        balances_from_running_balance(head, rows, cols["balance"], check_lines, locate, warnings)
    if head.currency is None and "currency" in cols:
        printed = {as_text(rows[line.index][cols["currency"]]) for line in check_lines}
        if len(printed) == 1:
            head.currency = currency_of(printed.pop())
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
    sums_hold = not any(w.code in SUMS_FAILED for w in checked) and (
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
