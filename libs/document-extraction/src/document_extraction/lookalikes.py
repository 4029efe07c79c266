"""What OCR confuses: glyphs that print alike in Latin, Cyrillic and digits, and how far apart
two words are when the letters OCR mixes up count for less than others.

Its rules, each kept here once:

* a number misread with a letter or two that look like digits gets its digits back
  (``repair_number``: "2O25" is 2025; "BPSBBY2X", a BIC, stays letters);
* a word that is Cyrillic gets its Latin and digit look-alikes turned Cyrillic
  (``fold_lookalikes``: "Дeбет", "0бороты", "3а", and "OOO" or "ArpoPecypc", its "г" read as
  "r", among Cyrillic words), while words Latin by nature (an IBAN, a BIC, "BYN") stay as
  they are;
* a word that is not known is the known word it is nearest to through OCR's confusions
  (``misreads``).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable
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
LOWERED_TO_CYRILLIC: Final = {
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
    letters = [LOWERED_TO_CYRILLIC.get(ch) for ch in word.lower()]
    return None if None in letters else "".join(ch for ch in letters if ch)
