"""Documents as the tables an export writes: one per document (a trial balance as account,
name, level and the six amounts with its totals; a statement as its header, balances and
operations) and one of every warning with where it points."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from arm_core.db.tables import ROW_MONEY
from arm_core.denomination import denomination
from arm_core.titles import document_title

Cell = str | int | Decimal | dt.date | None

OSV_COLUMNS = (
    "Счёт",
    "Наименование",
    "Уровень",
    "Сальдо на начало, Дт",
    "Сальдо на начало, Кт",
    "Обороты, Дт",
    "Обороты, Кт",
    "Сальдо на конец, Дт",
    "Сальдо на конец, Кт",
)
STATEMENT_COLUMNS = (
    "Дата",
    "Номер",
    "Вид документа",
    "Дебет",
    "Кредит",
    "Контрагент",
    "УНП/ИНН контрагента",
    "КПП контрагента",
    "Счёт контрагента",
    "Банк контрагента",
    "БИК банка",
    "Назначение платежа",
)
WARNING_COLUMNS = (
    "Файл",
    "Лист выгрузки",
    "Код",
    "Важность",
    "Сообщение",
    "Лист",
    "Строка",
    "Страница",
)
CORRECTION_COLUMNS = (
    "Файл",
    "Лист выгрузки",
    "Часть",
    "Номер строки",
    "Поле",
    "Распознано",
    "Исправлено",
    "Кто",
    "Когда",
    "Почему",
)
PARTS = {"header": "заголовок", "row": "строка", "transaction": "операция"}
VARIANTS = {"general": "общая", "account": "по счёту", "subconto": "по субконто"}


@dataclass
class Table:
    name: str
    # Label and value lines above the columns: the document's header.
    about: list[tuple[str, Cell]]
    columns: tuple[str, ...]
    rows: list[list[Cell]]
    # Indexes of the columns holding money (written as numbers with two decimals).
    money: frozenset[int] = frozenset()
    totals: list[Cell] | None = None


@dataclass
class Source:
    """One file's documents, as ``reviewed_documents`` gives them."""

    file_name: str
    documents: list[dict[str, Any]]


@dataclass
class Export:
    tables: list[Table] = field(default_factory=list)
    warnings: Table = field(default_factory=lambda: Table("Замечания", [], WARNING_COLUMNS, []))
    # Every correction applied above, with the value recognised: nothing changed silently.
    corrections: Table = field(
        default_factory=lambda: Table("Исправления", [], CORRECTION_COLUMNS, [])
    )

    def all_tables(self) -> list[Table]:
        extra = [self.corrections] if self.corrections.rows else []
        return [*self.tables, self.warnings, *extra]


def money(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _period(period: dict[str, Any] | None) -> Cell:
    if not period:
        return None
    start, end = period.get("from"), period.get("to")
    if start and end:
        return f"{_date(start)} – {_date(end)}"
    text: str | None = period.get("text")
    return text


def _date(value: Any) -> str:
    if isinstance(value, str):
        value = dt.date.fromisoformat(value)
    return value.strftime("%d.%m.%Y") if isinstance(value, dt.date) else str(value)


def review(doc: dict[str, Any]) -> str:
    """Where the analyst's review of the document stands, in words for the sheet."""
    for key, words in (("confirmed", "подтверждён"), ("reopened", "открыт снова исправлением")):
        mark = doc.get(key)
        if mark:
            at = mark["at"]
            moment = at.strftime("%d.%m.%Y %H:%M") if isinstance(at, dt.datetime) else str(at)
            return f"{words}: {mark['by']}, {moment}"
    return "не подтверждён"


def _osv(name: str, doc: dict[str, Any], file_name: str) -> Table:
    organisation = doc.get("organisation") or {}
    account = doc.get("account") or {}
    about: list[tuple[str, Cell]] = [
        ("Файл", file_name),
        ("Документ", document_title(doc)),
        ("Вид", VARIANTS.get(doc.get("variant") or "", doc.get("variant"))),
        ("Организация", organisation.get("name")),
        ("УНП/ИНН", organisation.get("tax_id")),
        ("Период", _period(doc.get("period"))),
        ("Единицы сумм", denomination(doc.get("unit"), doc.get("currency"))),
        ("Проверка аналитиком", review(doc)),
    ]
    if account:
        about.append(("Счёт", " ".join(v for v in (account.get("code"), account.get("name")) if v)))
    rows = [
        [row["account"], row["name"], row["level"], *(money(row[key]) for key in ROW_MONEY)]
        for row in doc["rows"]
    ]
    totals = doc.get("totals")
    return Table(
        name=name,
        about=about,
        columns=OSV_COLUMNS,
        rows=rows,
        money=frozenset(range(3, 9)),
        totals=(
            ["Итого", None, None, *(money(totals.get(key)) for key in ROW_MONEY)]
            if totals
            else None
        ),
    )


def _statement(name: str, doc: dict[str, Any], file_name: str) -> Table:
    header = doc.get("header") or {}
    about: list[tuple[str, Cell]] = [
        ("Файл", file_name),
        ("Документ", document_title(doc)),
        ("Банк", header.get("bank_name")),
        ("БИК", header.get("bank_bic")),
        ("Счёт", header.get("account")),
        ("Единицы сумм", denomination("units", header.get("currency"))),
        ("Владелец счёта", header.get("holder_name")),
        ("УНП/ИНН", header.get("holder_tax_id")),
        ("Период", _period(header.get("period"))),
        ("Остаток на начало", money(header.get("opening_balance"))),
        ("Остаток на конец", money(header.get("closing_balance"))),
        ("Проверка аналитиком", review(doc)),
    ]
    rows = [
        [
            line["date"],
            line["number"],
            line.get("document_kind"),
            money(line["debit"]),
            money(line["credit"]),
            line["counterparty_name"],
            line["counterparty_tax_id"],
            line.get("counterparty_kpp"),
            line["counterparty_account"],
            line["counterparty_bank"],
            line["counterparty_bank_bic"],
            line["purpose"],
        ]
        for line in doc["transactions"]
    ]
    debit, credit = money(header.get("total_debit")), money(header.get("total_credit"))
    return Table(
        name=name,
        about=about,
        columns=STATEMENT_COLUMNS,
        rows=rows,
        money=frozenset({2, 3}),
        totals=(
            ["Итого", None, debit, credit, *([None] * 6)]
            if debit is not None or credit is not None
            else None
        ),
    )


def export_of(sources: list[Source]) -> Export:
    """Every document of ``sources`` as a table, named so that names stay unique and short
    (a spreadsheet allows 31 characters); with several files, a name starts with the file's
    number."""
    out = Export()
    several = len(sources) > 1
    for file_no, source in enumerate(sources, start=1):
        for doc_no, doc in enumerate(source.documents, start=1):
            kind = "ОСВ" if doc["kind"] == "osv" else "Выписка"
            name = f"{file_no}.{doc_no} {kind}" if several else f"{doc_no} {kind}"
            build = _osv if doc["kind"] == "osv" else _statement
            out.tables.append(build(name, doc, source.file_name))
            for layer in doc.get("corrections", []):
                out.corrections.rows.append(
                    [
                        source.file_name,
                        name,
                        PARTS.get(layer["target"], layer["target"]),
                        layer["position"],
                        layer["field"],
                        layer["recognised"],
                        layer["corrected"],
                        layer["actor"],
                        layer["at"].strftime("%d.%m.%Y %H:%M UTC"),
                        layer["reason"],
                    ]
                )
            for item in doc["warnings"]:
                locator = item.get("locator") or {}
                out.warnings.rows.append(
                    [
                        source.file_name,
                        name,
                        item.get("code"),
                        item.get("severity"),
                        item.get("message"),
                        locator.get("sheet"),
                        locator.get("row"),
                        locator.get("page"),
                    ]
                )
    return out
