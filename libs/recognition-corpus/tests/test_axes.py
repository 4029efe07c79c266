"""Layouts composed from independent axes: deterministic, every axis value drawn, expected
documents consistent with themselves and with the cells they point at, files in every format.

These tests never run a recognizer: accuracy is the bench's business (bench/axis_accuracy.py, on
a seed no test uses)."""

from __future__ import annotations

import datetime
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from recognition_contract import validate_result_file
from recognition_corpus import FORMATS, Layout, read_grids, write
from recognition_corpus.axes import AXES, NOT_APPLICABLE, generate_axes
from recognition_corpus.layout import Sheet

MONEY = re.compile(r"^-?\d+(\.\d{1,2})?$")
FIELDS = (
    "opening_debit",
    "opening_credit",
    "turnover_debit",
    "turnover_credit",
    "closing_debit",
    "closing_credit",
)
LAYOUTS = generate_axes(seed=4242, count=400)


def _d(value: str | None) -> Decimal:
    return Decimal(value) if value is not None else Decimal(0)


def _dump(layout: Layout) -> str:
    sheets = [
        (s.name, s.rows, sorted(s.formats.items()), s.outline, s.merges) for s in layout.sheets
    ]
    return json.dumps([sheets, layout.expected.as_dict(), layout.params], default=str)


def test_same_seed_same_layouts_other_seed_other_layouts() -> None:
    first = [_dump(layout) for layout in generate_axes(seed=17, count=30)]
    again = [_dump(layout) for layout in generate_axes(seed=17, count=30)]
    other = [_dump(layout) for layout in generate_axes(seed=18, count=30)]
    assert first == again
    assert first != other
    # A layout does not depend on how many are generated.
    assert [_dump(layout) for layout in generate_axes(seed=17, count=10)] == first[:10]


def test_every_axis_value_occurs() -> None:
    seen: dict[tuple[str, str], set[Any]] = {}
    for layout in LAYOUTS:
        kind = layout.params["kind"]
        for axis in AXES[kind]:
            assert axis in layout.params, (layout.name, axis)
            seen.setdefault((kind, axis), set()).add(layout.params[axis])
    for kind, axes in AXES.items():
        for axis, choices in axes.items():
            values = seen[(kind, axis)] - {NOT_APPLICABLE}
            missing = {v for v, _ in choices} - values
            assert not missing, (kind, axis, missing)


def test_axes_are_drawn_independently() -> None:
    # An axis drawn on its own stream: its value does not follow another axis's value.
    osv = [layout.params for layout in LAYOUTS if layout.params["kind"] == "osv"]
    by_depth: dict[str, set[str]] = {}
    for params in osv:
        if params["header_depth"] != NOT_APPLICABLE:  # an ERP's list has no such axis
            by_depth.setdefault(params["header_depth"], set()).add(params["amount_repr"])
    assert all(len(values) >= 5 for values in by_depth.values()), by_depth


def _result(layout: Layout, *, plain: bool = False) -> dict[str, Any]:
    expected = layout.expected_plain if plain else layout.expected
    payload: dict[str, Any] = {
        "schema_version": "2.0",
        "job_id": "0f1e2d3c-4b5a-4968-a7b6-c5d4e3f2a1b0",
        "file_id": "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
        "status": expected.status,
        "service": {"name": "tabular-parser", "version": "0.1.0"},
        "group_schema": expected.group_schema,
        "documents": [
            {**d, "warnings": [{**w, "message": w["message"] or "-"} for w in d["warnings"]]}
            for d in expected.documents
        ],
        "warnings": [{**w, "message": w["message"] or "-"} for w in expected.warnings],
    }
    return payload


def test_expected_results_follow_the_contract() -> None:
    for layout in LAYOUTS[:150]:
        validate_result_file(_result(layout))
        validate_result_file(_result(layout, plain=True))


def _osv_identities(doc: dict[str, Any]) -> None:
    rows = doc["rows"]
    by_id = {r["id"]: r for r in rows}
    for row in rows:
        for f in FIELDS:
            assert row[f] is None or MONEY.match(row[f]), row
        opening = _d(row["opening_debit"]) - _d(row["opening_credit"])
        closing = _d(row["closing_debit"]) - _d(row["closing_credit"])
        turnover = _d(row["turnover_debit"]) - _d(row["turnover_credit"])
        assert closing == opening + turnover, row
        if row["parent"] is not None:
            parent = by_id[row["parent"]]
            assert parent["id"] < row["id"]
            assert row["level"] == parent["level"] + 1
        else:
            assert row["level"] == 0
    for row in rows:
        children = [r for r in rows if r["parent"] == row["id"]]
        if children:
            for f in FIELDS:
                assert _d(row[f]) == sum((_d(c[f]) for c in children), Decimal(0)), (row, f)
    totals = doc["totals"]
    if totals is not None:
        top = [r for r in rows if r["parent"] is None]
        for f in FIELDS:
            assert totals[f] is None or MONEY.match(totals[f])
        for side in ("opening", "turnover", "closing"):
            debit, credit = f"{side}_debit", f"{side}_credit"
            sums = [sum((_d(r[f]) for r in top), Decimal(0)) for f in (debit, credit)]
            printed = [_d(totals[debit]), _d(totals[credit])]
            # A balance printed in one signed column (an ERP's) totals to its rows' net.
            net = totals[credit] is None and printed[0] == sums[0] - sums[1]
            assert printed == sums or net, side
        if doc["variant"] == "general":
            for side in ("opening", "turnover", "closing"):
                assert _d(totals[f"{side}_debit"]) == _d(totals[f"{side}_credit"]), side


def _statement_identities(doc: dict[str, Any]) -> None:
    header = doc["header"]
    lines = doc["transactions"]
    debits = sum((_d(t["debit"]) for t in lines), Decimal(0))
    credits = sum((_d(t["credit"]) for t in lines), Decimal(0))
    for t in lines:
        assert (t["debit"] is None) != (t["credit"] is None), t
        for key in ("debit", "credit", "debit_equivalent", "credit_equivalent"):
            assert t.get(key) is None or MONEY.match(t[key]), t
    assert _d(header["opening_balance"]) + credits - debits == _d(header["closing_balance"])
    if header["total_debit"] is not None:
        assert _d(header["total_debit"]) == debits
        assert _d(header["total_credit"]) == credits


def test_expected_documents_are_arithmetically_true() -> None:
    for layout in LAYOUTS:
        for expected in (layout.expected, layout.expected_plain):
            assert expected.status == "done", layout.name
            for doc in expected.documents:
                if doc["type"] == "osv":
                    _osv_identities(doc)
                else:
                    _statement_identities(doc)


def _cell_amount(cell: Any) -> Decimal | None:
    if isinstance(cell, bool) or cell is None:
        return None
    if isinstance(cell, int | float):
        return Decimal(format(cell, ".15g"))
    if not isinstance(cell, str):
        return None
    text = cell.strip()
    negative = text.startswith("(") and text.endswith(")")
    body = text.strip("()").replace("\u00a0", "").replace("\u202f", "").replace(" ", "")
    if body.startswith("-"):
        negative, body = True, body[1:]
    if body.endswith("-"):  # an ERP's "1.234,56-"
        negative, body = True, body[:-1]
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+,\d{2}", body):
        body = body.replace(".", "")
    if not re.fullmatch(r"\d+([.,]\d+)?", body):
        return None
    value = Decimal(body.replace(",", "."))
    return -value if negative else value


def _row_cells(sheet: Sheet, row: int) -> list[Any]:
    return sheet.rows[row - 1]


def test_locators_point_at_the_cells_that_hold_the_values() -> None:
    for layout in LAYOUTS:
        sheets = {s.name: s for s in layout.sheets}
        for doc in layout.expected.documents:
            for row in doc.get("rows", []):
                cells = _row_cells(sheets[row["locator"]["sheet"]], row["locator"]["row"])
                texts = [c.strip() for c in cells if isinstance(c, str)]
                assert any(row["name"] in t for t in texts), (layout.name, row, cells)
                amounts = {_cell_amount(c) for c in cells}
                # A credit balance or turnover an ERP prints with its minus.
                amounts |= {-a for a in amounts if a is not None}
                for f in FIELDS:
                    if row[f] is not None and Decimal(row[f]) != 0:
                        assert Decimal(row[f]) in amounts, (layout.name, row, f, cells)
            if doc.get("totals"):
                locator = doc["totals"]["locator"]
                cells = _row_cells(sheets[locator["sheet"]], locator["row"])
                assert any(
                    isinstance(c, str)
                    and c.strip().lower().startswith(("итого", "всего", "барлығы", "жиыны", "*"))
                    for c in cells
                )
            for t in doc.get("transactions", []):
                cells = _row_cells(sheets[t["locator"]["sheet"]], t["locator"]["row"])
                amounts = {_cell_amount(c) for c in cells}
                amounts |= {-a for a in amounts if a is not None}
                value = Decimal(t["debit"] or t["credit"])
                assert value in amounts, (layout.name, t, cells)
                day = datetime.date.fromisoformat(t["date"])
                # Grouped by day, a line prints no date of its own: its day's row does.
                assert layout.params.get("st_day_blocks") == "blocks" or any(
                    (isinstance(c, datetime.date) and c.timetuple()[:3] == day.timetuple()[:3])
                    or (isinstance(c, str) and c.startswith((f"{day:%d.%m.%Y}", day.isoformat())))
                    for c in cells
                ), (layout.name, t, cells)
                assert any(isinstance(c, str) and t["counterparty_name"] in c for c in cells)
            end = doc["locator"]["row_end"]
            assert end <= len(sheets[doc["locator"]["sheet"]].rows)


@pytest.mark.parametrize("fmt", FORMATS)
def test_files_write_in_every_format(fmt: str, tmp_path: Path) -> None:
    picked = [
        next(x for x in LAYOUTS if x.params["kind"] == "osv" and x.params["header_depth"] == "4"),
        next(
            x for x in LAYOUTS if x.params["kind"] == "osv" and x.params["corr_columns"] == "split"
        ),
        next(x for x in LAYOUTS if x.params["kind"] == "statement"),
        next(
            x
            for x in LAYOUTS
            if x.params["kind"] == "statement" and x.params["st_dates"] == "datetime"
        ),
    ]
    for layout in picked:
        path = tmp_path / f"{layout.name}.{fmt}"
        write(layout, path, fmt)
        grids = read_grids(path)
        assert [g.name for g in grids] == [s.name for s in layout.sheets]
        for grid, sheet in zip(grids, layout.sheets, strict=True):
            for doc in layout.expected.documents:
                last = doc["locator"]["row_end"]
                assert len(grid.rows) >= last
                assert any(c is not None for c in grid.rows[last - 1])
            assert len(grid.rows) <= len(sheet.rows)
