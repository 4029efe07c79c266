"""Trial balances composed from independent axes: captions, header depth, column order and extra
columns, code and amount representations, hierarchy, title block, totals, service rows."""

from __future__ import annotations

import datetime
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from recognition_corpus import money as m
from recognition_corpus.axes import erp, kazakh
from recognition_corpus.axes.draw import (
    NOT_APPLICABLE,
    Axis,
    Draw,
    Printed,
    break_lines,
    case,
    print_amount,
    split_amount,
    uniform,
)
from recognition_corpus.data import (
    BY_ACCOUNTS,
    COUNTERPARTIES,
    ORGANISATIONS_BY,
    ORGANISATIONS_RU,
    RU_ACCOUNTS,
    ChartAccount,
    make_inn,
    make_unp,
)
from recognition_corpus.generate import _layout
from recognition_corpus.layout import OUTLINE_LEVELS, Cell, Layout, Sheet
from recognition_corpus.osv import FIELDS, MONTHS, OsvSheet, _confidence

OSV_AXES: dict[str, Axis] = {
    # erp: an ERP's general-ledger balance list (``erp``), with axes of its own.
    "form": (("1c", 0.88), ("erp", 0.12)),
    # kk: the Kazakh edition of 1C in its Kazakh interface (``kazakh``).
    "language": (("ru", 0.85), ("kk", 0.15)),
    "variant": (("general", 0.6), ("account", 0.4)),
    "chart": uniform("BY", "RU"),
    "caption_wording": uniform(
        "named",
        "upp",
        "short",
        "short_dots",
        "remainder",
        "dated",
        "in_out",
        "abbrev_dots",
        "abbrev_nodots",
    ),
    "side_wording": uniform("full", "short", "hyphen", "abbrev", "sum"),
    "caption_case": uniform("as_is", "upper", "lower", "title"),
    "caption_breaks": uniform("none", "breaks"),
    "header_depth": uniform("1", "2", "3-numbers", "3-period", "4"),
    "word_order": uniform("group_side", "side_inside", "side_first"),
    "label_order": (("code_name", 0.75), ("name_code", 0.25)),
    "side_order": (("debit_credit", 0.93), ("credit_debit", 0.07)),
    "code_name_cells": uniform("two", "one"),
    "code_repr": uniform("text", "number_format", "number_plain"),
    "row_numbers": uniform("none", "left"),
    "level_column": (("none", 0.7), ("present", 0.3)),
    "indicator": (("none", 0.6), ("bu", 0.2), ("bu_nu", 0.2)),
    "quantity": (
        ("none", 0.4),
        ("rows_kol", 0.15),
        ("rows_kolvo", 0.15),
        ("rows_kolichestvo", 0.15),
        ("column", 0.15),
    ),
    "kol_names": uniform("none", "present"),
    "corr_columns": (("none", 0.7), ("split", 0.3)),
    "currency_columns": (("none", 0.8), ("per_side", 0.2)),
    "hierarchy": uniform("outline", "codes", "indent"),
    "subconto_depth": uniform(1, 2),
    "title_org": uniform("none", "own_line", "label", "with_tax", "label_with_tax"),
    "title_period": uniform(
        "title_quarter",
        "title_month",
        "title_dates",
        "line_dates",
        "line_quarter",
        "line_months",
        "line_s_po",
        "line_label_s_po",
        "line_half_year",
        "title_year",
    ),
    "title_units": uniform(
        "none",
        "rubles",
        "thousands",
        "unit_label_thousands",
        "unit_label_by_thousands",
        "by_rubles",
    ),
    "title_currency": (("none", 0.8), ("line", 0.2)),
    # The program's name printed on the organisation's line, glued to it.
    "title_program": (("none", 0.8), ("before", 0.1), ("after", 0.1)),
    "title_column": uniform("A", "B", "C"),
    "table_offset": (("0", 0.7), ("1", 0.15), ("2", 0.15)),
    "amount_repr": uniform(
        "number_format",
        "number_plain",
        "text_nbsp_comma",
        "text_nnbsp_comma",
        "text_space_comma",
        "text_nogroup_comma",
        "text_nogroup_dot",
        "text_space_dot",
    ),
    "negatives": (("none", 0.5), ("minus", 0.25), ("parentheses", 0.25)),
    "zero_repr": uniform("empty", "dash", "emdash", "zero"),
    "totals_wording": uniform("Итого", "Итого:", "Всего", "ИТОГО", "Итого по счету"),
    "totals_position": (("label", 0.6), ("name", 0.25), ("missing", 0.15)),
    # A second, larger totals line under the first (the «развернутое» balance's, each side of
    # a balance shown in full): not the document's totals.
    "totals_second": (("none", 0.75), ("expanded", 0.25)),
    # A general balance split into sections (balance-sheet chapters): a heading row before
    # each and a subtotal row after it, neither of them an account.
    "sections": (("none", 0.75), ("headings_subtotals", 0.25)),
    "filter_line": uniform("none", "present"),
    "data_line": uniform("none", "present"),
    "blank_rows": (("none", 0.7), ("body", 0.3)),
    "page_repeat": (("none", 0.8), ("repeat", 0.2)),
    "signature": uniform("none", "chief", "two", "executor"),
    **erp.ERP_AXES,
}

SECTION_NAMES = {"I": "Внеоборотные активы", "II": "Запасы", "III": "Денежные средства и расчеты"}

GROUPS: dict[str, tuple[str, str, str]] = {
    "named": ("Сальдо на начало периода", "Обороты за период", "Сальдо на конец периода"),
    "upp": ("Сальдо на начало периода", "Оборот за период", "Сальдо на конец периода"),
    "short": ("Начальное сальдо", "Обороты", "Конечное сальдо"),
    # 1C УПП «Обороты счета»: "Нач. сальдо деб.", "Кон. сальдо кред." (one-row captions).
    "short_dots": ("Нач. сальдо", "Оборот", "Кон. сальдо"),
    "remainder": ("Остаток на начало", "Обороты за период", "Остаток на конец"),
    "dated": ("Сальдо на {start}", "Обороты за период", "Сальдо на {end}"),
    "in_out": ("Входящее сальдо", "Оборот за период", "Исходящее сальдо"),
    "abbrev_dots": ("Сальдо на нач. периода", "Об. за период", "Сальдо на кон. периода"),
    "abbrev_nodots": ("Сальдо нач периода", "Об за период", "Сальдо кон периода"),
}
SIDES: dict[str, tuple[str, str]] = {
    "full": ("Дебет", "Кредит"),
    "short": ("Дт", "Кт"),
    "hyphen": ("Д-т", "К-т"),
    "abbrev": ("деб.", "кред."),
    "sum": ("Сумма по дебету", "Сумма по кредиту"),
}
QUANTITY_WORDS = {"rows_kol": "Кол.", "rows_kolvo": "Кол-во", "rows_kolichestvo": "Количество"}
ITEMS = (
    "Болт М12х60",
    "Кабель ВВГ 3х2,5",
    "Краска ПФ-115 серая",
    "Труба стальная 57х3,5",
    "Цемент М500",
    "Подшипник 6205",
    "Фанера 10 мм",
    "Лист стальной 2 мм",
    "Электроды МР-3",
)
KOL_ITEMS = ("Кольцо уплотнительное 32х4", "Колодка тормозная", "Колесо литое R16", "Колер белый")
KOL_PARTIES = ("Колесников И.И.", "Колос СПК", "Коломенский завод ООО")
ADJECTIVES = ("Начальное", "Конечное", "Входящее", "Исходящее")
# Correspondent accounts a general form's turnovers are split by, in each chart.
CORRESPONDENTS = frozenset({"10", "50", "51", "60", "62", "90", "1030", "3310", "6010"})


@dataclass
class Node:
    code: str | None
    name: str
    kind: str = "account"
    children: list[Node] = field(default_factory=list)
    values: list[Decimal | None] = field(default_factory=lambda: [None] * 6)
    qty: Decimal | None = None
    corr: dict[str, Decimal] = field(default_factory=dict)  # "d:51" / "c:90" -> amount


def _chart(draw: Draw) -> tuple[ChartAccount, ...]:
    if draw["language"] == "kk":
        return kazakh.KZ_ACCOUNTS
    return BY_ACCOUNTS if draw["chart"] == "BY" else RU_ACCOUNTS


def _leaf_values(opening: Decimal, td: Decimal, tc: Decimal) -> list[Decimal | None]:
    closing = opening + td - tc
    return [
        opening if opening > 0 else None,
        -opening if opening < 0 else None,
        td or None,
        tc or None,
        closing if closing > 0 else None,
        -closing if closing < 0 else None,
    ]


def _leaves(node: Node) -> list[Node]:
    return [node] if not node.children else [x for c in node.children for x in _leaves(c)]


def _roll_up(node: Node) -> None:
    if not node.children:
        return
    sums = [Decimal(0)] * 6
    corr: dict[str, Decimal] = {}
    for child in node.children:
        _roll_up(child)
        for i, value in enumerate(child.values):
            sums[i] += value or 0
        for key, value in child.corr.items():
            corr[key] = corr.get(key, Decimal(0)) + value
    node.values = [s if s else None for s in sums]
    node.corr = corr


def _flatten(nodes: list[Node], level: int = 0) -> list[tuple[Node, int, Node | None]]:
    out: list[tuple[Node, int, Node | None]] = []

    def walk(items: list[Node], parent: Node | None, depth: int) -> None:
        for node in items:
            out.append((node, depth, parent))
            walk(node.children, node, depth + 1)

    walk(nodes, None, level)
    return out


def _general_tree(rng: random.Random, draw: Draw, thousands: bool, corr: Corr) -> list[Node]:
    chart = _chart(draw)
    kk = draw["language"] == "kk"
    wanted = kazakh.MUST_CODES if kk else {"60", "84"}
    wanted |= {"10", "41"} if draw["quantity"] != "none" else set()
    must = [a for a in chart if a.code in wanted]
    distinct = rng.choice([a for a in chart if a.distinct])
    pool = [a for a in chart if a not in must and a is not distinct]
    rng.shuffle(pool)
    chosen = sorted([*must, distinct, *pool[: rng.randint(3, 10)]], key=lambda a: a.code)
    top: list[Node] = []
    for account in chosen:
        node = Node(account.code, account.name)
        if account.subaccounts and account.code != "84" and rng.random() < 0.8:
            for code, name in account.subaccounts[: rng.randint(1, len(account.subaccounts))]:
                child = Node(code, name)
                if rng.random() < 0.25:
                    child.children = [
                        Node(f"{code}.{k}", f"{name} ({k})") for k in range(1, rng.randint(2, 3))
                    ]
                node.children.append(child)
        top.append(node)
    leaves = [leaf for node in top for leaf in _leaves(node)]
    nets: dict[int, Decimal] = {}
    for leaf in leaves:
        roll = rng.random()
        value = m.amount(rng, 100, 900000, tenths=thousands)
        nets[id(leaf)] = Decimal(0) if roll < 0.3 else value if roll < 0.7 else -value
    balancing = kazakh.BALANCING_CODE if kk else "84"
    balancer = next(leaf for leaf in leaves if leaf.code == balancing)
    nets[id(balancer)] = Decimal(0)
    nets[id(balancer)] = -sum(nets.values(), Decimal(0))
    turnovers = {id(leaf): [Decimal(0), Decimal(0)] for leaf in leaves}
    postings = [m.amount(rng, 10, 250000, tenths=thousands) for _ in range(rng.randint(5, 30))]
    if draw["negatives"] != "none":
        postings += [-m.amount(rng, 10, 5000, tenths=thousands) for _ in range(rng.randint(1, 2))]
    for value in postings:
        debit, credit = rng.sample(leaves, 2)
        turnovers[id(debit)][0] += value
        turnovers[id(credit)][1] += value
    for leaf in leaves:
        td, tc = turnovers[id(leaf)]
        leaf.values = _leaf_values(nets[id(leaf)], td, tc)
        _split_corr(rng, leaf, corr)
        if draw["quantity"] != "none" and leaf.code and leaf.code[:2] in ("10", "41"):
            leaf.qty = Decimal(rng.randint(1, 5000)) / (1000 if rng.random() < 0.5 else 1)
    for node in top:
        _roll_up(node)
    return top


Corr = tuple[list[str], list[str]]  # correspondent accounts of debit and credit turnovers


def _split_corr(rng: random.Random, leaf: Node, corr: Corr) -> None:
    """Each turnover cut by correspondent account; the codes are fixed per layout (the header
    lists them), the amounts per row."""
    debit_codes, credit_codes = corr
    for side, total, these in (
        ("d", leaf.values[2], debit_codes),
        ("c", leaf.values[3], credit_codes),
    ):
        for code, part in zip(
            these, split_amount(rng, total or Decimal(0), len(these)), strict=True
        ):
            if part:
                leaf.corr[f"{side}:{code}"] = part


def _account_tree(
    rng: random.Random, draw: Draw, account: ChartAccount, depth: int, thousands: bool, corr: Corr
) -> list[Node]:
    items = account.code in ("10", "41")
    kol = KOL_ITEMS if items else KOL_PARTIES
    base = ITEMS if items else COUNTERPARTIES
    subs = account.subaccounts or ((account.code, account.name),)
    leaves: list[Node] = []
    nodes: list[Node] = []
    for code, name in subs:
        node = Node(code, name)
        names = rng.sample(base, rng.randint(2, 4))
        if draw["kol_names"] == "present":
            names[rng.randrange(len(names))] = rng.choice(kol)
            names.append(rng.choice(kol))
            names = list(dict.fromkeys(names))
        for party in names:
            child = Node(None, party, kind="subconto")
            if depth == 2:
                contracts = (
                    "Договор № 12/24 от 15.01.2024",
                    "Договор поставки № 7",
                    "Основной договор",
                )
                child.children = [Node(None, c, kind="subconto") for c in rng.sample(contracts, 2)]
            node.children.append(child)
            leaves += _leaves(child)
        nodes.append(node)
    storno = rng.randrange(len(leaves)) if draw["negatives"] != "none" else -1
    for k, leaf in enumerate(leaves):
        opening = m.amount(rng, 0, 90000, tenths=thousands) * (1 if rng.random() < 0.5 else -1)
        td = m.amount(rng, 0, 50000, tenths=thousands)
        tc = m.amount(rng, 0, 50000, tenths=thousands)
        if k == storno:
            td = -m.amount(rng, 10, 3000, tenths=thousands)
        leaf.values = _leaf_values(opening, td, tc)
        _split_corr(rng, leaf, corr)
        if draw["quantity"] != "none":
            leaf.qty = Decimal(rng.randint(1, 900))
    for node in nodes:
        _roll_up(node)
    return nodes


# --- title block -------------------------------------------------------------------------


def _period(draw: Draw, rng: random.Random) -> tuple[str, bool, datetime.date, datetime.date]:
    """(printed text, in the title line, from, to)."""
    form = draw["title_period"]
    year = rng.choice((2023, 2024, 2025))
    month = rng.choice((1, 4, 7, 10))
    start = datetime.date(year, month, 1)

    def end_of(months: int) -> datetime.date:
        y, mth = divmod(month - 1 + months, 12)
        return datetime.date(year + y, mth + 1, 1) - datetime.timedelta(days=1)

    if form == "title_quarter":
        return f"за {(month - 1) // 3 + 1} квартал {year} г.", True, start, end_of(3)
    if form == "line_quarter":
        return f"Период: {(month - 1) // 3 + 1} квартал {year} г.", False, start, end_of(3)
    if form == "line_half_year":
        half = 1 if month < 7 else 2
        first = datetime.date(year, 1 if half == 1 else 7, 1)
        last = datetime.date(year, 6, 30) if half == 1 else datetime.date(year, 12, 31)
        return f"Период: {half} полугодие {year} г.", False, first, last
    if form == "title_year":
        return f"за {year} г.", True, datetime.date(year, 1, 1), datetime.date(year, 12, 31)
    if form == "title_month":
        return f"за {MONTHS[month - 1].lower()} {year} г.", True, start, end_of(1)
    if form == "line_months":
        text = f"Период: {MONTHS[month - 1]} {year} г. - {MONTHS[month - 1]} {year + 1} г."
        return text, False, start, end_of(13)
    end = end_of(rng.choice((1, 3, 12)))
    dates = {
        "title_dates": (f"за {start:%d.%m.%Y} - {end:%d.%m.%Y}", True),
        "line_dates": (f"Период: {start:%d.%m.%Y} - {end:%d.%m.%Y}", False),
        "line_s_po": (f"с {start:%d.%m.%Y} по {end:%d.%m.%Y}", False),
        "line_label_s_po": (f"Период: с {start:%d.%m.%Y} по {end:%d.%m.%Y}", False),
    }[form]
    return dates[0], dates[1], start, end


def _units(draw: Draw) -> tuple[str | None, bool, str | None]:
    """(line, thousands, currency)."""
    return {
        "none": (None, False, None),
        "rubles": ("в рублях", False, None),
        "thousands": ("тыс. руб.", True, None),
        "unit_label_thousands": ("Единица измерения: тыс. руб.", True, None),
        "unit_label_by_thousands": ("Единица измерения: тыс. бел. руб.", True, "BYN"),
        "by_rubles": ("(в белорусских рублях)", False, "BYN"),
    }[draw["title_units"]]


# --- columns ------------------------------------------------------------------------------


@dataclass
class Column:
    role: (
        str  # level | number | code | name | codename | indicator | qty | money field | corr | cur
    )
    label: str | None = None  # caption of a label column
    group: int | None = None  # 0 opening, 1 turnover, 2 closing
    side: int | None = None  # 0 debit, 1 credit
    extra: str | None = None  # corr code, or "cur"


def _columns(draw: Draw, variant: str, corr: Corr | None) -> list[Column]:
    cols: list[Column] = []
    if draw["level_column"] == "present":
        cols.append(Column("level"))
    cols += [Column("gap") for _ in range(int(draw["table_offset"]))]
    if draw["row_numbers"] == "left":
        cols.append(Column("number", "№ п/п"))
    kk = draw["language"] == "kk"
    code_caption = kazakh.CODE_CAPTION if kk else "Счет"
    first = (
        "Субконто" if variant == "account" and draw["code_name_cells"] == "one" else code_caption
    )
    if draw["code_name_cells"] == "one":
        cols.append(Column("codename", first))
    else:
        name_caption = kazakh.NAME_CAPTION if kk else "Наименование счета"
        pair = [Column("code", code_caption), Column("name", name_caption)]
        if variant == "account":
            pair[1].label = "Наименование"
        cols += pair if draw["label_order"] == "code_name" else pair[::-1]
    if draw["indicator"] != "none":
        cols.append(Column("indicator", "Показа-\nтели"))
    if draw["quantity"] == "column":
        cols.append(Column("qty", "Кол-во"))
    sides = (0, 1) if draw["side_order"] == "debit_credit" else (1, 0)
    for group in range(3):
        for side in sides:
            cols.append(Column(FIELDS[2 * group + side], group=group, side=side))
            if group == 1 and corr is not None:
                for code in corr[side]:
                    cols.append(Column("corr", group=group, side=side, extra=code))
            if draw["currency_columns"] == "per_side":
                cols.append(Column("cur", group=group, side=side, extra="cur"))
    return cols


def _header(
    sheet: Sheet,
    draw: Draw,
    cols: list[Column],
    dates: tuple[datetime.date, datetime.date],
    rng: random.Random,
    level_col: bool,
) -> list[int]:
    """Writes the header rows; returns their indices."""
    groups = [
        g.format(start=f"{dates[0]:%d.%m.%Y}", end=f"{dates[1]:%d.%m.%Y}")
        for g in (kazakh.GROUPS if draw["language"] == "kk" else GROUPS[draw["caption_wording"]])
    ]
    sides = SIDES[draw["side_wording"]]
    depth = draw["header_depth"]
    breaks = draw["caption_breaks"] == "breaks"

    def text(value: str) -> str:
        value = case(value, draw["caption_case"])
        return break_lines(value, rng) if breaks and " " in value else value

    def compose(group: str, side: str) -> str:
        order = draw["word_order"]
        head, _, rest = group.partition(" ")
        if order == "side_first":
            return f"{side} {group[:1].lower()}{group[1:]}"
        if order == "side_inside" and head not in ADJECTIVES and rest:
            return f"{head} {side} {rest}"
        return f"{group} {side}"

    if depth != "1":
        draw.effective("word_order", NOT_APPLICABLE)
    elif draw["word_order"] == "side_inside" and draw["caption_wording"] in ("short", "in_out"):
        draw.effective("word_order", "group_side")
    width = len(cols)
    caption_rows = {"1": 1, "2": 2, "3-numbers": 2, "3-period": 3, "4": 3}[depth]
    rows: list[list[Cell]] = [[None] * width for _ in range(caption_rows)]
    for c, col in enumerate(cols):
        if col.label is not None:
            rows[0][c] = text(col.label)
        elif col.group is not None:
            side = sides[col.side or 0]
            group = groups[col.group]
            if col.role == "corr":
                sub: str = col.extra or ""
            elif col.role == "cur":
                sub = text(f"{side} в валюте")
            else:
                sub = text(side) if caption_rows > 1 else text(compose(group, side))
            if caption_rows == 1 and col.role in ("corr",):
                rows[0][c] = sub
            elif caption_rows == 1 and col.role == "cur":
                rows[0][c] = text(f"{compose(group, side)} в валюте")
            elif caption_rows == 1:
                rows[0][c] = sub
            else:
                rows[-1][c] = sub
    merges: list[tuple[int, int, int, int]] = []
    if caption_rows > 1:
        for group_index in range(3):
            block = [c for c, col in enumerate(cols) if col.group == group_index]
            c0, c1 = block[0], block[-1]
            caption = groups[group_index]
            if caption_rows == 2:
                rows[0][c0] = text(caption)
                merges.append((0, c0, 0, c1))
            else:
                head, _, rest = caption.partition(" ")
                rows[0][c0] = text(head)
                rows[1][c0] = text(rest) if rest else None
                merges += [(0, c0, 0, c1), (1, c0, 1, c1)]
        for c, col in enumerate(cols):
            if col.label is not None:
                merges.append((0, c, caption_rows - 1, c))
    if depth in ("3-numbers", "4"):
        rows.append(
            [float(k + 1) if cols[k].role not in ("level", "gap") else None for k in range(width)]
        )
    indices: list[int] = []
    base = len(sheet.rows)
    for row in rows:
        if level_col:
            row[0] = 0.0
        indices.append(sheet.add(row))
    for r0, c0, r1, c1 in merges:
        sheet.merge(base + r0, c0, base + r1, c1)
    return indices


# --- the sheet ----------------------------------------------------------------------------


def osv_layout(seed: int, index: int, name: str, fixed: Mapping[str, Any] | None = None) -> Layout:
    draw = Draw(seed, index, OSV_AXES, fixed)
    if draw["form"] == "erp":
        erp.not_applicable(draw, (a for a in OSV_AXES if a != "form" and a not in erp.ERP_AXES))
        return erp.erp_layout(draw, seed, index, name)
    erp.not_applicable(draw, erp.ERP_AXES)
    rng = random.Random(f"{seed}:{index}:osv-data")  # noqa: S311 - test data
    kk = draw["language"] == "kk"
    if kk:
        kazakh.localise(draw)
    variant = draw["variant"]
    chart = _chart(draw)
    unit_line, thousands, unit_currency = _units(draw)
    hierarchy = draw["hierarchy"]
    if variant == "general":
        draw.effective("kol_names", NOT_APPLICABLE)
        draw.effective("subconto_depth", NOT_APPLICABLE)
        depth = 0
    else:
        depth = draw["subconto_depth"]
        if hierarchy == "codes" and depth == 2:
            # Contracts under a counterparty, with neither outline nor indentation: no reader
            # could know the nesting.
            depth = draw.effective("subconto_depth", 1)
    corr = draw["corr_columns"] == "split"
    corr_pool = (
        ("10", "51", "60", "62", "90")
        if variant == "account"
        else tuple(
            a.code
            for a in chart
            if a.code in ("10", "50", "51", "60", "62", "90", "1030", "3310", "6010")
        )
    )
    debit_codes = sorted(rng.sample(corr_pool, rng.randint(2, 3)))
    credit_codes = sorted(rng.sample(corr_pool, rng.randint(2, 3)))
    codes: Corr = (debit_codes, credit_codes)
    account: ChartAccount | None = None
    if variant == "general":
        nodes = _general_tree(rng, draw, thousands, codes)
    else:
        items = draw["quantity"] != "none" or rng.random() < 0.3
        code = rng.choice(("10", "41") if items else ("60", "62", "76"))
        account = next(a for a in chart if a.code == code)
        nodes = _account_tree(rng, draw, account, depth, thousands, codes)
    if draw["code_name_cells"] == "one":
        draw.effective("code_repr", NOT_APPLICABLE)
        draw.effective("label_order", NOT_APPLICABLE)
    if draw["amount_repr"] == "number_plain" and draw["negatives"] == "parentheses":
        # A number without a format prints its minus sign.
        draw.effective("negatives", "minus")

    sheet = Sheet(rng.choice(("TDSheet", "Лист_1", "ОСВ", "Sheet_1")))
    level_col = draw["level_column"] == "present"
    title_col = {"A": 0, "B": 1, "C": 2}[draw["title_column"]]
    if level_col and title_col == 0:
        title_col = 1
        draw.effective("title_column", "B")

    def line(text: str) -> int:
        row: list[Cell] = [None] * title_col
        row.append(text)
        if level_col:
            row[0] = 0.0
        return sheet.add(row)

    names = (
        kazakh.ORGANISATIONS
        if kk
        else ORGANISATIONS_BY
        if draw["chart"] == "BY"
        else ORGANISATIONS_RU
    )
    org = rng.choice(names)
    tax_label = "УНП" if draw["chart"] == "BY" else "ИНН"
    tax_id = make_unp(rng) if draw["chart"] == "BY" else make_inn(rng)
    org_form = draw["title_org"]
    with_tax = org_form in ("with_tax", "label_with_tax")
    program = draw["title_program"] if org_form != "none" else NOT_APPLICABLE
    printed_org = {"before": f"1С:Бухгалтерия 8.3 {org}", "after": f"{org}1С:Предприятие 8"}
    printed_org_name = printed_org.get(program, org)
    if org_form == "none":
        draw.effective("title_program", NOT_APPLICABLE)
    org_text = f"{printed_org_name}, {tax_label} {tax_id}" if with_tax else printed_org_name
    period_text, in_title, start, end = _period(draw, rng)
    if kk:
        period_text, in_title = kazakh.period(draw["title_period"], start, end), False
    if kk:
        base_title = rng.choice(kazakh.TITLES)
    elif variant == "general":
        base_title = "Оборотно-сальдовая ведомость"
    else:
        assert account is not None
        base_title = rng.choice(
            (
                f"Оборотно-сальдовая ведомость по счету {account.code}",
                f"Обороты счета {account.code}",
            )
        )
    title = f"{base_title} {period_text}" if in_title else base_title
    if org_form in ("own_line", "with_tax"):
        line(org_text)
    line(title)
    if org_form in ("label", "label_with_tax"):
        line(f"Организация: {org_text}")
    if not in_title:
        line(period_text)
    if draw["filter_line"] == "present":
        line(rng.choice(('Отбор: Счет В группе "60; 62"', "Отбор: Организация Равно " + org)))
    if draw["data_line"] == "present":
        line("Выводимые данные: БУ (данные бухгалтерского учета)")
    if unit_line:
        line(unit_line)
    currency = unit_currency
    if draw["title_currency"] == "line":
        currency = currency or ("BYN" if draw["chart"] == "BY" else "RUB")
        line(f"Валюта: {currency}")
    sheet.blank()

    cols = _columns(draw, variant, codes if corr else None)
    header_rows = _header(sheet, draw, cols, (start, end), rng, level_col)
    col_of = {
        col.role: c
        for c, col in enumerate(cols)
        if col.role in (*FIELDS, "code", "name", "codename", "indicator", "qty", "number", "level")
    }
    text_col = col_of.get("codename", col_of.get("code"))
    if draw["label_order"] == "name_code":
        text_col = col_of["name"]
    assert text_col is not None
    width = len(cols)
    amount_repr = draw["amount_repr"]
    negatives = "minus" if draw["negatives"] == "none" else draw["negatives"]
    zero = draw["zero_repr"]
    indent = "    " if rng.random() < 0.5 else "  "
    code_repr = draw["code_repr"]

    def money_cells(
        row: list[Cell],
        formats: dict[int, str],
        node_values: list[Decimal | None],
        corr_values: dict[str, Decimal],
    ) -> tuple[list[Printed], int]:
        printed: list[Printed] = []
        for c, col in enumerate(cols):
            if col.role in FIELDS:
                value = node_values[FIELDS.index(col.role)]
                p = print_amount(value, amount_repr, negatives=negatives, zero=zero)
            elif col.role == "corr":
                key = f"{'dc'[col.side or 0]}:{col.extra}"
                p = print_amount(
                    corr_values.get(key), amount_repr, negatives=negatives, zero="empty"
                )
            elif col.role == "cur":
                raw = node_values[2 * (col.group or 0) + (col.side or 0)]
                fx = (raw / Decimal("3.2745")).quantize(Decimal("0.01")) if raw else None
                p = print_amount(fx, amount_repr, negatives=negatives, zero="empty")
            else:
                continue
            row[c] = p.cell
            if p.fmt:
                formats[c] = p.fmt
            if col.role in FIELDS:
                printed.append(p)
        penalty = max((p.penalty for p in printed), default=0)
        ordered = sorted(
            zip([c.role for c in cols if c.role in FIELDS], printed, strict=True),
            key=lambda item: FIELDS.index(item[0]),
        )
        return [p for _, p in ordered], penalty

    full: list[dict[str, Any]] = []
    plain: list[dict[str, Any]] = []
    ids: dict[int, int] = {}
    flat = _flatten(nodes)
    quantity = draw["quantity"]
    indicator = draw["indicator"]
    blank_every = rng.randint(4, 8) if draw["blank_rows"] == "body" else 0
    repeat_at = len(flat) // 2 if draw["page_repeat"] == "repeat" and len(flat) > 3 else -1
    if draw["blank_rows"] == "body":
        sheet.blank()
    last_row = header_rows[-1]
    tops = [k for k, (_, _, parent) in enumerate(flat) if parent is None]
    if draw["sections"] != "none" and (account is not None or len(tops) < 4):
        draw.effective("sections", NOT_APPLICABLE)
    starts = (
        {tops[0]: "I", tops[len(tops) // 3]: "II", tops[2 * len(tops) // 3]: "III"}
        if draw["sections"] != "none" and draw["sections"] != NOT_APPLICABLE
        else {}
    )
    section: tuple[str, list[Decimal]] | None = None

    def close_section() -> None:
        nonlocal last_row
        if section is None:
            return
        numeral, sums = section
        row: list[Cell] = [None] * width
        row[text_col] = f"Итого по разделу {numeral}"
        formats: dict[int, str] = {}
        money_cells(row, formats, [v or None for v in sums], {})
        last_row = sheet.add(row, formats=formats)

    for position, (node, level, parent) in enumerate(flat):
        if position in starts:
            close_section()
            numeral = starts[position]
            heading: list[Cell] = [None] * width
            heading[text_col] = f"Раздел {numeral}. {SECTION_NAMES[numeral]}"
            sheet.add(heading)
            section = (numeral, [Decimal(0)] * 6)
        if section is not None and parent is None:
            section = (
                section[0],
                [a + (v or 0) for a, v in zip(section[1], node.values, strict=True)],
            )
        if position == repeat_at:
            sheet.blank()
            for r in header_rows:
                new = sheet.add(list(sheet.rows[r]))
                for r0, c0, r1, c1 in list(sheet.merges):
                    if r0 == r:
                        sheet.merge(new, c0, new + (r1 - r0), c1)
        elif blank_every and position and position % blank_every == 0:
            sheet.blank()
        row: list[Cell] = [None] * width
        formats: dict[int, str] = {}
        code_cost_full = code_cost_plain = 0
        pad = indent * level if hierarchy == "indent" else ""
        if node.kind == "subconto":
            row[col_of.get("codename", col_of.get("name", 0))] = pad + node.name
        elif "codename" in col_of:
            assert node.code is not None
            row[col_of["codename"]] = f"{pad}{node.code} {node.name}"
        else:
            assert node.code is not None
            row[col_of["name"]] = pad + node.name
            row[col_of["code"]] = node.code
            if code_repr != "text" and node.code.isdigit():
                row[col_of["code"]] = int(node.code)
                lost = 3 if len(node.code.lstrip("0") or "0") == 1 else 0
                if code_repr == "number_format":
                    formats[col_of["code"]] = "00"
                    code_cost_plain = lost
                else:
                    code_cost_full = code_cost_plain = lost
        if "level" in col_of:
            row[col_of["level"]] = float(level)
        if "number" in col_of:
            row[col_of["number"]] = len(full) + 1
        if "indicator" in col_of:
            row[col_of["indicator"]] = "БУ"
        if "qty" in col_of and node.qty is not None and not node.children:
            row[col_of["qty"]] = float(node.qty)
        printed, penalty = money_cells(row, formats, node.values, node.corr)
        outline_level = level if hierarchy == "outline" else None
        index = sheet.add(row, formats=formats, level=outline_level)
        last_row = index
        number = len(full) + 1
        ids[id(node)] = number
        base = {
            "id": number,
            "parent": ids[id(parent)] if parent is not None else None,
            "kind": node.kind,
            "level": level,
            "code": node.code if node.kind == "account" else None,
            "name": node.name,
            **{f: p.money for f, p in zip(FIELDS, printed, strict=True)},
            "locator": {"sheet": sheet.name, "row": index + 1},
        }
        full.append({**base, "confidence": 100 - penalty - code_cost_full})
        plain.append({**base, "confidence": 100 - penalty - code_cost_plain})
        if indicator == "bu_nu":
            nu: list[Cell] = [None] * width
            nu_formats: dict[int, str] = {}
            money_cells(nu, nu_formats, node.values, node.corr)
            nu[col_of["indicator"]] = "НУ"
            if "level" in col_of:
                nu[col_of["level"]] = float(level)
            last_row = sheet.add(nu, formats=nu_formats, level=outline_level)
        if quantity.startswith("rows") and node.qty is not None and not node.children:
            q: list[Cell] = [None] * width
            word = QUANTITY_WORDS[quantity]
            if "indicator" in col_of:
                q[col_of["indicator"]] = word
                q_level = outline_level
            else:
                q[text_col] = word
                q_level = level + 1 if hierarchy == "outline" else None
            for f in ("opening_debit", "turnover_debit", "closing_debit"):
                q[col_of[f]] = float(node.qty)
            if "level" in col_of:
                q[col_of["level"]] = float(level)
            last_row = sheet.add(q, level=q_level)
    if draw["quantity"] != "none" and not any(n.qty is not None for n, _, _ in flat):
        draw.effective("quantity", NOT_APPLICABLE)

    close_section()
    totals = [sum((n.values[i] or Decimal(0) for n in nodes), Decimal(0)) for i in range(6)]
    corr_totals: dict[str, Decimal] = {}
    for n in nodes:
        for key, value in n.corr.items():
            corr_totals[key] = corr_totals.get(key, Decimal(0)) + value
    position = draw["totals_position"]
    if position == "name" and "name" not in col_of:
        position = draw.effective("totals_position", "label")
    if position == "missing":
        draw.effective("totals_wording", NOT_APPLICABLE)
    totals_doc: dict[str, Any] | None = None
    if position != "missing":
        row = [None] * width
        formats = {}
        wording = rng.choice(kazakh.TOTALS) if kk else draw["totals_wording"]
        if wording == "Итого по счету":
            # Per-account reports name their account; a general one has none to name.
            wording = (
                f"Итого по счету {account.code}"
                if account
                else draw.effective("totals_wording", "Итого")
            )
        row[col_of["name"] if position == "name" else text_col] = wording
        if "indicator" in col_of:
            row[col_of["indicator"]] = "БУ"
        if "level" in col_of:
            row[col_of["level"]] = 0.0
        printed, _ = money_cells(row, formats, [t or None for t in totals], corr_totals)
        last_row = sheet.add(row, formats=formats)
        totals_doc = {f: p.money for f, p in zip(FIELDS, printed, strict=True)}
        totals_doc["locator"] = {"sheet": sheet.name, "row": last_row + 1}
        if draw["totals_second"] == "expanded":
            # Both sides of each balance grow by what the accounts' netted balances hid; the
            # turnovers stay.
            hidden = (max(totals[0], totals[4], Decimal(3000)) / 3).quantize(Decimal("0.01"))
            expanded: list[Decimal | None] = [
                totals[0] + hidden,
                totals[1] + hidden,
                totals[2] or None,
                totals[3] or None,
                totals[4] + hidden,
                totals[5] + hidden,
            ]
            row = [None] * width
            row[col_of["name"] if position == "name" else text_col] = "Итого развернутое"
            formats = {}
            money_cells(row, formats, expanded, {})
            last_row = sheet.add(row, formats=formats)
    else:
        draw.effective("totals_second", NOT_APPLICABLE)
    # Without an Итого the document ends at its last row; the service rows under it (Кол., НУ)
    # are not part of what was read.
    # A section's subtotal under the last account still belongs to the document.
    row_end = last_row + 1 if totals_doc is not None or starts else full[-1]["locator"]["row"]
    # No Итого to check the rows against: said, as information, not a reason to check by hand.
    warnings: list[dict[str, Any]] = []
    if totals_doc is not None and draw["totals_second"] == "expanded":
        warnings.append(
            {
                "code": "TOTALS_CHOSEN_BY_SUMS",
                "severity": "info",
                "message": "",
                "locator": totals_doc["locator"],
            }
        )
    if totals_doc is None:
        warnings.append(
            {
                "code": "NO_TOTALS",
                "severity": "info",
                "message": "",
                "locator": {"sheet": sheet.name},
            }
        )
    signature = draw["signature"]
    if signature != "none":
        sheet.blank()
        signed = "(қолы)" if kk else "(подпись)"
        if signature == "two":
            sheet.add(["Басшы" if kk else "Руководитель", None, "__________", None, signed])
        if signature in ("chief", "two"):
            chief = "Бас бухгалтер" if kk else "Главный бухгалтер"
            sheet.add([chief, None, "__________", None, signed])
        if signature == "executor":
            who = "Орындаушы" if kk else "Исполнитель"
            sheet.add([f"{who}: Иванова А.А.   {end + datetime.timedelta(days=10):%d.%m.%Y}"])

    fields = {
        "title": title,
        "organisation": None
        if org_form == "none"
        else {"name": org, "tax_id": tax_id if with_tax else None},
        "period": {"from": start.isoformat(), "to": end.isoformat(), "text": period_text},
        "currency": currency,
        "unit": "thousands" if thousands else "units",
    }
    ref = None
    if account is not None:
        ref = {
            "code": account.code,
            "name": next((r["name"] for r in full if r["code"] == account.code), None),
        }

    def document(rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "type": "osv",
            "variant": variant,
            **fields,
            "account": ref,
            "rows": rows,
            "totals": totals_doc,
            "confidence": _confidence(rows),
            "locator": {"sheet": sheet.name, "row": 1, "row_end": row_end},
            "warnings": [dict(w) for w in warnings],
        }

    requires: frozenset[str] = frozenset()
    if depth == 2 and hierarchy == "outline":
        requires = frozenset({OUTLINE_LEVELS})
    chart_name = "unknown" if kk else "BY-50-2011" if draw["chart"] == "BY" else "RU-94N"
    osv = OsvSheet(sheet, document(full), document(plain), variant == "general")
    return _layout(
        name,
        f"axes-osv-{variant}",
        [(osv, chart_name if variant == "general" else "unknown")],
        [],
        requires=requires,
        params=dict(draw.record),
    )
