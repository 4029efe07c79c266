"""The columns documents are stored in, derived from the contract's fields
(``recognition_contract.fields_of``), so that writing (COPY) and reading (SELECT) name each
field once: a column is named as its field, but for the renames given here.

Amounts are ``numeric`` (read back as text: numeric(20, 2) prints its two decimals, as the API
shows them, and a 100,000-row trial balance is spared as many conversions), confidences
``numeric``, locators, totals and warnings ``jsonb`` in the contract's 2.x form, a nested value
(a period, an organisation) one column per field (``period_from``), and the equivalents of a
line two (``debit_equivalent``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from psycopg.types.json import Jsonb

from recognition_contract import (
    FieldInfo,
    SchemaVersion,
    StatementHeader,
    Transaction,
    TrialBalance,
    TrialBalanceRow,
    amount,
    fields_of,
    locator_from_wire,
    locator_to_wire,
    totals_from_wire,
    totals_to_wire,
    warnings_from,
    warnings_to_wire,
)
from recognition_contract.fields import FLAT_SUFFIX

ROW_COLUMNS: Final = {"id": "row_id", "parent": "parent_row_id", "code": "account"}
"""A trial balance row's columns named otherwise than its fields."""

_STORED = SchemaVersion(2, 0)

Put = Callable[[Any], object]
Take = Callable[[Any], Any]


def _confidence(value: float) -> Decimal:
    # Through its shortest text, as the number was written in the file (99.9, not 99.90000...).
    return Decimal(str(value))


def _jsonb(convert: Callable[[Any], object]) -> Put:
    return lambda value: None if value is None else Jsonb(convert(value))


# How a value of each kind is written into its column and read back from it.
_CONVERT: Final[dict[str, tuple[Put, Take]]] = {
    "money": (amount, lambda value: value),
    "float": (_confidence, float),
    "locator": (lambda value: Jsonb(locator_to_wire(value)), locator_from_wire),
    "warnings": (
        lambda value: Jsonb(warnings_to_wire(value, 2)),
        lambda value: warnings_from(value, _STORED),
    ),
}
_JSON: Final[dict[str, tuple[Put, Take]]] = {
    # Kept whole, as the wire has it: the totals of a trial balance.
    "totals": (
        _jsonb(totals_to_wire),
        lambda value: None if value is None else totals_from_wire(value),
    ),
}


@dataclass(frozen=True, slots=True)
class _Column:
    name: str
    select: str
    put: Put
    take: Take


@dataclass(frozen=True, slots=True)
class Stored:
    """How the fields of one class are stored: the columns (after ``lead``, the columns the
    caller fills itself), the COPY cells of a value and the value's fields from a row."""

    lead: tuple[str, ...]
    columns: tuple[str, ...]
    select: str
    cells: Callable[[Any], tuple[object, ...]]
    values: Callable[[Mapping[str, Any]], dict[str, Any]]

    def copy(self, table: str) -> str:
        return f"COPY {table} ({', '.join((*self.lead, *self.columns))}) FROM STDIN"


def _plain(name: str, field: FieldInfo) -> _Column:
    put, take = _CONVERT.get(field.kind, (lambda value: value, lambda value: value))
    select = f"{name}::text AS {name}" if field.kind == "money" else name
    return _Column(name, select, put, take)


def _spread(name: str, field: FieldInfo, columns: list[_Column]) -> Callable[[Any], Any]:
    """A nested or flat value as one column per field; read back as None when all are."""
    assert field.of is not None
    of = field.of
    subs = fields_of(of)
    suffix = field.kind == "flat"
    parts = [
        _plain(f"{sub.wire}{FLAT_SUFFIX}" if suffix else f"{name}_{sub.wire}", sub) for sub in subs
    ]
    columns.extend(parts)

    def take(row: Mapping[str, Any]) -> Any:
        values = [part.take(row[part.name]) for part in parts]
        if all(value is None for value in values):
            return None
        return of(**{sub.name: value for sub, value in zip(subs, values, strict=True)})

    return take


def stored(
    cls: type, lead: tuple[str, ...] = (), renamed: Mapping[str, str] | None = None
) -> Stored:
    columns: list[_Column] = []
    # Per field: the cells of its value (one or several columns) and its value from a row.
    puts: list[Callable[[Any], tuple[object, ...]]] = []
    takes: list[tuple[str, Callable[[Mapping[str, Any]], Any]]] = []
    for field in fields_of(cls):
        name = (renamed or {}).get(field.name, field.name)
        if field.kind == "items":
            continue  # rows and transactions have tables of their own
        if field.name in _JSON:
            put, take = _JSON[field.name]
            columns.append(_Column(name, name, put, take))
        elif field.kind in ("nested", "flat"):
            first = len(columns)
            takes.append((field.name, _spread(name, field, columns)))
            parts = columns[first:]
            puts.append(_spread_cells(field.name, parts))
            continue
        else:
            columns.append(_plain(name, field))
        column = columns[-1]
        puts.append(_one_cell(field.name, column.put))
        takes.append((field.name, _one_value(column.name, column.take)))

    def cells(value: Any) -> tuple[object, ...]:
        return tuple(cell for put in puts for cell in put(value))

    def values(row: Mapping[str, Any]) -> dict[str, Any]:
        return {name: take(row) for name, take in takes}

    return Stored(
        lead=lead,
        columns=tuple(column.name for column in columns),
        select=", ".join(column.select for column in columns),
        cells=cells,
        values=values,
    )


def _one_cell(attr: str, put: Put) -> Callable[[Any], tuple[object, ...]]:
    return lambda value: (put(getattr(value, attr)),)


def _one_value(column: str, take: Take) -> Callable[[Mapping[str, Any]], Any]:
    return lambda row: take(row[column])


def _spread_cells(attr: str, parts: list[_Column]) -> Callable[[Any], tuple[object, ...]]:
    subs = [part.put for part in parts]

    def cells(value: Any) -> tuple[object, ...]:
        nested = getattr(value, attr)
        if nested is None:
            return (None,) * len(subs)
        return tuple(put(item) for put, item in zip(subs, _items(nested), strict=True))

    return cells


def _items(value: Any) -> tuple[Any, ...]:
    owner: type = type(value)
    return tuple(getattr(value, field.name) for field in fields_of(owner))


DOCUMENT_LEAD: Final = ("id", "job_id", "file_id", "position", "kind")
DOCUMENTS: Final = stored(TrialBalance, DOCUMENT_LEAD)
"""The ``document`` columns: a trial balance's own fields; a statement fills those its header
has (``store.document_cells``) and leaves the others empty."""
ROWS: Final = stored(TrialBalanceRow, ("document_id", "position"), ROW_COLUMNS)
HEADERS: Final = stored(StatementHeader, ("document_id",))
TRANSACTIONS: Final = stored(Transaction, ("document_id", "position"))
