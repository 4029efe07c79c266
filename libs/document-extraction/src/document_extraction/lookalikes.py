"""What OCR confuses: glyphs that print alike in Latin, Cyrillic and digits, and how far apart
two words are when the letters OCR mixes up count for less than others.

Three rules, each kept here once:

* a number misread with a letter or two that look like digits gets its digits back
  (``repair_number``: "2O25" is 2025; "BPSBBY2X", a BIC, stays letters);
* a word that is Cyrillic gets its Latin and digit look-alikes turned Cyrillic
  (``fold_lookalikes``: "Дeбет", "0бороты", "3а", and "OOO" or "ArpoPecypc", its "г" read as
  "r", among Cyrillic words), while words Latin by nature (an IBAN, a BIC, "BYN") stay as
  they are;
* a word that is not known is the known word it is nearest to through OCR's confusions, when it
  is near enough for its length and nearer to it than to any word of another meaning
  (``Vocabulary.nearest``: "салкло" is "сальдо", "ведомоть" is "ведомость").
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Final

# Letters OCR reads in place of digits (and digits it reads in place of letters).
DIGIT_LOOKALIKES: Final = {
    "O": "0", "o": "0", "О": "0", "о": "0", "D": "0", "Q": "0",
    "l": "1", "I": "1", "|": "1", "i": "1", "!": "1",
    "З": "3", "з": "3",
    "S": "5", "s": "5",
    "б": "6", "G": "6",
    "B": "8", "В": "8",
    "g": "9", "q": "9",
}  # fmt: skip
NUMBER_PUNCTUATION: Final = frozenset(",.-−()/:")
# More look-alikes than this in one number and it is no number misread but a word.
MAX_NUMBER_REPAIRS: Final = 2

# Latin letters drawn exactly as Cyrillic ones in the fonts documents are printed in.
LATIN_TO_CYRILLIC: Final = dict(zip("ABCEHKMOPTXYaceopxyk", "АВСЕНКМОРТХУасеорхук", strict=True))
_CYRILLIC_TO_LATIN: Final = {cyrillic: latin for latin, cyrillic in LATIN_TO_CYRILLIC.items()}
_WORD = re.compile(r"\S+")


def latin_spelling(code: str) -> str:
    """A code of Latin capitals and digits (a BIC) that OCR of a Cyrillic page spelled with
    Cyrillic look-alikes ("ВАРВВУ2Х"), in Latin; a Cyrillic letter drawn like a digit ("З")
    is that digit."""
    return "".join(
        _CYRILLIC_TO_LATIN.get(ch)
        or (DIGIT_LOOKALIKES[ch] if _is_cyrillic(ch) and ch in DIGIT_LOOKALIKES else ch)
        for ch in code
    )


_RUN = re.compile(r"[0-9A-Za-z\u0400-\u04ff]+")


def _is_cyrillic(char: str) -> bool:
    return "\u0400" <= char <= "\u04ff"


# A digit inside a Cyrillic word is the Cyrillic letter it is drawn like ("0бороты", "3а").
_DIGIT_TO_CYRILLIC: Final = {
    digit: letter.lower() for letter, digit in DIGIT_LOOKALIKES.items() if _is_cyrillic(letter)
}
_DIGITS_FOLDED = "".join(_DIGIT_TO_CYRILLIC)
# Text with nothing to fold: no Latin letter, no look-alike digit beside a Cyrillic letter.
_FOLDABLE: Final = re.compile(
    rf"[A-Za-z]|[{_DIGITS_FOLDED}][\u0400-\u04ff]|[\u0400-\u04ff][{_DIGITS_FOLDED}]"
)
# Lower-case Latin letters whose capitals are Cyrillic look-alikes: a caption in capitals is
# lower-cased before it is read ("KT" is "kt" by then).
_LOWERED_TO_CYRILLIC: Final = {
    latin.lower(): cyrillic.lower() for latin, cyrillic in LATIN_TO_CYRILLIC.items()
}


# The legal forms a name opens with, before its quoted name ("ООО «Альфа»"): Belarusian,
# Russian and Kazakh ones, complete enough that a form one letter from another is in it too.
LEGAL_FORMS: Final = frozenset((
    "ООО", "ОАО", "ЗАО", "ОДО", "АО", "ПАО", "НАО", "ЧУП", "ЧТУП", "ЧПУП", "ЧСУП", "ИЧУП", "УП",
    "РУП", "КУП", "КУПП", "ГУП", "МУП", "ФГУП", "ИУП", "СУП", "ГП", "СООО", "ИООО", "ИП", "ЧП",
    "ТОО", "ПК", "СПК", "УО", "ГУ", "ГУО", "КФХ", "ПТ", "КТ", "ТД",
))  # fmt: skip
# What may stand before a quoted name: its legal form, an outline level or row number OCR
# read into the line, a bracket of a cell border; the form itself OCR may read in pieces.
# In a legal form's capitals a 4 is the Ч it looks like ("4YN" for ЧУП), as in no number.
_FORM_DIGITS: Final = {**_DIGIT_TO_CYRILLIC, "4": "ч"}
_BEFORE_NAME: Final = re.compile(r"^([^«]{1,12}?)\s*(?=«)")
_STRAY: Final = re.compile(r"^[\d\[\]|]{1,2}$")


def legal_form_spelled(text: str) -> str:
    """A name whose legal form OCR read in digits and Latin look-alikes ("000 «Сигма»",
    "3A0 «Альфа-Банк»") with the form spelled as printed, and without an outline level or
    row number read into it ("0 ООО «Альфа»", "0000 «Альфа»", "0 0 00 «Альфа»", or a piece
    of a border: "] ООО «Альфа»"); any other text as it is."""
    text = _UNITARY_FORM.sub("УП ", _STATE_FORM.sub("ГП ", text))
    match = _BEFORE_NAME.match(text)
    if match is None:
        return text
    tokens = match.group(1).split()
    rest = text[match.end(1) :]
    for size in range(1, min(len(tokens), 3) + 1):
        read = "".join(tokens[-size:])
        before = tokens[:-size]
        readings = [(read, before), (read[1:], [*before, read[:1]])]
        if read[:1] == "Ю":
            # A cell border's bar read together with the "О" beside it.
            readings.append(("О" + read[1:], before))
        for form, stray in readings:
            letters = "".join(
                _FORM_DIGITS.get(ch, LATIN_TO_CYRILLIC.get(ch, ch)).upper() for ch in form
            )
            if not all(_STRAY.match(t) for t in stray):
                continue
            if letters in LEGAL_FORMS:
                return letters + rest
            if (near := _form_one_letter_off(form, letters)) is not None:
                return near + rest
    return text


# "ИП" before a person's surname and initials, its letters read in Latin ("WN", "MN"): an
# individual entrepreneur, the only form a person's name follows.
_SURNAME_INITIALS = r"[А-ЯЁ][а-яё]+(?:-[А-ЯЁ][а-яё]+)?\s+[А-ЯЁ]\.\s*[А-ЯЁ]\.$"
_PERSON_FORM: Final = re.compile(rf"^[WMNUH](?:[NnП]|II)\s+(?={_SURNAME_INITIALS})")
# "ГП" before a quoted name, its letters read as vertical strokes ("ITI", "III") or as the
# Latin letters of strokes ("IN", "IM", "NM", "IT"). A quoted name follows a legal form, and
# no other form is read so (ИП precedes a person's name; УП, ЧП start with Y, 4).
_STATE_FORM: Final = re.compile(r"^[ITNТГ](?:[ITТ]I|[ПNMT])\s+(?=«)")
# "УП" so, its П read as the Latin N ("YN «Минскводсервис»").
_UNITARY_FORM: Final = re.compile(r"^[YУ][NП]\s+(?=«)")


def person_form_spelled(text: str) -> str:
    """A person's name after "ИП" read in Latin ("WN Ковалёв А. Н.", "UII Ковалёв А. Н.") with
    "ИП" as printed; any other text as it is."""
    return _PERSON_FORM.sub("ИП ", text)


def _form_one_letter_off(read: str, letters: str) -> str | None:
    """The one legal form a capitalised word of three letters or more is a letter away from
    ("РУМ", "PYN", "РУ!" for РУП): OCR misread the letter; None where two forms are as near
    or the word is no form in capitals."""
    if len(letters) < 3 or any(ch.islower() for ch in read):
        return None
    if sum(ch.isalpha() for ch in read) < 2:
        # A number before a quoted name ("300 «Альфа»") is no form misread.
        return None
    near = [
        form
        for form in LEGAL_FORMS
        if len(form) == len(letters)
        and sum(a != b for a, b in zip(form, letters, strict=True)) == 1
    ]
    return near[0] if len(near) == 1 else None


def repair_number(text: str) -> tuple[str, int]:
    """A number with letters OCR read for digits, with the digits back, and how many were
    repaired. Only where unambiguous: digits and number punctuation around at most
    ``MAX_NUMBER_REPAIRS`` look-alikes, twice as many digits as look-alikes."""
    digits = sum(ch.isdigit() for ch in text)
    suspects = [i for i, ch in enumerate(text) if ch in DIGIT_LOOKALIKES]
    if not suspects or len(suspects) > MAX_NUMBER_REPAIRS or digits < 2 * len(suspects):
        return text, 0
    if not _is_number_like(text):
        return text, 0
    chars = list(text)
    for i in suspects:
        chars[i] = DIGIT_LOOKALIKES[chars[i]]
    return "".join(chars), len(suspects)


def _is_number_like(word: str) -> bool:
    """Digits, number punctuation and digit look-alikes only: a number (misread or not) that
    no letter rule may touch ("З0.06.2025" is a date, not a word)."""
    return any(ch.isdigit() for ch in word) and all(
        ch.isdigit() or ch in NUMBER_PUNCTUATION or ch in DIGIT_LOOKALIKES for ch in word
    )


def _strong_latin(run: str) -> int:
    """Latin letters that have no Cyrillic look-alike: a word with them is Latin by nature."""
    return sum(1 for ch in run if ch.isascii() and ch.isalpha() and ch not in LATIN_TO_CYRILLIC)


def _cyrillic_count(run: str) -> int:
    return sum(1 for ch in run if _is_cyrillic(ch))


# A lower-case "г" OCR reads as a Latin "r" (their only difference is where the stroke ends):
# in a word of this many letters or more, all others look-alikes ("ArpoPecypc"), it is one.
R_FOR_G_LETTERS = 5


def _r_for_g(run: str) -> bool:
    return (
        run.count("r") == 1
        and _strong_latin(run) == 1
        and sum(ch.isalpha() for ch in run) >= R_FOR_G_LETTERS
    )


def is_cyrillic_text(runs: Iterable[str]) -> bool:
    """Whether words with Cyrillic letters outnumber words Latin by nature."""
    cyrillic = latin = 0
    for run in runs:
        if _cyrillic_count(run):
            cyrillic += 1
        elif _strong_latin(run) and not _r_for_g(run):
            latin += 1
    return cyrillic > latin


def _letters_apart(run: str) -> bool:
    """Letters among digits, no two side by side ("57x3", "M12x60"; not "BY2X", a code)."""
    return any(ch.isalpha() for ch in run) and not any(
        a.isalpha() and b.isalpha() for a, b in itertools.pairwise(run)
    )


def _fold_run(run: str, cyrillic_context: bool) -> str:
    cyrillic = _cyrillic_count(run)
    if cyrillic == 0:
        # A word of look-alikes only ("OOO") is Cyrillic where the text around it is; so is a
        # size or a grade whose look-alikes stand alone among digits ("57x3", "M500").
        if not cyrillic_context or (_strong_latin(run) and not _r_for_g(run)):
            return run
        if any(ch.isdigit() for ch in run) and not _letters_apart(run):
            return run
        return "".join(LATIN_TO_CYRILLIC.get(ch, "г" if ch == "r" else ch) for ch in run)
    if cyrillic <= _strong_latin(run):
        return run
    digits = [ch for ch in run if ch.isdigit()]
    # "3а" is за, but "60а" is a code with a letter: digits go only among as many letters.
    fold_digits = (
        bool(digits) and len(digits) <= cyrillic and all(ch in _DIGIT_TO_CYRILLIC for ch in digits)
    )
    capitals = all(ch.isupper() for ch in run if ch.isalpha())
    out: list[str] = []
    for ch in run:
        if ch in LATIN_TO_CYRILLIC:
            ch = LATIN_TO_CYRILLIC[ch]
        elif fold_digits and ch in _DIGIT_TO_CYRILLIC:
            letter = _DIGIT_TO_CYRILLIC[ch]
            ch = letter.upper() if capitals else letter
        out.append(ch)
    return "".join(out)


@functools.lru_cache(maxsize=65536)
def fold_lookalikes(text: str, cyrillic_context: bool | None = None) -> str:
    """Latin letters and digits that stand in Cyrillic words, turned Cyrillic: "Дeбет" with a
    Latin e, "0бороты", "3а период", and a word of look-alikes only ("OOO", "C") where the text
    is Cyrillic (``cyrillic_context``, judged from the text itself when not given). Numbers,
    and words with Latin letters that have no Cyrillic look-alike (an IBAN, "BYN"), stay."""
    if (text.isascii() and not cyrillic_context) or not _FOLDABLE.search(text):
        return text
    if cyrillic_context is None:
        cyrillic_context = is_cyrillic_text(_RUN.findall(text))

    def fold_word(word: re.Match[str]) -> str:
        if _is_number_like(word.group(0)):
            return word.group(0)
        return _RUN.sub(lambda run: _fold_run(run.group(0), cyrillic_context), word.group(0))

    return _WORD.sub(fold_word, text)


def cyrillic_spelling(word: str) -> str | None:
    """A word of Latin look-alikes only, lower case, spelled in Cyrillic ("kt" is "кт"); None
    when a letter has no Cyrillic look-alike."""
    if not word.isascii() or not word.isalpha():
        return None
    letters = [_LOWERED_TO_CYRILLIC.get(ch) for ch in word.lower()]
    return None if None in letters else "".join(ch for ch in letters if ch)


# --- distance through OCR's confusions -------------------------------------------------------

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
            folded = "".join(_LOWERED_TO_CYRILLIC.get(ch, ch) for ch in word)
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
