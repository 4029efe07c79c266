"""Documents as the tables an export writes: one per document (a trial balance as account,
name, level and the six amounts with its totals; a statement as its header, balances and
operations) and one of every warning with where it points."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from arm_core.denomination import denomination
from arm_core.review.model import ReviewedDocument
from arm_core.titles import document_title
from recognition_contract import MONEY_FIELDS, Locator, Period, Statement, TrialBalance

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
    documents: list[ReviewedDocument]


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


def _period(period: Period | None) -> Cell:
    if period is None:
        return None
    if period.start and period.end:
        return f"{_date(period.start)} – {_date(period.end)}"
    return period.text


def _date(value: dt.date) -> str:
    return value.strftime("%d.%m.%Y")


def review(doc: ReviewedDocument) -> str:
    """Where the analyst's review of the document stands, in words for the sheet."""
    for mark, words in (
        (doc.confirmed, "подтверждён"),
        (doc.reopened, "открыт снова исправлением"),
    ):
        if mark:
            return f"{words}: {mark.by}, {mark.at.strftime('%d.%m.%Y %H:%M')}"
    return "не подтверждён"


def _osv(name: str, reviewed: ReviewedDocument, doc: TrialBalance, file_name: str) -> Table:
    organisation, account = doc.organisation, doc.account
    about: list[tuple[str, Cell]] = [
        ("Файл", file_name),
        ("Документ", document_title(doc)),
        ("Вид", VARIANTS.get(doc.variant, doc.variant)),
        ("Организация", organisation.name if organisation else None),
        ("УНП/ИНН", organisation.tax_id if organisation else None),
        ("Период", _period(doc.period)),
        ("Единицы сумм", denomination(doc.unit, doc.currency)),
        ("Проверка аналитиком", review(reviewed)),
    ]
    if account:
        about.append(("Счёт", " ".join(v for v in (account.code, account.name) if v)))
    rows: list[list[Cell]] = [
        [row.code, row.name, row.level, *(money(getattr(row, key)) for key in MONEY_FIELDS)]
        for row in doc.rows
    ]
    totals = doc.totals
    return Table(
        name=name,
        about=about,
        columns=OSV_COLUMNS,
        rows=rows,
        money=frozenset(range(3, 9)),
        totals=(
            ["Итого", None, None, *(money(getattr(totals, key)) for key in MONEY_FIELDS)]
            if totals
            else None
        ),
    )


def _statement(name: str, reviewed: ReviewedDocument, doc: Statement, file_name: str) -> Table:
    header = doc.header
    about: list[tuple[str, Cell]] = [
        ("Файл", file_name),
        ("Документ", document_title(doc)),
        ("Банк", header.bank_name),
        ("БИК", header.bank_bic),
        ("Счёт", header.account),
        ("Единицы сумм", denomination("units", header.currency)),
        ("Владелец счёта", header.holder_name),
        ("УНП/ИНН", header.holder_tax_id),
        ("Период", _period(header.period)),
        ("Остаток на начало", money(header.opening_balance)),
        ("Остаток на конец", money(header.closing_balance)),
        ("Проверка аналитиком", review(reviewed)),
    ]
    rows: list[list[Cell]] = [
        [
            line.date,
            line.number,
            line.document_kind,
            money(line.debit),
            money(line.credit),
            line.counterparty_name,
            line.counterparty_tax_id,
            line.counterparty_kpp,
            line.counterparty_account,
            line.counterparty_bank,
            line.counterparty_bank_bic,
            line.purpose,
        ]
        for line in doc.transactions
    ]
    debit, credit = money(header.total_debit), money(header.total_credit)
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
        for doc_no, reviewed in enumerate(source.documents, start=1):
            doc = reviewed.document
            kind = "ОСВ" if isinstance(doc, TrialBalance) else "Выписка"
            name = f"{file_no}.{doc_no} {kind}" if several else f"{doc_no} {kind}"
            if isinstance(doc, TrialBalance):
                out.tables.append(_osv(name, reviewed, doc, source.file_name))
            else:
                out.tables.append(_statement(name, reviewed, doc, source.file_name))
            for layer in reviewed.corrections:
                out.corrections.rows.append(
                    [
                        source.file_name,
                        name,
                        PARTS.get(layer.target, layer.target),
                        layer.position,
                        layer.field,
                        layer.recognised,
                        layer.corrected,
                        layer.actor,
                        layer.at.strftime("%d.%m.%Y %H:%M UTC"),
                        layer.reason,
                    ]
                )
            for item in doc.warnings:
                locator = item.locator or Locator()
                out.warnings.rows.append(
                    [
                        source.file_name,
                        name,
                        item.code,
                        item.severity.value,
                        item.message,
                        locator.sheet,
                        locator.row,
                        locator.page,
                    ]
                )
    return out
