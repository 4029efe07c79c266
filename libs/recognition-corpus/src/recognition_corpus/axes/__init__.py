"""Layouts composed from independent variation axes, for accuracy per axis value.

    generate_axes(seed, count) -> list[Layout]

Each layout is a trial balance or a bank statement; every axis of its kind (OSV_AXES,
STATEMENT_AXES) is drawn on its own from the seed, and ``layout.params`` records the value each
axis took (``n/a`` where another axis left it without effect, e.g. the word order of one-row
captions under a two-row header). The expected documents are built from the generated data, as
the rest of the corpus does, never by running a recognizer.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from recognition_corpus.axes.draw import NOT_APPLICABLE, Draw
from recognition_corpus.axes.osv import OSV_AXES, osv_layout
from recognition_corpus.axes.statement import STATEMENT_AXES, statement_layout
from recognition_corpus.layout import Layout

KINDS = (("osv", 0.6), ("statement", 0.4))
WITHOUT_STRUCTURE_AXES: dict[str, Any] = {
    "sections": "none",
    "totals_second": "none",
    "st_sequence": "none",
    "language": "ru",
    "form": "1c",
    "st_day_blocks": "none",
    "title_program": "none",
    "st_entry_accounts": "none",
}
"""``fixed`` for the layouts as drawn before the structure axes (sections, a second totals
line, a sequence column), the Kazakh form and the ERP's: tests measured on a seed keep what they
were measured on."""
AXES = {"osv": OSV_AXES, "statement": STATEMENT_AXES}


def generate_axes(seed: int, count: int, fixed: Mapping[str, Any] | None = None) -> list[Layout]:
    """``count`` layouts, the same for a seed; layout ``k`` does not depend on ``count``.
    ``fixed``: axis values every layout takes (an axis added later set to its old behaviour
    keeps a test's layout as it was)."""
    layouts: list[Layout] = []
    for k in range(count):
        rng = random.Random(f"{seed}:{k}:kind")  # noqa: S311 - test data
        kind = rng.choices([v for v, _ in KINDS], [w for _, w in KINDS])[0]
        name = f"axes-{kind}-{seed}-{k:04d}"
        layout = (
            osv_layout(seed, k, name, fixed)
            if kind == "osv"
            else statement_layout(seed, k, name, fixed)
        )
        layout.params = {"kind": kind, **layout.params}
        layouts.append(layout)
    return layouts


__all__ = [
    "AXES",
    "NOT_APPLICABLE",
    "OSV_AXES",
    "STATEMENT_AXES",
    "WITHOUT_STRUCTURE_AXES",
    "Draw",
    "generate_axes",
]
