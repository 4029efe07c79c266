"""What each field of a typed document is, read once from the dataclasses' declarations, so
that every form a document takes (the wire of each MAJOR here, the core's tables there) is
derived from the fields instead of being written out field by field in each place.

A field's kind comes from its declared type: ``Money`` amounts, ``float`` confidences,
``date``s, ``Locator``s, nested values (a period, an organisation, totals), tuples of items
(rows, transactions) or of warnings, and the one value a line writes flat (``Equivalents``,
as ``debit_equivalent`` / ``credit_equivalent``). Everything else passes as it is.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass
from datetime import date
from typing import Any, Final, Literal

from recognition_contract.documents import Equivalents, Locator, Money, Period, Warning

FieldKind = Literal[
    "plain", "money", "float", "date", "locator", "nested", "items", "warnings", "flat"
]

WIRE_NAMES: Final[dict[tuple[type, str], str]] = {
    # The schema's names where the typed value's differ: ``from`` is a Python keyword.
    (Period, "start"): "from",
    (Period, "end"): "to",
}

FLAT_SUFFIX: Final = "_equivalent"
"""A flat value's fields are written beside its owner's: ``debit`` -> ``debit_equivalent``."""


@dataclass(frozen=True, slots=True)
class FieldInfo:
    name: str
    wire: str
    kind: FieldKind
    of: type | None
    """The class of a nested or flat value, or of each item of a tuple."""
    optional: bool
    """It has a default: a wire without it means the default (``None``)."""


def _kind(hint: Any) -> tuple[FieldKind, type | None]:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        hint, origin = args[0], typing.get_origin(args[0])
    if hint is Money:
        return "money", None
    if hint is float:
        return "float", None
    if hint is date:
        return "date", None
    if hint is Locator:
        return "locator", None
    if hint is Equivalents:
        return "flat", Equivalents
    if origin is tuple:
        item = typing.get_args(hint)[0]
        return ("warnings", None) if item is Warning else ("items", item)
    if isinstance(hint, type) and (dataclasses.is_dataclass(hint) or hasattr(hint, "_fields")):
        return "nested", hint
    return "plain", None


@functools.cache
def fields_of(cls: type) -> tuple[FieldInfo, ...]:
    """The fields of a document's dataclass (or named tuple), in declaration order, which is
    the order of the schema."""
    hints = typing.get_type_hints(cls)
    if dataclasses.is_dataclass(cls):
        declared = [(f.name, f.default is not dataclasses.MISSING) for f in dataclasses.fields(cls)]
    else:  # a NamedTuple
        defaults: dict[str, Any] = getattr(cls, "_field_defaults", {})
        declared = [(name, name in defaults) for name in getattr(cls, "_fields", ())]
    out = []
    for name, optional in declared:
        kind, of = _kind(hints[name])
        out.append(FieldInfo(name, WIRE_NAMES.get((cls, name), name), kind, of, optional))
    return tuple(out)


def names_of(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields_of(cls))


def empty(cls: type) -> Any:
    """A value of ``cls`` with every field ``None``: the shape a correction fills a part in
    that was not read at all (a period, an organisation)."""
    return cls(**dict.fromkeys(names_of(cls)))
