"""Typed documents against the examples and the schemas of both MAJORs: every example reads
into typed values and writes back to exactly the same JSON (key order included)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from recognition_contract import (
    LEGACY_WARNING,
    BBox,
    ContractError,
    Equivalents,
    Example,
    Kind,
    Locator,
    Money,
    Period,
    Severity,
    Statement,
    TrialBalance,
    Warning,
    amount,
    document_errors,
    examples,
    from_wire,
    locator_to_wire,
    parse_example_name,
    parse_result_file,
    result_file_payload,
    schema_errors,
    to_wire,
    warning_text,
)

RESULTS = [e for e in examples() if e.kind is Kind.RESULT_FILE and e.valid]
INVALID_DOCUMENTS = [
    "invalid-result-1.0-float-money.json",
    "invalid-result-1.0-confidence-over-100.json",
    "invalid-result-2.0-locator-sheet-and-page.json",
    "invalid-result-2.0-money-comma.json",
    "invalid-result-2.0-money-three-decimals.json",
    "invalid-result-2.0-row-locator-without-row.json",
    "invalid-result-2.0-row-without-locator.json",
    "invalid-result-2.0-subconto-row-without-name.json",
    "invalid-result-2.0-transaction-debit-and-credit.json",
    "invalid-result-2.0-unknown-document-field.json",
    "invalid-result-2.0-unknown-document-type.json",
    "invalid-result-2.1-account-variant-without-account.json",
]


def _text(value: Any) -> str:
    # Key order is part of what is compared: a service's output must stay byte for byte.
    return json.dumps(value, ensure_ascii=False)


def test_every_result_example_is_covered() -> None:
    assert {e.version.major for e in RESULTS} == {1, 2}
    assert len(RESULTS) >= 9


@pytest.mark.parametrize("example", RESULTS, ids=lambda e: e.name)
def test_documents_round_trip_exactly(example: Example) -> None:
    payload = example.load()
    major = example.version.major
    for raw in payload["documents"]:
        document = from_wire(raw, major)
        assert isinstance(document, TrialBalance | Statement)
        assert _text(to_wire(document, major)) == _text(raw)


@pytest.mark.parametrize("example", RESULTS, ids=lambda e: e.name)
def test_result_files_round_trip(example: Example) -> None:
    payload = example.load()
    written = result_file_payload(parse_result_file(example.read_bytes()))
    # Unknown top-level fields of a later MINOR are not kept; an absent list reads as empty.
    expected = {key: value for key, value in payload.items() if key in written}
    expected.setdefault("warnings", [])
    assert _text(written) == _text({key: expected[key] for key in written})


@pytest.mark.parametrize("example", RESULTS, ids=lambda e: e.name)
def test_documents_cross_majors(example: Example) -> None:
    """A document read in one MAJOR writes valid JSON of the other; only warnings change."""
    result = parse_result_file(example.read_bytes())
    for major in (1, 2):
        target = f"{major}.0"
        written = result_file_payload(result, target)
        assert schema_errors(Kind.RESULT_FILE, major, written) == []
        for raw, out in zip(example.load()["documents"], written["documents"], strict=True):
            assert {k: v for k, v in out.items() if k != "warnings"} == {
                k: v for k, v in raw.items() if k != "warnings"
            }
            assert all(isinstance(w, str if major == 1 else dict) for w in out["warnings"])


def test_legacy_warnings_come_back_as_their_text() -> None:
    example = parse_example_name("result-1.0-needs_check-osv-account.json")
    result = parse_result_file(example.read_bytes())
    assert {w.code for w in result.warnings} == {LEGACY_WARNING}
    assert result_file_payload(result, "2.0")["warnings"] == [
        {"code": LEGACY_WARNING, "severity": "info", "message": text, "locator": None}
        for text in example.load()["warnings"]
    ]
    assert result_file_payload(result, "1.0")["warnings"] == example.load()["warnings"]


@pytest.mark.parametrize("name", INVALID_DOCUMENTS)
def test_off_schema_documents_are_refused(name: str) -> None:
    example = parse_example_name(name)
    major = example.version.major
    refused = [raw for raw in example.load()["documents"] if document_errors(major, raw)]
    assert refused
    with pytest.raises(ContractError, match="does not match") as caught:
        from_wire(refused[0], major)
    assert caught.value.errors


def test_a_document_of_the_wrong_major_is_refused() -> None:
    raw = parse_example_name("result-2.0-needs_check-statement.json").load()["documents"][0]
    assert from_wire(raw, 2).warnings
    with pytest.raises(ContractError, match="does not match MAJOR 1"):
        from_wire(raw, 1)  # warning objects are 2.x


def test_typed_values() -> None:
    example = parse_example_name("result-2.0-needs_check-statement.json")
    result = parse_result_file(example.read_bytes())
    [statement] = result.documents
    assert isinstance(statement, Statement)
    assert statement.header.period == Period(
        date(2025, 4, 1), date(2025, 4, 30), "Период: 01.04.2025 - 30.04.2025"
    )
    assert statement.header.opening_balance is not None
    assert amount(statement.header.opening_balance) == Decimal(statement.header.opening_balance)
    line = statement.transactions[0]
    assert isinstance(line.date, date)
    assert line.equivalents is None
    assert isinstance(line.locator.bbox, BBox)
    warning = statement.warnings[0]
    assert isinstance(warning.severity, Severity)
    assert isinstance(warning.locator, Locator)


def test_equivalents_are_written_when_the_statement_has_them() -> None:
    raw = parse_example_name("result-2.0-needs_check-statement.json").load()["documents"][0]
    with_equivalents = copy.deepcopy(raw)
    for line in with_equivalents["transactions"]:
        items = list(line.items())
        at = [k for k, _ in items].index("counterparty_name")
        side = "debit" if line["debit"] is not None else "credit"
        extra = [
            ("debit_equivalent", line["debit"] if side == "debit" else None),
            ("credit_equivalent", line["credit"] if side == "credit" else None),
        ]
        line.clear()
        line.update(items[:at] + extra + items[at:])
    document = from_wire(with_equivalents, 2)
    assert isinstance(document, Statement)
    assert all(isinstance(t.equivalents, Equivalents) for t in document.transactions)
    assert _text(to_wire(document, 2)) == _text(with_equivalents)


def test_fields_added_in_2_3_are_written_where_known_and_never_in_major_1() -> None:
    raw = parse_example_name("result-2.0-needs_check-statement.json").load()["documents"][0]
    document = from_wire(raw, 2)
    assert isinstance(document, Statement)
    first, *rest = document.transactions
    marked = replace(first, document_kind="Платежное поручение", counterparty_kpp="770101001")
    statement = replace(document, transactions=(marked, *rest))
    wire = to_wire(statement, 2)
    keys = list(wire["transactions"][0])
    assert keys.index("document_kind") == keys.index("counterparty_bank_bic") + 1
    assert keys.index("counterparty_kpp") == keys.index("purpose") - 1
    assert "document_kind" not in wire["transactions"][1]
    assert document_errors(2, wire) == []
    legacy = to_wire(statement, 1)
    assert "document_kind" not in legacy["transactions"][0]
    assert "counterparty_kpp" not in legacy["transactions"][0]
    assert document_errors(1, legacy) == []
    assert from_wire(wire, 2) == statement


def test_amounts() -> None:
    assert amount(Money("-12.50")) == Decimal("-12.50")
    assert str(amount(Money("1500"))) == "1500"
    assert amount(None) is None


def test_locators_in_schema_order() -> None:
    locator = Locator(page=2, row=7, page_end=3, bbox=BBox(0, 0.5, 1, 0.75))
    assert list(locator_to_wire(locator)) == ["page", "page_end", "row", "bbox"]
    # Whole numbers in a box stay whole: the file says 0 where the producer wrote 0.
    assert _text(locator_to_wire(locator)["bbox"]) == '{"x0": 0, "y0": 0.5, "x1": 1, "y1": 0.75}'
    assert locator_to_wire(Locator(sheet="ОСВ", row=3, column="D")) == {
        "sheet": "ОСВ",
        "row": 3,
        "column": "D",
    }


def test_structured_warning_as_text_names_its_place() -> None:
    warning = Warning(
        "AMOUNT_UNREADABLE",
        Severity.WARNING,
        "Сумма не распознана",
        Locator(sheet="ОСВ", row=12, column="E", bbox=None),
    )
    assert (
        warning_text(warning) == "sheet=ОСВ row=12 column=E AMOUNT_UNREADABLE: Сумма не распознана"
    )
