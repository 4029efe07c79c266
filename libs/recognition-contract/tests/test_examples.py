"""Every example against the schema its name points at, and through the typed API."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from recognition_contract import (
    SCHEMA_FILES,
    SUPPORTED_MAJORS,
    ContractError,
    Example,
    Kind,
    RecognitionRequest,
    ResultEnvelope,
    ResultFile,
    Status,
    TrialBalance,
    contracts_dir,
    dump_envelope,
    dump_request,
    examples,
    parse_envelope,
    parse_example_name,
    parse_request,
    parse_result_file,
    schema_errors,
    validate,
)

EXAMPLES = examples()
VALID = [e for e in EXAMPLES if e.valid]
INVALID = [e for e in EXAMPLES if not e.valid]


def _ids(items: list[Example]) -> list[str]:
    return [e.name for e in items]


PARSERS: dict[Kind, Callable[..., RecognitionRequest | ResultEnvelope | ResultFile]] = {
    Kind.REQUEST: parse_request,
    Kind.RESULT_MESSAGE: parse_envelope,
    Kind.RESULT_FILE: parse_result_file,
}


def test_every_schema_ships_and_declares_2020_12() -> None:
    for (kind, major), name in SCHEMA_FILES.items():
        assert contracts_dir().joinpath(name).is_file(), name
        schema = json.loads(contracts_dir().joinpath(name).read_text("utf-8"))
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"].endswith(f":{major}"), (kind, name)
    assert contracts_dir().joinpath("README.md").is_file()


def test_every_example_follows_the_naming_rule() -> None:
    names = [entry.name for entry in contracts_dir().joinpath("examples").iterdir()]
    assert names, "no examples shipped"
    for name in names:
        parse_example_name(name)


@pytest.mark.parametrize(
    ("name", "kind", "version", "valid"),
    [
        ("request-1.0-tabular.json", Kind.REQUEST, "1.0", True),
        ("result-message-2.0-needs_check.json", Kind.RESULT_MESSAGE, "2.0", True),
        ("result-2.0-done-osv-general.json", Kind.RESULT_FILE, "2.0", True),
        ("result-1.3.json", Kind.RESULT_FILE, "1.3", True),
        ("invalid-result-message-1.0-error-without-error.json", Kind.RESULT_MESSAGE, "1.0", False),
        ("invalid-result-1.0-float-money.json", Kind.RESULT_FILE, "1.0", False),
    ],
)
def test_example_name_rule(name: str, kind: Kind, version: str, valid: bool) -> None:
    example = parse_example_name(name)
    assert (example.kind, str(example.version), example.valid) == (kind, version, valid)


@pytest.mark.parametrize(
    "name", ["request.json", "request-1.json", "response-1.0.json", "result-1.0-x.yaml", "x.json"]
)
def test_names_outside_the_rule_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="naming rule"):
        parse_example_name(name)


def test_examples_cover_every_kind_major_and_status() -> None:
    seen = {(e.kind, e.version.major) for e in VALID}
    assert seen == {(kind, major) for kind in Kind for major in SUPPORTED_MAJORS}
    for major in SUPPORTED_MAJORS:
        statuses = {
            e.load()["status"]
            for e in VALID
            if e.kind is Kind.RESULT_MESSAGE and e.version.major == major
        }
        assert statuses == {s.value for s in Status}, major
        file_statuses = {
            e.load()["status"]
            for e in VALID
            if e.kind is Kind.RESULT_FILE and e.version.major == major
        }
        assert file_statuses == {"done", "needs_check", "error"}, major
        document_types = {
            d["type"]
            for e in VALID
            if e.kind is Kind.RESULT_FILE and e.version.major == major
            for d in e.load()["documents"]
        }
        assert document_types == {"osv", "statement"}, major
        pipelines = {
            e.load()["pipeline"]
            for e in VALID
            if e.kind is Kind.REQUEST and e.version.major == major
        }
        assert pipelines == {"tabular", "image"}, major


@pytest.mark.parametrize("example", VALID, ids=_ids(VALID))
def test_valid_example_passes_its_schema(example: Example) -> None:
    payload = example.load()
    assert payload["schema_version"] == str(example.version)
    assert schema_errors(example.kind, example.version.major, payload) == []
    assert validate(example.kind, payload) == example.version


@pytest.mark.parametrize("example", VALID, ids=_ids(VALID))
def test_valid_example_parses_into_its_type(example: Example) -> None:
    value = PARSERS[example.kind](example.read_bytes())
    assert str(value.version) == str(example.version)
    if isinstance(value, RecognitionRequest):
        assert parse_request(dump_request(value)) == value
    elif isinstance(value, ResultEnvelope):
        assert parse_envelope(dump_envelope(value)) == value
    else:
        assert value.status.value == example.load()["status"]


@pytest.mark.parametrize("example", INVALID, ids=_ids(INVALID))
def test_invalid_example_fails_its_schema(example: Example) -> None:
    payload = example.load()
    if "-version-" not in example.name:
        assert payload["schema_version"] == str(example.version)
    assert schema_errors(example.kind, example.version.major, payload) != []
    with pytest.raises(ContractError) as caught:
        validate(example.kind, payload, majors=(example.version.major,))
    assert caught.value.code == "SCHEMA_MISMATCH"


@pytest.mark.parametrize("example", INVALID, ids=_ids(INVALID))
def test_invalid_example_is_refused_as_bytes(example: Example) -> None:
    parse = PARSERS[example.kind]
    with pytest.raises(ContractError):
        parse(example.read_bytes(), majors=(example.version.major,))


def test_minor_versions_with_unknown_top_level_fields_are_accepted() -> None:
    envelope = parse_envelope(
        parse_example_name("result-message-1.3-done-unknown-field.json").read_bytes()
    )
    assert str(envelope.version) == "1.3"
    assert envelope.metrics == {"duration_ms": 1790, "cache_hits": 3}
    request = parse_request(
        parse_example_name("request-1.2-tabular-unknown-field.json").read_bytes()
    )
    assert request.attempt == 1


def test_result_file_documents_are_typed() -> None:
    result = parse_result_file(parse_example_name("result-1.0-done-osv-general.json").read_bytes())
    assert result.group_schema == "BY-50-2011"
    [document] = result.documents
    assert isinstance(document, TrialBalance)
    codes = [row.code for row in document.rows]
    assert {"01", "10", "60", "60.1", "90"} <= set(codes)
