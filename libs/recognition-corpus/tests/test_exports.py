"""Generated exports along every axis read back into their data, and a file whose own figures
disagree is never done."""

from __future__ import annotations

import pytest

from recognition_corpus.compare_exports import export_differences
from recognition_corpus.exports import AXES, generate_exports

ITEMS = generate_exports(seed=11, count=120)


def test_the_seed_covers_every_axis_value() -> None:
    for axis, values in AXES.items():
        seen = {item.params[axis] for item in ITEMS}
        assert set(values) <= seen | {"n/a"}, axis


@pytest.mark.parametrize("item", ITEMS, ids=[i.name for i in ITEMS])
def test_export_reads_back_into_its_data(item) -> None:  # type: ignore[no-untyped-def]
    diffs, status = export_differences(item)
    assert diffs == [], item.params
    if item.params["totals"] == "off by 1000":
        assert status == "needs_check"
