"""Bytes on the wire <-> JSON objects, strictly: UTF-8 only, one object, no duplicate keys."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from recognition_contract.errors import ContractError, Reason

# NATS refuses messages over its max_payload (1 MiB by default) anyway.
MAX_MESSAGE_BYTES: Final = 1024 * 1024
# A workbook of many sheets yields a few MiB of JSON; far more means something is wrong.
MAX_RESULT_FILE_BYTES: Final = 64 * 1024 * 1024


class _DuplicateKey(ValueError):
    pass


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Two readers could keep different copies of a duplicated key; refuse instead of guessing.
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"duplicate key {key!r:.60}")
            seen.add(key)
    return obj


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode_json(data: bytes | bytearray | memoryview, *, max_bytes: int) -> dict[str, Any]:
    """Decode one JSON object, or raise ``ContractError`` saying why it is not one."""
    size = len(data) if not isinstance(data, memoryview) else data.nbytes
    if size > max_bytes:
        raise ContractError(Reason.TOO_LARGE, f"payload of {size} bytes exceeds {max_bytes}")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ContractError(Reason.NOT_UTF8, f"payload is not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(
            text, object_pairs_hook=_object_without_duplicates, parse_constant=_reject_constant
        )
    except RecursionError:
        raise ContractError(Reason.NOT_JSON, "payload is nested too deeply") from None
    except ValueError as exc:
        raise ContractError(Reason.NOT_JSON, f"payload is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ContractError(
            Reason.NOT_OBJECT, f"payload must be a JSON object, got {type(value).__name__}"
        )
    # An escape may name half of a surrogate pair alone: valid JSON, but no UTF-8 text, so
    # nothing downstream (a schema check, a database, a log) could take it.
    if _SURROGATE_ESCAPE.search(text) is not None and _has_lone_surrogate(value):
        raise ContractError(Reason.NOT_UTF8, "payload has an unpaired surrogate escape")
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(item) for item in value)
    return False


def encode_json(value: Mapping[str, Any]) -> bytes:
    """Compact UTF-8 JSON, Cyrillic as is (not \\u-escaped)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
