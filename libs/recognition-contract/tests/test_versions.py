from __future__ import annotations

import pytest

from recognition_contract import (
    SUPPORTED_MAJORS,
    ContractError,
    Kind,
    MalformedVersion,
    Reason,
    SchemaVersion,
    UnknownMajor,
    parse_envelope,
    parse_example_name,
    parse_result_file,
    parse_version,
    validate,
    validate_envelope,
    validate_request,
    version_of,
)


@pytest.mark.parametrize(
    ("text", "major", "minor"),
    [("1.0", 1, 0), ("1.3", 1, 3), ("2.0", 2, 0), ("2.17", 2, 17), ("3.0", 3, 0), ("0.9", 0, 9)],
)
def test_parse_version(text: str, major: int, minor: int) -> None:
    version = parse_version(text)
    assert version == SchemaVersion(major, minor)
    assert (version.major, version.minor) == (major, minor)
    assert str(version) == text


@pytest.mark.parametrize(
    "text",
    ["", "1", "1.", ".1", "v1.0", "1.0.0", " 1.0", "1.0 ", "1.0\n", "01.0", "1,0", "١.٠", "1.x"],
)
def test_malformed_versions(text: str) -> None:
    with pytest.raises(MalformedVersion) as caught:
        parse_version(text)
    assert caught.value.reason is Reason.MALFORMED_VERSION
    assert caught.value.code == "SCHEMA_MISMATCH"


@pytest.mark.parametrize("value", [1.0, 1, None, ["1", "0"]])
def test_version_must_be_a_string(value: object) -> None:
    with pytest.raises(MalformedVersion):
        parse_version(value)


def test_versions_order_by_major_then_minor() -> None:
    assert SchemaVersion(1, 10) > SchemaVersion(1, 9)
    assert SchemaVersion(2, 0) > SchemaVersion(1, 99)
    assert SUPPORTED_MAJORS == (1, 2)


def test_missing_version_is_malformed() -> None:
    with pytest.raises(MalformedVersion):
        version_of({"job_id": "x"})
    with pytest.raises(MalformedVersion):
        validate_request({"job_id": "x"})


def test_unknown_major_is_its_own_error() -> None:
    payload = parse_example_name("result-message-2.0-done.json").load()
    payload["schema_version"] = "3.0"
    with pytest.raises(UnknownMajor) as caught:
        validate_envelope(payload)
    error = caught.value
    assert isinstance(error, ContractError)
    assert error.reason is Reason.UNKNOWN_MAJOR
    assert error.code == "SCHEMA_MISMATCH"
    assert error.version == "3.0"
    assert error.accepted == (1, 2)


def test_unknown_major_from_bytes() -> None:
    data = parse_example_name("result-message-2.0-done.json").read_bytes()
    with pytest.raises(UnknownMajor):
        parse_envelope(data.replace(b'"schema_version": "2.0"', b'"schema_version": "3.0"'))
    result = parse_example_name("result-2.0-done-osv-general.json").read_bytes()
    with pytest.raises(UnknownMajor):
        parse_result_file(result.replace(b'"schema_version": "2.0"', b'"schema_version": "3.1"'))


def test_a_1x_service_refuses_a_2_0_request() -> None:
    payload = parse_example_name("request-2.0-tabular.json").load()
    assert validate_request(payload) == SchemaVersion(2, 0)
    with pytest.raises(UnknownMajor):
        validate_request(payload, majors=(1,))


def test_any_minor_of_a_known_major_is_accepted() -> None:
    payload = parse_example_name("result-message-1.0-done.json").load()
    for minor in ("1.1", "1.9", "1.42"):
        payload["schema_version"] = minor
        assert str(validate(Kind.RESULT_MESSAGE, payload)) == minor


def test_payload_must_be_an_object() -> None:
    with pytest.raises(ContractError) as caught:
        validate_request(["1.0"])
    assert caught.value.reason is Reason.NOT_OBJECT
