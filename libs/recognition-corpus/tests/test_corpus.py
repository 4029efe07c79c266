"""Every layout family, in every format: write, read back with python-calamine, recognise, and
compare with the expected document field by field. The full corpus runs in bench/."""

from __future__ import annotations

from pathlib import Path

import pytest

from recognition_corpus import FORMATS, Layout, check_layout, generate

PER_FAMILY = 3
LAYOUTS = generate(seed=7, per_family=PER_FAMILY)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("layout", LAYOUTS, ids=[layout.name for layout in LAYOUTS])
def test_layout_is_recognised_exactly(layout: Layout, fmt: str, tmp_path: Path) -> None:
    diffs = check_layout(layout, fmt, tmp_path)
    if diffs is None:
        assert layout.requires, "only layouts that need a reader feature may be skipped"
        pytest.skip(f"{fmt} reader lacks {sorted(layout.requires)}")
    assert not diffs, f"{layout.name}.{fmt}: {len(diffs)} differences\n" + "\n".join(diffs[:40])
