"""Documents to and from the wire of a MAJOR, derived from the typed values' fields
(``fields.fields_of``): a wire key is the field's name, but for the few ``fields.WIRE_NAMES``
renames, the flat ``Equivalents`` and the fields a later MAJOR added (``ADDED_IN``).

Each class's writer and reader are built once per MAJOR: a 100,000-row trial balance goes
through them row by row.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any, Final

from recognition_contract.documents import (
    Document,
    Statement,
    Totals,
    TrialBalance,
    locator_from_wire,
    locator_to_wire,
    warnings_from,
    warnings_to_wire,
)
from recognition_contract.errors import ContractError, Reason
from recognition_contract.fields import FLAT_SUFFIX, FieldInfo, fields_of
from recognition_contract.schemas import document_errors
from recognition_contract.versions import SchemaVersion

ADDED_IN: Final[dict[str, int]] = {
    # Optional since 2.3: written only where known, so that other lines stay as before, and
    # never in MAJOR 1, whose schema has no room for them.
    "document_kind": 2,
    "counterparty_kpp": 2,
}

TYPES: Final[dict[type, str]] = {TrialBalance: "osv", Statement: "statement"}

Writer = Callable[[Any], dict[str, Any]]
Reader = Callable[[Mapping[str, Any]], Any]


Get = Callable[[Any], Any]


def _or_none(convert: Get) -> Get:
    return lambda value: None if value is None else convert(value)


def _then(get: Get, convert: Get) -> Get:
    return lambda value: convert(get(value))


def _const(value: object) -> Get:
    return lambda _: value


def _through(owner: Get, pick: Get) -> Get:
    """A field of a value that may be None (a flat value's), None with it."""
    return lambda value: None if owner(value) is None else pick(value)


def _get(key: str) -> Get:
    return lambda data: data.get(key)


def _date_to_wire(value: date) -> str:
    return value.isoformat()


def _value_writer(field: FieldInfo, major: int) -> Callable[[Any], Any] | None:
    """How a field's value is written, or None when it is written as it is."""
    if field.kind == "date":
        return _or_none(_date_to_wire)
    if field.kind == "locator":
        return locator_to_wire
    if field.kind == "warnings":
        return lambda warnings: warnings_to_wire(warnings, major)
    if field.kind in ("nested", "items"):
        assert field.of is not None
        write = writer(field.of, major)
        if field.kind == "items":
            return lambda items: [write(item) for item in items]
        return _or_none(write)
    return None


@functools.cache
def writer(cls: type, major: int) -> Writer:
    """The wire form of a value of ``cls`` in MAJOR ``major``, keys in the schema's order."""
    getters: list[tuple[str, Callable[[Any], Any]]] = []
    # Keys left out when their value is None (ADDED_IN, flat values), or always (ADDED_IN
    # in an earlier MAJOR).
    dropped_if_none: list[tuple[str, Callable[[Any], Any]]] = []
    if cls in TYPES:
        getters.append(("type", _const(TYPES[cls])))
    for field in fields_of(cls):
        get = operator.attrgetter(field.name)
        if field.kind == "flat":
            assert field.of is not None
            for sub in fields_of(field.of):
                key = f"{sub.wire}{FLAT_SUFFIX}"
                pick = operator.attrgetter(f"{field.name}.{sub.name}")
                getters.append((key, _through(get, pick)))
                dropped_if_none.append((key, get))
            continue
        if field.name in ADDED_IN:
            if major < ADDED_IN[field.name]:
                continue
            dropped_if_none.append((field.wire, get))
        convert = _value_writer(field, major)
        if convert is not None:
            getters.append((field.wire, _then(get, convert)))
        else:
            getters.append((field.wire, get))

    def write(value: Any) -> dict[str, Any]:
        out = {key: get(value) for key, get in getters}
        for key, get in dropped_if_none:
            if get(value) is None:
                del out[key]
        return out

    return write


def _value_reader(field: FieldInfo, major: int) -> Callable[[Any], Any] | None:
    if field.kind == "date":
        return _or_none(date.fromisoformat)
    if field.kind == "locator":
        return locator_from_wire
    if field.kind == "warnings":
        version = SchemaVersion(major, 0)
        return lambda raw: warnings_from(raw, version)
    if field.kind in ("nested", "items"):
        assert field.of is not None
        read = reader(field.of, major)
        if field.kind == "items":
            return lambda items: tuple(read(item) for item in items)
        return _or_none(read)
    return None


@functools.cache
def reader(cls: type, major: int) -> Reader:
    """A value of ``cls`` from its wire form in MAJOR ``major`` (already checked by its
    schema): a field with a default may be absent, any other must be there."""
    getters: list[tuple[str, Get]] = []
    for field in fields_of(cls):
        if field.kind == "flat":
            assert field.of is not None
            keys = {sub.name: f"{sub.wire}{FLAT_SUFFIX}" for sub in fields_of(field.of)}

            def flat(data: Mapping[str, Any], of: Any = field.of, keys: Any = keys) -> Any:
                if not any(key in data for key in keys.values()):
                    return None
                return of(**{name: data.get(key) for name, key in keys.items()})

            getters.append((field.name, flat))
            continue
        get = _get(field.wire) if field.optional else operator.itemgetter(field.wire)
        convert = _value_reader(field, major)
        if convert is not None:
            getters.append((field.name, _then(get, convert)))
        else:
            getters.append((field.name, get))

    def read(data: Mapping[str, Any]) -> Any:
        return cls(**{name: get(data) for name, get in getters})

    return read


def totals_to_wire(totals: Totals) -> dict[str, Any]:
    return writer(Totals, 2)(totals)


def totals_from_wire(data: Mapping[str, Any]) -> Totals:
    """Totals as the wire (and the core's storage) has them."""
    totals: Totals = reader(Totals, 2)(data)
    return totals


def to_wire(document: Document, major: int) -> dict[str, Any]:
    """The osvDocument / statementDocument of MAJOR ``major``, ready for JSON. Not checked
    here: the result file it goes into is (``result_file_payload``)."""
    cls: type = type(document)
    return writer(cls, major)(document)


def document_of(data: Mapping[str, Any], major: int) -> Document:
    """A document that already matched its MAJOR's schema (inside a checked result file)."""
    cls: type = TrialBalance if data["type"] == "osv" else Statement
    document: Document = reader(cls, major)(data)
    return document


def from_wire(data: object, major: int) -> Document:
    """One osvDocument / statementDocument of MAJOR ``major`` as a typed value; the schema of
    that MAJOR judges it first, and ``ContractError`` says why it does not fit."""
    errors = document_errors(major, data)
    if errors:
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        message = f"document does not match MAJOR {major}: {errors[0]}{more}"
        raise ContractError(Reason.SCHEMA, message, errors=errors)
    assert isinstance(data, Mapping)  # the schema refuses anything else
    return document_of(data, major)
