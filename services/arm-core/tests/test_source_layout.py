"""A sheet's window laid out as the workbook shows it: merged ranges span their rows and
columns, clipped to the window, and the cells they cover are not drawn."""

from __future__ import annotations

from arm_core.web.documents import laid_out


def test_merged_ranges_span_and_cover_within_the_window() -> None:
    window = {
        "columns": 4,
        "rows": [
            {"number": 5, "cells": ["Счёт", "Сальдо", "", "Обороты"]},
            {"number": 6, "cells": ["", "Дебет", "Кредит", "Дебет"]},
            {"number": 7, "cells": ["01", "1", "2"]},
        ],
        # «Счёт» over rows 4-6 (row 4 is above the window), «Сальдо» over two columns,
        # «Обороты» down past the window's last row.
        "merged": [[4, 0, 6, 0], [5, 1, 5, 2], [5, 3, 9, 3]],
    }
    lines = laid_out(window)
    shape = [[(c["text"], c["rowspan"], c["colspan"]) for c in line["cells"]] for line in lines]
    assert shape == [
        [("Счёт", 2, 1), ("Сальдо", 1, 2), ("Обороты", 3, 1)],
        [("Дебет", 1, 1), ("Кредит", 1, 1)],
        [("01", 1, 1), ("1", 1, 1), ("2", 1, 1)],
    ]


def test_a_window_without_merges_is_the_grid_padded_to_its_width() -> None:
    window = {"columns": 3, "rows": [{"number": 1, "cells": ["a"]}], "merged": []}
    assert [c["text"] for c in laid_out(window)[0]["cells"]] == ["a", "", ""]
