"""The base of every JSON body the API takes.

Each text in a body, at any depth (the keys and values of a free-form object such as a
warning's locator included), must be text PostgreSQL can store: a NUL or a lone surrogate is
a 422 here, never a 500 from the database. One check for every field, so a new field cannot
forget it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, model_validator

from arm_core.api.errors import storable

UNSTORABLE_TEXT = "текст содержит недопустимые символы (NUL или одиночный суррогат)"


def texts(value: Any) -> Iterator[str]:
    """Every string in a decoded JSON value, keys included; iterative, so that no nesting
    depth a body can reach raises RecursionError."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)


class RequestBody(BaseModel):
    @model_validator(mode="before")
    @classmethod
    def _storable_texts(cls, data: Any) -> Any:
        if not all(storable(text) for text in texts(data)):
            raise ValueError(UNSTORABLE_TEXT)
        return data
