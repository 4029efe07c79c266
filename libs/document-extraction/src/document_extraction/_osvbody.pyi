from collections.abc import Mapping, Sequence
from typing import Any

def plain_rows(
    rows: Sequence[Any],
    start: int,
    label_col: int,
    name_col: int | None,
    money_cols: tuple[int, ...],
    sheet: str,
    number: int,
    outline: Mapping[int, int] | None,
    stack: list[tuple[int, int]],
    base: int | None,
    tree: object,
    out_rows: list[dict[str, Any]],
    confidences: list[float],
    row_indices: list[int],
    top_sums: list[int],
    children: dict[int, list[int]],
    /,
) -> tuple[int, int, int | None]: ...
