"""The schema files shipped in ``api/contracts/`` and validators compiled from them once."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from enum import StrEnum
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any, Final

import jsonschema_rs

from recognition_contract.errors import ContractError, Reason
from recognition_contract.versions import SUPPORTED_MAJORS, SchemaVersion, version_of

# One violation can drag the whole offending instance into its message.
_MAX_ERROR_CHARS: Final = 300
_MAX_ERRORS: Final = 20


class Kind(StrEnum):
    """What a payload is; the value is the example-name prefix in ``examples/``."""

    REQUEST = "request"
    RESULT_MESSAGE = "result-message"
    RESULT_FILE = "result"


SCHEMA_FILES: Final[dict[tuple[Kind, int], str]] = {
    (Kind.REQUEST, 1): "recognition-request.schema.json",
    (Kind.REQUEST, 2): "recognition-request.v2.schema.json",
    (Kind.RESULT_MESSAGE, 1): "recognition-result-message.schema.json",
    (Kind.RESULT_MESSAGE, 2): "recognition-result-message.v2.schema.json",
    (Kind.RESULT_FILE, 1): "recognition-result.schema.json",
    (Kind.RESULT_FILE, 2): "recognition-result.v2.schema.json",
}


def contracts_dir() -> Traversable:
    """The packaged copy of ``docs/contracts`` (schemas, examples, README)."""
    return files("recognition_contract").joinpath("api", "contracts")


def schema_file(kind: Kind, major: int) -> str:
    try:
        return SCHEMA_FILES[(kind, major)]
    except KeyError:
        raise ValueError(f"no {kind.value} schema for MAJOR {major}") from None


@cache
def load_schema(kind: Kind, major: int) -> dict[str, Any]:
    text = contracts_dir().joinpath(schema_file(kind, major)).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(kind: Kind, major: int) -> jsonschema_rs.Validator:
    # Formats are annotations only in 2020-12 unless asked; uuid, date and date-time must hold.
    return jsonschema_rs.validator_for(load_schema(kind, major), validate_formats=True)


def _describe(error: jsonschema_rs.ValidationError) -> str:
    where = "/".join(str(part) for part in error.instance_path) or "(root)"
    text = f"{where}: {error.message}"
    if len(text) > _MAX_ERROR_CHARS:
        text = text[: _MAX_ERROR_CHARS - 1] + "…"
    return text


def _unique(messages: Iterator[str]) -> list[str]:
    out: list[str] = []
    for message in messages:
        if message not in out:
            out.append(message)
        if len(out) == _MAX_ERRORS:
            break
    return out


@cache
def _document_validator(major: int) -> jsonschema_rs.Validator:
    # One document on its own, judged by the definitions of the MAJOR's result file schema.
    schema = load_schema(Kind.RESULT_FILE, major)
    document = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/document"}
    return jsonschema_rs.validator_for(document, validate_formats=True)


def document_errors(major: int, payload: object) -> list[str]:
    """Violations of the MAJOR's osvDocument / statementDocument; empty when valid."""
    if major not in SUPPORTED_MAJORS:
        raise ValueError(f"no result file schema for MAJOR {major}")
    return _unique(_describe(e) for e in _document_validator(major).iter_errors(payload))


def schema_errors(kind: Kind, major: int, payload: object) -> list[str]:
    """Violations of the MAJOR's schema, ``path: message`` each; empty when valid."""
    return _unique(_describe(e) for e in _validator(kind, major).iter_errors(payload))


def validate(
    kind: Kind, payload: object, *, majors: Collection[int] = SUPPORTED_MAJORS
) -> SchemaVersion:
    """Check ``payload`` against the schema of the MAJOR it declares.

    Returns the declared version. Raises ``UnknownMajor`` when that MAJOR is not in ``majors``,
    ``MalformedVersion`` when there is no usable version, ``ContractError`` for anything else.
    """
    if not isinstance(payload, dict):
        raise ContractError(Reason.NOT_OBJECT, f"{kind.value} must be a JSON object")
    version = version_of(payload, [m for m in majors if m in SUPPORTED_MAJORS])
    errors = schema_errors(kind, version.major, payload)
    if errors:
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ContractError(
            Reason.SCHEMA,
            f"{kind.value} {version} does not match {schema_file(kind, version.major)}: "
            f"{errors[0]}{more}",
            errors=errors,
        )
    return version


def validate_request(
    payload: object, *, majors: Collection[int] = SUPPORTED_MAJORS
) -> SchemaVersion:
    return validate(Kind.REQUEST, payload, majors=majors)


def validate_envelope(
    payload: object, *, majors: Collection[int] = SUPPORTED_MAJORS
) -> SchemaVersion:
    return validate(Kind.RESULT_MESSAGE, payload, majors=majors)


def validate_result_file(
    payload: object, *, majors: Collection[int] = SUPPORTED_MAJORS
) -> SchemaVersion:
    return validate(Kind.RESULT_FILE, payload, majors=majors)
