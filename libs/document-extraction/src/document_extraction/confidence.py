"""How sure the recognition is: per row from how its cells were read, per document from rows
and header."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal

# A cell that held something but could not be read leaves the row mostly guessed.
UNREADABLE_CELL_PENALTY = 30
# Below this a document is reported for a person to look at.
LOW_CONFIDENCE = 80.0


def row_confidence(penalty: int, ocr: Iterable[float | None] = ()) -> float:
    """100 minus what reading the row's cells cost, capped by the weakest OCR cell."""
    value = float(max(0, 100 - penalty))
    for cell in ocr:
        if cell is not None and cell < value:
            value = float(cell)
    return round_confidence(value)


def round_confidence(value: float) -> float:
    rounded = float(Decimal(repr(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    return int(rounded) if rounded.is_integer() else rounded


def document_confidence(header: float, rows: Sequence[float]) -> float:
    """The header's certainty, lowered by the mean certainty of the rows."""
    if not rows:
        return round_confidence(min(header, 50.0))
    if set(map(type, rows)) <= {int}:
        # Whole-number rows (no OCR): exact half-up rounding of the mean to tenths in integers.
        total, count = sum(rows), len(rows)
        tenths = (int(total) * 20 + count) // (2 * count)
        return round_confidence(min(header, tenths / 10))
    mean = Decimal(sum(Decimal(repr(r)) for r in rows)) / Decimal(len(rows))
    return round_confidence(min(header, float(mean)))


def ocr_of(
    cell_confidence: Sequence[Sequence[float | None]] | None, index: int, columns: Iterable[int]
) -> list[float | None]:
    if cell_confidence is None or index >= len(cell_confidence):
        return []
    row = cell_confidence[index]
    return [row[c] for c in columns if c < len(row)]
