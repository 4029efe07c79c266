"""What a line's label says it is, for every layout: a totals line."""

from __future__ import annotations

import re

# Totals by their wording: "Итого", "Всего", "Итого по счету", a statement's "Обороты за период",
# and the Kazakh "Барлығы", "Жиыны".
_TOTALS = re.compile(
    r"^(?:итого|всего|итог|барлығы|жиыны|обороты?(?=\s+(?:за|по)\b|\s*:|\s*$))"
    r"(?![а-яa-zәғқңөұүһі])"
)


def is_totals_label(text: str) -> bool:
    return _TOTALS.match(text) is not None
