"""How far apart two words are when the letters OCR mixes up count for less than others, and the
vocabulary of known words a misread word is taken for (``Vocabulary.nearest``: "салкло" is
"сальдо", "ведомоть" is "ведомость") when it is near enough for its length and nearer to it
than to any word of another meaning."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Final

from document_extraction.lookalikes import LOWERED_TO_CYRILLIC

# Letters OCR takes for one another: substituting one for another of its group costs half.
_SIMILAR_GROUPS: Final = (
    "лпнn", "нийu", "лдg", "шщц", "ьъыb", "бв6", "сеоэ", "ао", "з3э", "гтr", "ч4", "тm",
    "о0", "il1|!і", "ce", "uv",
)  # fmt: skip
# Two glyphs read for one letter ("ьі" for ы, "rn" for m): reading them as it costs half.
_SPLIT_GLYPHS: Final = {
    "ы": ("ьі", "ьi", "ьl", "ь1", "ъі", "ъi", "bi", "bl"),
    "ю": ("іо", "io", "lo"),
    "м": ("rn",),
    "m": ("rn",),
    "d": ("cl",),
    "w": ("vv",),
}
# Thin glyphs OCR drops or adds: missing or extra, they cost half.
_THIN: Final = frozenset("ьъйіil1|.'-")
SIMILAR_COST: Final = 0.5
EDIT_COST: Final = 1.0


def _similar_pairs() -> frozenset[tuple[str, str]]:
    pairs: set[tuple[str, str]] = set()
    for group in _SIMILAR_GROUPS:
        pairs.update((a, b) for a in group for b in group if a != b)
    return frozenset(pairs)


_SIMILAR: Final = _similar_pairs()
_SPLITS: Final = {(glyphs, letter) for letter, reads in _SPLIT_GLYPHS.items() for glyphs in reads}


def _substitution(read: str, known: str) -> float:
    if read == known:
        return 0.0
    return SIMILAR_COST if (read, known) in _SIMILAR else EDIT_COST


def _indel(char: str) -> float:
    return SIMILAR_COST if char in _THIN else EDIT_COST


def ocr_distance(read: str, known: str, limit: float = float("inf")) -> float:
    """The cost of reading ``known`` as ``read``: edits of similar or thin glyphs cost half,
    others one, two glyphs read for one letter half, two letters swapped one. Past ``limit``
    the count stops and returns something above it."""
    rows, cols = len(read), len(known)
    previous2: list[float] = []
    previous = [0.0]
    for j in range(1, cols + 1):
        previous.append(previous[j - 1] + _indel(known[j - 1]))
    for i in range(1, rows + 1):
        current = [previous[0] + _indel(read[i - 1])]
        for j in range(1, cols + 1):
            cost = min(
                previous[j] + _indel(read[i - 1]),
                current[j - 1] + _indel(known[j - 1]),
                previous[j - 1] + _substitution(read[i - 1], known[j - 1]),
            )
            if i > 1 and (read[i - 2 : i], known[j - 1]) in _SPLITS:
                cost = min(cost, previous2[j - 1] + SIMILAR_COST)
            if (
                i > 1
                and j > 1
                and read[i - 1] == known[j - 2]
                and read[i - 2] == known[j - 1]
                and read[i - 1] != read[i - 2]
            ):
                cost = min(cost, previous2[j - 2] + EDIT_COST)
            current.append(cost)
        if min(current) > limit:
            return limit + EDIT_COST
        previous2, previous = previous, current
    return previous[cols]


def ocr_budget(length: int) -> float:
    """How far a misread may be from a known word of this many letters. Short words must be
    read exactly (after look-alikes are folded): "дт" and "кт", "об" and "от" are one letter
    apart and mean different things."""
    if length <= 3:
        return 0.0
    if length == 4:
        return SIMILAR_COST
    if length == 5:
        return EDIT_COST
    return min(length / 4, 3.0)


# Misreads remembered with their nearest word; past this many the memory starts again.
_MAX_CACHE = 50_000


class Vocabulary:
    """Known words, each with its meaning, found again through OCR's misreads."""

    def __init__(self, meanings: Mapping[str, str]) -> None:
        self._meanings = dict(meanings)
        self._by_length: dict[int, list[tuple[str, Counter[str]]]] = {}
        for word in self._meanings:
            self._by_length.setdefault(len(word), []).append((word, Counter(word)))
        self._nearest: dict[str, str | None] = {}

    def __contains__(self, word: object) -> bool:
        return word in self._meanings

    def meaning(self, word: str) -> str | None:
        """The meaning of a word read exactly, or None."""
        return self._meanings.get(word)

    def nearest(self, word: str) -> str | None:
        """The meaning of the known word a misread is nearest to, or None when none is near
        enough or two of different meanings are as near (an ambiguous misread is no reading)."""
        found = self._nearest.get(word, "")
        if found != "":
            return found
        if len(self._nearest) >= _MAX_CACHE:
            self._nearest.clear()
        found = self._search(word)
        if found is None and word.isascii():
            # A Russian word OCR read in Latin letters ("hayano" for начало): its look-alikes
            # are the Cyrillic letters printed; the other letters are misreads to weigh.
            folded = "".join(LOWERED_TO_CYRILLIC.get(ch, ch) for ch in word)
            found = self._search(folded) if folded != word else None
        self._nearest[word] = found
        return found

    def _search(self, word: str) -> str | None:
        if len(word) < 4 or not word.isalpha():
            return None
        letters = Counter(word)
        best = float("inf")
        meanings: set[str] = set()
        # A letter more or less costs half at least, and no budget is above three.
        for length in range(max(4, len(word) - 6), len(word) + 7):
            budget = ocr_budget(length)
            for known, known_letters in self._by_length.get(length, ()):
                if abs(len(word) - length) * SIMILAR_COST > budget:
                    continue
                # Letters the known word has and the misread lacks: each costs half at least.
                missing = sum((known_letters - letters).values())
                if missing * SIMILAR_COST > min(budget, best):
                    continue
                distance = ocr_distance(word, known, min(budget, best))
                if distance > budget or distance > best:
                    continue
                if distance < best:
                    best, meanings = distance, set()
                meanings.add(self._meanings[known])
        return meanings.pop() if len(meanings) == 1 else None

    def repair(self, text: str) -> str:
        """A text with each unknown word that is a misread of a known one replaced by that
        word's meaning (lower case); other words, spaces and punctuation as they were."""

        def replace(match: re.Match[str]) -> str:
            run = match.group(0)
            lowered = run.lower().replace("ё", "е")
            if lowered in self._meanings:
                return run
            nearest = self.nearest(lowered)
            return run if nearest is None else nearest

        return _LETTERS.sub(replace, text)


_LETTERS = re.compile(r"[A-Za-z\u0400-\u04ff]{4,}")
