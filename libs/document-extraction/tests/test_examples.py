"""The contract's own example documents, laid out as a 1C export would print them, come back
from extraction field for field (confidence aside: the examples' numbers are illustrative)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from document_extraction import Grid, extract
from recognition_contract import contracts_dir, to_wire

CAPTIONS = [
    "Сальдо на начало периода",
    None,
    "Обороты за период",
    None,
    "Сальдо на конец периода",
    None,
]
SIDES = ["Дебет", "Кредит"] * 3
MONEY = ("opening_debit", "opening_credit", "turnover_debit", "turnover_credit",
         "closing_debit", "closing_credit")  # fmt: skip


def _example(name: str) -> dict[str, Any]:
    return json.loads((contracts_dir() / "examples" / name).read_text(encoding="utf-8"))


def _amount(value: str | None) -> float | None:
    return None if value is None else float(value)


def _comparable(value: Any, key: str = "") -> Any:
    """Money as numbers (the examples print 1250.4, extraction 1250.40), confidence dropped,
    warning messages dropped (free text)."""
    if isinstance(value, dict):
        return {
            k: _comparable(v, k)
            for k, v in value.items()
            if k != "confidence" and not (k == "message" and "code" in value)
        }
    if isinstance(value, list):
        return [_comparable(v, key) for v in value]
    if isinstance(value, str) and (key in MONEY or key.endswith(("_balance", "debit", "credit"))):
        return Decimal(value)
    return value


def _rows_of(
    document: dict[str, Any], *, numeric_codes: bool
) -> tuple[list[list[Any]], dict[Any, str]]:
    rows: list[list[Any]] = []
    formats: dict[tuple[int, int], str] = {}
    for row in document["rows"]:
        label: Any = row["code"] if row["kind"] == "account" else row["name"]
        if numeric_codes and row["kind"] == "account" and row["code"].isdigit():
            formats[(row["locator"]["row"] - 1, 0)] = "00"
            label = float(row["code"])
        name = row["name"] if row["kind"] == "account" else None
        rows.append([label, name, *(_amount(row[f]) for f in MONEY)])
    return rows, formats


def test_general_osv_example() -> None:
    result = _example("result-2.0-done-osv-general.json")
    document = result["documents"][0]
    body, formats = _rows_of(document, numeric_codes=True)
    totals = document["totals"]
    rows: list[list[Any]] = [
        ["ООО «Промтехснаб», УНП 192745313"],
        ["Оборотно-сальдовая ведомость"],
        ["Период: 1 квартал 2025 г."],
        ["Выводимые данные: БУ (данные бухгалтерского учета)"],
        ["Валюта: BYN"],
        [],
        ["Счет", "Наименование счета", *CAPTIONS],
        [None, None, *SIDES],
        *body,
        ["Итого", None, *(_amount(totals[f]) for f in MONEY)],
        [],
        ["Главный бухгалтер", None, "________", None, "(подпись)"],
    ]
    outline = {r["locator"]["row"] - 1: r["level"] for r in document["rows"] if r["level"]}
    extraction = extract([Grid("TDSheet", rows, outline_levels=outline, number_formats=formats)])
    assert extraction.status == result["status"]
    assert extraction.group_schema == result["group_schema"]
    assert _comparable([to_wire(d, 2) for d in extraction.documents]) == _comparable(
        result["documents"]
    )
    assert all(row.confidence == 100 for row in extraction.documents[0].rows)


def test_subconto_osv_example_without_outline_levels() -> None:
    result = _example("result-2.0-done-osv-subconto.json")
    document = result["documents"][0]
    body, _ = _rows_of(document, numeric_codes=False)
    # One column: the subconto or the account code and name, as 1C prints "по субконто".
    body = [[r[0] if r[1] is None else f"{r[0]} {r[1]}", *r[2:]] for r in body]
    totals = document["totals"]
    rows: list[list[Any]] = [
        ["ООО «Вектор-Снаб», ИНН 6658142076"],
        ["Оборотно-сальдовая ведомость по субконто Контрагенты"],
        ["Период: 1 квартал 2025 г."],
        ["Единица измерения: тыс. росс. руб."],
        ["Выводимые данные: БУ (данные бухгалтерского учета)"],
        [],
        [],
        ["Субконто", *CAPTIONS],
        [None, *SIDES],
        *body,
        ["Итого", *(_amount(totals[f]) for f in MONEY)],
    ]
    extraction = extract([Grid("TDSheet", rows)])
    assert extraction.status == "done"
    assert _comparable([to_wire(d, 2) for d in extraction.documents]) == _comparable(
        result["documents"]
    )


def test_statement_example_with_a_wrong_unp() -> None:
    result = _example("result-2.1-needs_check-osv-account-and-statement.json")
    document = result["documents"][1]
    header = document["header"]
    table = []
    for t in document["transactions"]:
        table.append([
            "{2}.{1}.{0}".format(*t["date"].split("-")), t["number"], _amount(t["debit"]),
            _amount(t["credit"]), t["counterparty_name"], t["counterparty_tax_id"],
            t["counterparty_account"], t["counterparty_bank"], t["counterparty_bank_bic"],
            t["purpose"],
        ])  # fmt: skip
    rows: list[list[Any]] = [
        ["Банк: ОАО «Приорбанк», БИК PJCBBY2X"],
        ["Выписка по счету BY66PJCB30120612341010000933 за период с 01.03.2025 по 31.03.2025"],
        ["Валюта: BYN"],
        ["Клиент: ООО «Промтехснаб», УНП 192745313"],
        ["Входящий остаток: 48 250,75"],
        [],
        [],
        [],
        [
            "Дата",
            "№ док",
            "Дебет",
            "Кредит",
            "Корреспондент",
            "УНП",
            "Счет корреспондента",
            "Банк корреспондента",
            "БИК",
            "Назначение платежа",
        ],
        *table,
        ["Итого", None, _amount(header["total_debit"]), _amount(header["total_credit"])],
        ["Исходящий остаток: 64 087,85"],
    ]
    extraction = extract([Grid("Выписка", rows)])
    assert extraction.status == "needs_check"
    assert _comparable(to_wire(extraction.documents[0], 2)) == _comparable(document)
