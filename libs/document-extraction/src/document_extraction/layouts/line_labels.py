"""What a line's label says it is, for every layout: a totals line (by its words, or by an ERP's
asterisks)."""

from __future__ import annotations

import re

# Totals by their wording: "Итого", "Всего", "Итого по счету", a statement's "Обороты за период",
# and the Kazakh "Барлығы", "Жиыны".
_TOTALS = re.compile(
    r"^(?:итого|всего|итог|барлығы|жиыны|обороты?(?=\s+(?:за|по)\b|\s*:|\s*$))"
    r"(?![а-яa-zәғқңөұүһі])"
)


# An ERP's list marks its totals by asterisks alone: «*» a group's, «**» the whole list's.
_ASTERISKS = re.compile(r"^\*{1,5}$")


def is_totals_label(text: str) -> bool:
    return _TOTALS.match(text) is not None or is_totals_marker(text)


def is_totals_marker(text: str) -> bool:
    return _ASTERISKS.match(text.strip()) is not None
