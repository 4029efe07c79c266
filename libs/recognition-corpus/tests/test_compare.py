"""The comparison is strict: any changed field of a recognised document is a difference."""

from __future__ import annotations

import copy
from pathlib import Path

from recognition_corpus import differences, generate, normalise, recognise, write_xlsx


def test_a_changed_field_anywhere_is_reported(tmp_path: Path) -> None:
    layout = generate(seed=9, per_family=1, families=["osv-general-erp"])[0]
    path = tmp_path / "osv.xlsx"
    write_xlsx(layout, path)
    actual = normalise(recognise(path))
    expected = normalise(layout.expected)
    assert differences(expected, actual) == []
    for mutate in (
        lambda d: d["documents"][0]["rows"][0].__setitem__("opening_debit", "1.00"),
        lambda d: d["documents"][0]["rows"][-1].__setitem__("parent", 999),
        lambda d: d["documents"][0].__setitem__("unit", "thousands"),
        lambda d: d["documents"][0]["rows"].pop(),
        lambda d: d["documents"][0]["warnings"].append(("X", "warning", "null")),
        lambda d: d.__setitem__("group_schema", "unknown-chart"),
        lambda d: d["documents"][0]["rows"][0].__setitem__("confidence", 99.5),
    ):
        changed = copy.deepcopy(actual)
        mutate(changed)
        assert differences(expected, changed), mutate


def test_a_changed_source_cell_is_noticed(tmp_path: Path) -> None:
    layout = generate(seed=9, per_family=1, families=["osv-general-bp"])[0]
    sheet = layout.sheets[0]
    totals = next(r for r, row in enumerate(sheet.rows) if row and row[0] == "Итого")
    sheet.rows[totals + -1][1] = "Другое наименование"
    path = tmp_path / "osv.xlsx"
    write_xlsx(layout, path)
    assert differences(normalise(layout.expected), normalise(recognise(path)))
