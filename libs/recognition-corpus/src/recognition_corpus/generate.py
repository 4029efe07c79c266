"""The corpus: every layout family of DOMAIN.md in many deterministic variants."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from recognition_corpus.data import BY_ACCOUNTS, RU_ACCOUNTS, ChartAccount
from recognition_corpus.layout import OUTLINE_LEVELS, Expected, Layout, Sheet, shift_columns
from recognition_corpus.osv import OsvSheet, OsvStyle, account_osv, general_osv
from recognition_corpus.statement import StatementSheet, StatementStyle, statement

AMOUNT_STYLES = ("text_nbsp", "text_nnbsp", "text_space")
PERIODS = ("quarter", "month", "range", "dates")


def _account(chart: tuple[ChartAccount, ...], code: str) -> ChartAccount:
    return next(a for a in chart if a.code == code)


def _status(documents: list[dict[str, Any]], warnings: list[dict[str, Any]]) -> str:
    flagged = any(w["severity"] != "info" for w in warnings) or any(
        w["severity"] != "info" for d in documents for w in d["warnings"]
    )
    return "needs_check" if flagged else "done"


def _chart_of(osv: list[tuple[OsvSheet, str]]) -> str:
    known = {chart for sheet, chart in osv if sheet.chart_signal}
    return known.pop() if len(known) == 1 else "unknown"


def _layout(
    name: str,
    family: str,
    osv: list[tuple[OsvSheet, str]],
    statements: list[StatementSheet],
    *,
    extra_sheets: list[Sheet] = (),  # type: ignore[assignment]
    order: list[str] | None = None,
    requires: frozenset[str] = frozenset(),
    params: dict[str, Any] | None = None,
) -> Layout:
    sheets: list[Sheet] = (
        [s.sheet for s, _ in osv] + [s.sheet for s in statements] + list(extra_sheets)
    )
    if order is not None:
        by_name = {s.name: s for s in sheets}
        sheets = [by_name[n] for n in order]
    file_warnings = [
        {"code": "SHEET_SKIPPED", "severity": "info", "message": "", "locator": {"sheet": s.name}}
        for s in sheets
        if s in list(extra_sheets)
    ]
    position = {s.name: i for i, s in enumerate(sheets)}

    def expected(full: bool) -> Expected:
        docs: list[tuple[str, dict[str, Any]]] = [
            (s.sheet.name, s.full if full else s.plain) for s, _ in osv
        ] + [(s.sheet.name, s.document) for s in statements]
        docs.sort(key=lambda item: position[item[0]])
        documents = [d for _, d in docs]
        return Expected(_status(documents, file_warnings), _chart_of(osv), documents, file_warnings)

    return Layout(name, family, sheets, expected(True), expected(False), requires, params or {})


def _failed(name: str, family: str, sheets: list[Sheet]) -> Layout:
    expected = Expected("error", "unknown", [], [], error="RECOGNITION_FAILED")
    return Layout(name, family, sheets, expected, expected)


def _osv_style(rng: random.Random, **fixed: Any) -> OsvStyle:
    style = OsvStyle(
        program=rng.choice(("bp", "erp", "upp")),
        chart=rng.choice(("BY", "RU")),
        numeric_codes=rng.random() < 0.7,
        outline=rng.random() < 0.8,
        data_line=rng.random() < 0.5,
        period=rng.choice(PERIODS),
        org_tax=rng.random() < 0.6,
        signature=rng.random() < 0.6,
        accounts=rng.randint(6, 16),
        depth=rng.choice((0, 1, 1, 2)),
        postings=rng.randint(5, 40),
    )
    return replace(style, **fixed)


def _general(name: str, family: str, rng: random.Random, **fixed: Any) -> Layout:
    style = _osv_style(rng, **fixed)
    sheet = general_osv(rng, style)
    if rng.random() < 0.25:
        shift_columns(sheet.sheet, [sheet.full, sheet.plain], rng.randint(1, 2))
    chart = "BY-50-2011" if style.chart == "BY" else "RU-94N"
    return _layout(name, family, [(sheet, chart)], [], params={"style": repr(style)})


def _per_account(name: str, family: str, rng: random.Random, **fixed: Any) -> Layout:
    nested = fixed.pop("nested", False)
    corr = fixed.pop("corr", False)
    title_kind = fixed.pop("title_kind", rng.choice(("osv", "osv", "turnovers", "analysis")))
    style = _osv_style(rng, **fixed)
    if nested:
        style = replace(style, outline=True)
    chart = BY_ACCOUNTS if style.chart == "BY" else RU_ACCOUNTS
    account = _account(chart, rng.choice(("60", "62", "76")))
    sheet = account_osv(rng, style, account, title_kind=title_kind, nested=nested, corr=corr)
    requires = frozenset({OUTLINE_LEVELS}) if nested else frozenset()
    return _layout(
        name, family, [(sheet, "unknown")], [], requires=requires, params={"style": repr(style)}
    )


def _multi(name: str, family: str, rng: random.Random) -> Layout:
    style = _osv_style(rng)
    chart = BY_ACCOUNTS if style.chart == "BY" else RU_ACCOUNTS
    general = general_osv(rng, style, sheet_name="ОСВ")
    org_fields = general.full["organisation"]
    org = (org_fields["name"], org_fields["tax_id"])
    start = _date(general.full["period"]["from"])
    sheets = [(general, "BY-50-2011" if style.chart == "BY" else "RU-94N")]
    for code in ("60", "62"):
        sheets.append(
            (
                account_osv(
                    rng,
                    style,
                    _account(chart, code),
                    sheet_name=f"ОСВ {code}",
                    start=start,
                    org=org,
                ),
                "unknown",
            )
        )
    extras: list[Sheet] = []
    if rng.random() < 0.5:
        params = Sheet("Параметры")
        params.add(["Параметры отчета"])
        params.add(["Счет:", "все"])
        params.add(["Сформирован:", "1С:Бухгалтерия 8.3"])
        extras.append(params)
    return _layout(name, family, sheets, [], extra_sheets=extras)


def _date(text: str) -> Any:
    import datetime

    return datetime.date.fromisoformat(text)


def _statement(name: str, family: str, rng: random.Random, **fixed: Any) -> Layout:
    style = StatementStyle(
        columns=fixed.pop("columns", rng.choice(("prior", "belarusbank", "signed"))),
        dates=rng.choice(("date", "date", "text")),
        amounts=rng.choice(("number", "number", *AMOUNT_STYLES)),
        head=rng.choice(("one", "split")),
        title_account=rng.random() < 0.5,
        totals_row=rng.random() < 0.7,
        lines=rng.randint(3, 25),
    )
    style = replace(style, **fixed)
    sheet = statement(rng, style)
    if rng.random() < 0.25:
        shift_columns(sheet.sheet, [sheet.document], 1)
    return _layout(name, family, [], [sheet], params={"style": repr(style)})


def _no_table(name: str, family: str, rng: random.Random) -> Layout:
    sheet = Sheet("Лист1")
    sheet.add(["Справка о задолженности"])
    sheet.add(["Организация:", rng.choice(("ООО «Промтехснаб»", "ООО «Вектор-Снаб»"))])
    sheet.add(["Сумма задолженности по состоянию на 01.04.2025 составляет", None, 12500.5])
    sheet.add(["Главный бухгалтер", None, "(подпись)"])
    return _failed(name, family, [sheet])


def _empty(name: str, family: str, rng: random.Random) -> Layout:
    return _failed(name, family, [Sheet("Лист1")])


Factory = Callable[[str, str, random.Random], Layout]

FAMILIES: dict[str, Factory] = {
    "osv-general-bp": lambda n, f, r: _general(n, f, r, program="bp"),
    "osv-general-erp": lambda n, f, r: _general(n, f, r, program="erp", data_line=True),
    "osv-general-upp": lambda n, f, r: _general(n, f, r, program="upp"),
    "osv-general-no-data-line": lambda n, f, r: _general(n, f, r, data_line=False),
    "osv-general-one-column": lambda n, f, r: _general(n, f, r, one_column=True),
    "osv-by": lambda n, f, r: _general(n, f, r, chart="BY"),
    "osv-ru": lambda n, f, r: _general(n, f, r, chart="RU"),
    "osv-dated-captions": lambda n, f, r: _general(n, f, r, captions="dated"),
    "osv-no-chart-signal": lambda n, f, r: _general(n, f, r, distinct=False),
    "osv-thousands": lambda n, f, r: _general(n, f, r, thousands=True),
    "osv-text-amounts": lambda n, f, r: _general(
        n, f, r, program="hand", amounts=r.choice(AMOUNT_STYLES), numeric_codes=False, outline=False
    ),
    "osv-quantity-indicator": lambda n, f, r: _general(n, f, r, quantity="indicator", depth=1),
    "osv-broken-totals": lambda n, f, r: _general(n, f, r, broken="totals"),
    "osv-broken-row": lambda n, f, r: _general(n, f, r, broken="row", depth=1, accounts=14),
    "osv-account": lambda n, f, r: _per_account(n, f, r),
    "osv-account-quantity-rows": lambda n, f, r: _per_account(n, f, r, quantity="rows"),
    "osv-account-correspondent": lambda n, f, r: _per_account(n, f, r, corr=True),
    "osv-account-nested": lambda n, f, r: _per_account(n, f, r, nested=True),
    "workbook-multisheet": _multi,
    "statement-prior": lambda n, f, r: _statement(n, f, r, columns="prior"),
    "statement-belarusbank": lambda n, f, r: _statement(n, f, r, columns="belarusbank"),
    "statement-two-row-header": lambda n, f, r: _statement(n, f, r, columns="tworow"),
    "statement-signed-amount": lambda n, f, r: _statement(n, f, r, columns="signed"),
    "statement-currency": lambda n, f, r: _statement(
        n, f, r, columns="currency", currency=r.choice(("USD", "EUR", "RUB"))
    ),
    "statement-broken-balance": lambda n, f, r: _statement(n, f, r, broken="balance"),
    "statement-broken-unp": lambda n, f, r: _statement(n, f, r, broken="unp"),
    "no-table": _no_table,
    "empty-workbook": _empty,
}


def generate(seed: int = 0, per_family: int = 8, families: list[str] | None = None) -> list[Layout]:
    """``per_family`` variants of every family (or of the named ones), the same for a seed."""
    layouts: list[Layout] = []
    for family in families or list(FAMILIES):
        for k in range(per_family):
            rng = random.Random(f"{seed}:{family}:{k}")  # noqa: S311 - test data
            layouts.append(FAMILIES[family](f"{family}-{seed}-{k:03d}", family, rng))
    return layouts
