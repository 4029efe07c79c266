"""Trial balance layouts (general ОСВ, per-account ОСВ by subconto) with expected documents."""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from recognition_corpus import money as m
from recognition_corpus.data import (
    BY_ACCOUNTS,
    CONTRACTS,
    COUNTERPARTIES,
    ORGANISATIONS_BY,
    ORGANISATIONS_RU,
    ChartAccount,
    make_inn,
    make_unp,
)
from recognition_corpus.layout import Cell, Sheet, column_letters

MONTHS = (
    "Январь", "Февраль", "Март", "Апрель", "Май", "Июнь",
    "Июль", "Август", "Сентябрь", "Октябрь", "Ноябрь", "Декабрь",
)  # fmt: skip
MONTHS_GENITIVE = (
    "январь", "февраль", "март", "апрель", "май", "июнь",
    "июль", "август", "сентябрь", "октябрь", "ноябрь", "декабрь",
)  # fmt: skip
FIELDS = (
    "opening_debit",
    "opening_credit",
    "turnover_debit",
    "turnover_credit",
    "closing_debit",
    "closing_credit",
)
AMOUNT_FORMAT = "#,##0.00"
CODE_FORMAT = "00"


@dataclass(frozen=True)
class OsvStyle:
    """How one trial balance is printed. Each field is a variant found in real exports."""

    program: str = "bp"  # bp | erp | upp | hand
    chart: str = "BY"  # BY | RU
    one_column: bool = False  # one "Счет" column holding code and name
    numeric_codes: bool = True  # synthetic codes as numbers with format 00
    amounts: str = "number"  # number | text_nbsp | text_nnbsp | text_space
    outline: bool = True
    data_line: bool = False  # "Выводимые данные: БУ (данные бухгалтерского учета)"
    thousands: bool = False
    period: str = "quarter"  # quarter | month | range | dates
    org_tax: bool = True
    signature: bool = True
    quantity: str = "none"  # none | rows | indicator
    accounts: int = 10
    depth: int = 1  # 0: synthetic only, 1: subaccounts, 2: sub-subaccounts
    postings: int = 25
    distinct: bool = True  # include accounts that tell the chart apart
    broken: str = "none"  # none | totals | row
    captions: str = "named"  # named: "Сальдо на начало периода" | dated: "Сальдо на 01.01.2025"


@dataclass
class Node:
    code: str | None
    name: str
    kind: str = "account"
    children: list[Node] = field(default_factory=list)
    values: list[Decimal | None] = field(default_factory=lambda: [None] * 6)
    quantity: bool = False


def period_text(
    style: OsvStyle, start: datetime.date
) -> tuple[str, datetime.date, datetime.date, bool]:
    """(printed text, from, to, in_title): in_title means the text follows the title as "за ..."."""
    year = start.year
    if style.period == "quarter":
        q = (start.month - 1) // 3 + 1
        end = _month_end(year, 3 * q)
        return f"{q} квартал {year} г.", datetime.date(year, 3 * q - 2, 1), end, False
    if style.period == "month":
        end = _month_end(year, start.month)
        return f"{MONTHS_GENITIVE[start.month - 1]} {year} г.", start.replace(day=1), end, True
    if style.period == "range":
        end_year = year + 1
        return (
            f"{MONTHS[start.month - 1]} {year} г. - {MONTHS[start.month - 1]} {end_year} г.",
            start.replace(day=1),
            _month_end(end_year, start.month),
            False,
        )
    end = _month_end(year, start.month)
    return f"{start:%d.%m.%Y} - {end:%d.%m.%Y}", start.replace(day=1), end, False


def _month_end(year: int, month: int) -> datetime.date:
    nxt = datetime.date(year + (month == 12), month % 12 + 1, 1)
    return nxt - datetime.timedelta(days=1)


def _chart(style: OsvStyle) -> tuple[ChartAccount, ...]:
    from recognition_corpus.data import RU_ACCOUNTS

    return BY_ACCOUNTS if style.chart == "BY" else RU_ACCOUNTS


def _sub_sep(style: OsvStyle) -> str:
    return "."


def build_tree(rng: random.Random, style: OsvStyle) -> list[Node]:
    """Top-level accounts with subaccounts; balanced opening balances and double-entry turnovers."""
    chart = [a for a in _chart(style) if style.distinct or not a.distinct]
    must = [a for a in chart if a.code in ("60", "84")]
    distinct = [a for a in chart if a.distinct]
    pool = [a for a in chart if a not in must and a not in distinct]
    chosen = list(must)
    if style.distinct and distinct:
        chosen.append(rng.choice(distinct))
    rng.shuffle(pool)
    chosen += pool[: max(0, style.accounts - len(chosen))]
    chosen.sort(key=lambda a: a.code)
    top: list[Node] = []
    for account in chosen:
        node = Node(account.code, account.name)
        if style.depth >= 1 and account.subaccounts and account.code != "84":
            subs = account.subaccounts[: rng.randint(1, len(account.subaccounts))]
            for code, name in subs:
                child = Node(code, name)
                if style.depth >= 2 and rng.random() < 0.5:
                    for k in range(1, rng.randint(2, 3)):
                        child.children.append(Node(f"{code}.{k}", f"{name} ({k})"))
                node.children.append(child)
        top.append(node)
    leaves = [leaf for node in top for leaf in _leaves(node)]
    tenths = style.thousands
    nets: dict[int, Decimal] = {}
    for leaf in leaves:
        roll = rng.random()
        if leaf.code == "84" or roll < 0.3:
            nets[id(leaf)] = Decimal(0)
        else:
            value = m.amount(rng, 100, 900000, tenths=tenths)
            nets[id(leaf)] = value if roll < 0.7 else -value
    balancer = next(leaf for leaf in leaves if leaf.code == "84")
    nets[id(balancer)] = -sum(nets.values(), Decimal(0))
    turnovers = {id(leaf): [Decimal(0), Decimal(0)] for leaf in leaves}
    for _ in range(style.postings):
        debit, credit = rng.sample(leaves, 2)
        value = m.amount(rng, 10, 250000, tenths=tenths)
        turnovers[id(debit)][0] += value
        turnovers[id(credit)][1] += value
    for leaf in leaves:
        opening = nets[id(leaf)]
        td, tc = turnovers[id(leaf)]
        closing = opening + td - tc
        leaf.values = [
            opening if opening > 0 else None,
            -opening if opening < 0 else None,
            td or None,
            tc or None,
            closing if closing > 0 else None,
            -closing if closing < 0 else None,
        ]
    for node in top:
        _roll_up(node)
    return top


def _leaves(node: Node) -> list[Node]:
    if not node.children:
        return [node]
    return [leaf for child in node.children for leaf in _leaves(child)]


def _roll_up(node: Node) -> None:
    if not node.children:
        return
    for child in node.children:
        _roll_up(child)
    sums = [Decimal(0)] * 6
    for child in node.children:
        for i, value in enumerate(child.values):
            if value is not None:
                sums[i] += value
    node.values = [s if s else None for s in sums]


def _flatten(nodes: list[Node], level: int = 0) -> list[tuple[Node, int]]:
    out: list[tuple[Node, int]] = []
    for node in nodes:
        out.append((node, level))
        out.extend(_flatten(node.children, level + 1))
    return out


@dataclass
class OsvSheet:
    sheet: Sheet
    full: dict[str, Any]
    plain: dict[str, Any]
    chart_signal: bool


def _organisation(rng: random.Random, style: OsvStyle) -> tuple[str, str | None]:
    names = ORGANISATIONS_BY if style.chart == "BY" else ORGANISATIONS_RU
    name = rng.choice(names)
    if not style.org_tax:
        return name, None
    return name, make_unp(rng) if style.chart == "BY" else make_inn(rng)


def _title_block(
    sheet: Sheet,
    style: OsvStyle,
    title: str,
    org: tuple[str, str | None],
    period: tuple[str, datetime.date, datetime.date, bool],
) -> dict[str, Any]:
    """Writes the lines above the table; returns the document fields they carry."""
    org_name, tax_id = org
    tax_label = "УНП" if style.chart == "BY" else "ИНН"
    org_line = f"{org_name}, {tax_label} {tax_id}" if tax_id else org_name
    text, start, end, in_title = period
    printed_title = title
    if style.program == "bp" or in_title:
        printed_title = f"{title} за {text}"
        period_printed = f"за {text}"
    else:
        period_printed = f"Период: {text}"
    currency = None
    if style.program == "erp":
        sheet.add([printed_title])
        sheet.add([f"Организация: {org_line}"])
    else:
        sheet.add([org_line])
        sheet.add([printed_title])
    if period_printed.startswith("Период"):
        sheet.add([period_printed])
    if style.data_line:
        sheet.add(["Выводимые данные: БУ (данные бухгалтерского учета)"])
    if style.thousands:
        unit_line = (
            "Единица измерения: тыс. бел. руб."
            if style.chart == "BY"
            else "Единица измерения: тыс. руб."
        )
        sheet.add([unit_line])
        currency = "BYN" if style.chart == "BY" else None
    sheet.blank()
    return {
        "title": printed_title,
        "organisation": {"name": org_name, "tax_id": tax_id},
        "period": {"from": start.isoformat(), "to": end.isoformat(), "text": period_printed},
        "currency": currency,
        "unit": "thousands" if style.thousands else "units",
    }


def _header(
    sheet: Sheet,
    style: OsvStyle,
    label: str,
    corr: bool = False,
    dates: tuple[datetime.date, datetime.date] | None = None,
) -> tuple[int, list[int]]:
    """Two header rows with merged captions; returns the label column count and money columns."""
    turnover = "Оборот за период" if style.program == "upp" else "Обороты за период"
    labels = [label] if style.one_column else [label, "Наименование счета"]
    if style.quantity == "indicator":
        labels.append("Показа-\nтели")
    first = len(labels)
    captions: list[Cell] = [*labels]
    opening, closing = "Сальдо на начало периода", "Сальдо на конец периода"
    if style.captions == "dated" and dates is not None:
        opening = f"Сальдо на {dates[0]:%d.%m.%Y}"
        closing = f"Сальдо на {dates[1]:%d.%m.%Y}"
    for caption in (opening, turnover, closing):
        captions += [caption, None]
    if corr:
        captions += ["Обороты по кор. счетам", None]
    top = sheet.add(captions)
    sub: list[Cell] = [None] * first
    sub += ["Дебет", "Кредит"] * 3
    if corr:
        sub += ["51", "60"]
    sheet.add(sub)
    for col in range(first):
        sheet.merge(top, col, top + 1, col)
    for k in range(3 + corr):
        sheet.merge(top, first + 2 * k, top, first + 2 * k + 1)
    return first, [first + i for i in range(6)]


def _label_cells(
    node: Node, style: OsvStyle, label_cols: int
) -> tuple[list[Cell], dict[int, str], int]:
    """Label cells of a row, their formats, and the confidence a plain reader loses on them."""
    if node.kind == "subconto":
        return [node.name] + [None] * (label_cols - 1), {}, 0
    assert node.code is not None
    if style.one_column:
        return [f"{node.code} {node.name}"] + [None] * (label_cols - 1), {}, 0
    cells: list[Cell] = [node.code, node.name] + [None] * (label_cols - 2)
    if style.numeric_codes and node.code.isdigit():
        cells[0] = int(node.code)
        cost = 3 if len(node.code.lstrip("0") or "0") == 1 else 0
        return cells, {0: CODE_FORMAT}, cost
    return cells, {}, 0


def _money_cells(
    values: list[Decimal | None], style: OsvStyle
) -> tuple[list[Cell], dict[int, str], int]:
    cells: list[Cell] = [m.cell(v, style.amounts) for v in values]
    formats = {
        i: AMOUNT_FORMAT
        for i, v in enumerate(values)
        if v is not None and style.amounts == "number"
    }
    cost = max((m.penalty(v, style.amounts) for v in values), default=0)
    return cells, formats, cost


def _confidence(rows: list[dict[str, Any]]) -> float:
    if not rows:
        return 50
    mean = sum(Decimal(str(r["confidence"])) for r in rows) / Decimal(len(rows))
    value = float(min(Decimal(100), mean).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    return int(value) if value.is_integer() else value


def write_table(
    sheet: Sheet,
    style: OsvStyle,
    nodes: list[Node],
    label_cols: int,
    money_cols: list[int],
    *,
    corr: bool = False,
    rng: random.Random | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[int]]:
    """Body rows (with service rows interleaved); returns full and plain expected rows and the
    sheet row index of each expected row."""
    full: list[dict[str, Any]] = []
    plain: list[dict[str, Any]] = []
    indices: list[int] = []
    ids: dict[int, int] = {}
    parents: dict[int, int | None] = {}

    indicator = style.quantity == "indicator"
    text_cols = label_cols - indicator

    def walk(items: list[Node], parent: Node | None, level: int) -> None:
        for node in items:
            labels, label_formats, code_cost = _label_cells(node, style, text_cols)
            cells, money_formats, amount_cost = _money_cells(node.values, style)
            row: list[Cell] = list(labels)
            if indicator:
                row.append("БУ")
            row += cells
            if corr:
                row += [float(node.values[2]) if node.values[2] else None, None]
            formats = dict(label_formats)
            formats.update({money_cols[i]: f for i, f in money_formats.items()})
            index = sheet.add(row, formats=formats, level=level if style.outline else None)
            number = len(full) + 1
            ids[id(node)] = number
            parent_id = ids[id(parent)] if parent is not None else None
            base = {
                "id": number,
                "parent": parent_id,
                "kind": node.kind,
                "level": level,
                "code": node.code if node.kind == "account" else None,
                "name": node.name,
                **{f: m.money(v) for f, v in zip(FIELDS, node.values, strict=True)},
                "locator": {"sheet": sheet.name, "row": index + 1},
            }
            full.append({**base, "confidence": 100 - amount_cost})
            plain.append({**base, "confidence": 100 - amount_cost - code_cost})
            indices.append(index)
            parents[number] = parent_id
            if node.quantity:
                qty = float(rng.randint(1, 500)) if rng else 10.0
                if style.quantity == "rows":
                    q_row: list[Cell] = ["Количество"] + [None] * (text_cols - 1)
                    q_row += [qty, None, qty, None, None, None]
                    sheet.add(q_row, level=level + 1 if style.outline else None)
                elif style.quantity == "indicator":
                    q_row = [None] * text_cols
                    q_row += ["Кол.", qty, None, qty, None, None, None]
                    sheet.add(q_row, level=level if style.outline else None)
            walk(node.children, node, level + 1)

    walk(nodes, None, 0)
    return full, plain, indices


def general_osv(
    rng: random.Random,
    style: OsvStyle,
    sheet_name: str = "TDSheet",
    start: datetime.date | None = None,
) -> OsvSheet:
    start = start or datetime.date(rng.choice((2023, 2024, 2025)), rng.choice((1, 4, 7, 10)), 1)
    nodes = build_tree(rng, style)
    if style.quantity != "none":
        for node, _ in _flatten(nodes):
            node.quantity = bool(
                node.code and node.code.split(".")[0] in ("10", "41") and not node.children
            )
    sheet = Sheet(sheet_name)
    org = _organisation(rng, style)
    period = period_text(style, start)
    fields = _title_block(sheet, style, "Оборотно-сальдовая ведомость", org, period)
    label_cols, money_cols = _header(sheet, style, "Счет", dates=(period[1], period[2]))
    full, plain, _ = write_table(sheet, style, nodes, label_cols, money_cols, rng=rng)
    totals = [sum((n.values[i] or Decimal(0) for n in nodes), Decimal(0)) for i in range(6)]
    warnings: list[dict[str, Any]] = []
    if style.broken == "row":
        candidates = [r for r in full if r["parent"] is not None and r["closing_debit"] is not None]
        victim = candidates[0] if candidates else None
        if victim is not None:
            warnings += _break_row(sheet, style, victim, full, plain, money_cols)
    totals_index = _totals(sheet, style, totals, label_cols)
    if style.broken == "totals":
        bumped = list(totals)
        bumped[2] += Decimal("1000.00")
        sheet.rows[totals_index][money_cols[2]] = m.cell(bumped[2], style.amounts)
        totals = bumped
        where = {"sheet": sheet.name, "row": totals_index + 1}
        warnings.append(_w("TOTALS_MISMATCH", {**where, "column": column_letters(money_cols[2])}))
        warnings.append(_w("DEBIT_CREDIT_MISMATCH", where))
    _signature(sheet, style)
    return _finish(
        sheet, fields, "general", None, full, plain, totals, totals_index, warnings, style
    )


def _break_row(
    sheet: Sheet,
    style: OsvStyle,
    victim: dict[str, Any],
    full: list[dict[str, Any]],
    plain: list[dict[str, Any]],
    money_cols: list[int],
) -> list[dict[str, Any]]:
    """Print a wrong closing balance on one child row: its own balance and its parent's sum fail."""
    index = victim["locator"]["row"] - 1
    wrong = Decimal(victim["closing_debit"]) + Decimal("500.00")
    sheet.rows[index][money_cols[4]] = m.cell(wrong, style.amounts)
    for rows in (full, plain):
        rows[victim["id"] - 1]["closing_debit"] = m.money(wrong)
    parent = full[victim["parent"] - 1]
    return [
        _w("ROW_BALANCE_MISMATCH", {"sheet": sheet.name, "row": index + 1}),
        _w(
            "PARENT_SUM_MISMATCH",
            {
                "sheet": sheet.name,
                "row": parent["locator"]["row"],
                "column": column_letters(money_cols[4]),
            },
        ),
    ]


def _w(code: str, locator: dict[str, Any], severity: str = "warning") -> dict[str, Any]:
    """An expected warning; the message is free text and is not compared."""
    return {"code": code, "severity": severity, "message": "", "locator": locator}


def _totals(sheet: Sheet, style: OsvStyle, totals: list[Decimal], label_cols: int) -> int:
    cells, formats, _ = _money_cells([t or None for t in totals], style)
    row: list[Cell] = ["Итого"] + [None] * (label_cols - 1) + cells
    return sheet.add(row, formats={label_cols + i: f for i, f in formats.items()})


def _signature(sheet: Sheet, style: OsvStyle) -> None:
    if style.signature:
        sheet.blank()
        sheet.add(["Главный бухгалтер", None, "__________", None, "(подпись)"])


def _finish(
    sheet: Sheet,
    fields: dict[str, Any],
    variant: str,
    account: dict[str, Any] | None,
    full: list[dict[str, Any]],
    plain: list[dict[str, Any]],
    totals: list[Decimal],
    totals_index: int,
    warnings: list[dict[str, Any]],
    style: OsvStyle,
) -> OsvSheet:
    totals_doc: dict[str, Any] = {
        f: m.money(t or None) for f, t in zip(FIELDS, totals, strict=True)
    }
    totals_doc["locator"] = {"sheet": sheet.name, "row": totals_index + 1}

    def document(rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "type": "osv",
            "variant": variant,
            **fields,
            "account": account,
            "rows": rows,
            "totals": totals_doc,
            "confidence": _confidence(rows),
            "locator": {"sheet": sheet.name, "row": 1, "row_end": totals_index + 1},
            "warnings": [{**w, "locator": dict(w["locator"])} for w in warnings],
        }

    signal = any(a.distinct and any(r["code"] == a.code for r in full) for a in _chart(style))
    return OsvSheet(sheet, document(full), document(plain), signal)


def subconto_tree(
    rng: random.Random, style: OsvStyle, account: ChartAccount, nested: bool
) -> list[Node]:
    """Subaccounts of one account, each with counterparties (and contracts when nested)."""
    subs = account.subaccounts or ((account.code, account.name),)
    tenths = style.thousands
    nodes: list[Node] = []
    for code, name in subs:
        node = Node(code, name)
        for party in rng.sample(COUNTERPARTIES, rng.randint(2, 4)):
            child = Node(None, party, kind="subconto", quantity=style.quantity != "none")
            leaves = [child]
            if nested:
                child.quantity = False
                child.children = [
                    Node(None, c, kind="subconto", quantity=style.quantity != "none")
                    for c in rng.sample(CONTRACTS, 2)
                ]
                leaves = child.children
            for leaf in leaves:
                opening = m.amount(rng, 0, 90000, tenths=tenths) * (1 if rng.random() < 0.5 else -1)
                td = m.amount(rng, 0, 50000, tenths=tenths)
                tc = m.amount(rng, 0, 50000, tenths=tenths)
                closing = opening + td - tc
                leaf.values = [
                    opening if opening > 0 else None,
                    -opening if opening < 0 else None,
                    td or None,
                    tc or None,
                    closing if closing > 0 else None,
                    -closing if closing < 0 else None,
                ]
            node.children.append(child)
        nodes.append(node)
    for node in nodes:
        _roll_up(node)
    return nodes


def account_osv(
    rng: random.Random,
    style: OsvStyle,
    account: ChartAccount,
    *,
    sheet_name: str = "TDSheet",
    title_kind: str = "osv",  # osv | turnovers | analysis
    nested: bool = False,
    corr: bool = False,
    start: datetime.date | None = None,
    org: tuple[str, str | None] | None = None,
) -> OsvSheet:
    """Per-account ОСВ: subaccounts with subconto rows under them (variant "account")."""
    start = start or datetime.date(rng.choice((2024, 2025)), rng.choice((1, 4, 7, 10)), 1)
    style = replace(style, one_column=True)
    nodes = subconto_tree(rng, style, account, nested)
    sheet = Sheet(sheet_name)
    org = org or _organisation(rng, style)
    title = {
        "osv": f"Оборотно-сальдовая ведомость по счету {account.code}",
        "turnovers": f"Обороты счета {account.code}",
        "analysis": f"Анализ счета {account.code}",
    }[title_kind]
    fields = _title_block(sheet, style, title, org, period_text(style, start))
    label = "Субконто" if rng.random() < 0.5 else "Счет"
    label_cols, money_cols = _header(sheet, style, label, corr)
    full, plain, _ = write_table(sheet, style, nodes, label_cols, money_cols, corr=corr, rng=rng)
    totals = [sum((n.values[i] or Decimal(0) for n in nodes), Decimal(0)) for i in range(6)]
    totals_index = _totals(sheet, style, totals, label_cols)
    _signature(sheet, style)
    name = next((r["name"] for r in full if r["code"] == account.code), None)
    ref = {"code": account.code, "name": name}
    return _finish(sheet, fields, "account", ref, full, plain, totals, totals_index, [], style)
