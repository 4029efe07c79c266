"""A one-letter word OCR read into its neighbour is parted from it where the page shows a
space between them."""

from __future__ import annotations

import numpy as np
from PIL import Image

from scan_gateway.lost_spaces import with_lost_spaces
from scan_gateway.words import Word

HEIGHT = 20
ADVANCE = 12  # a letter's box is 10 wide, 2 apart from the next


def _printed(
    text: str, spaces: dict[int, int], ink_between: bool = False
) -> tuple[Word, Image.Image]:
    """``text`` read as one word, its letters drawn as bars; ``spaces``: the extra blank
    before the letter at that position. With ``ink_between``, the blanks are inked over (OCR
    drew the boxes apart where the page prints the letters close)."""
    page = np.full((60, 40 + ADVANCE * len(text) + sum(spaces.values())), 255, dtype=np.uint8)
    chars, x = [], 20
    for k in range(len(text)):
        if k in spaces:
            if ink_between:
                page[22:38, x : x + spaces[k]] = 0
            x += spaces[k]
        page[20:40, x : x + 10] = 0
        chars.append((float(x), float(x + 10)))
        x += ADVANCE
    word = Word(text, chars[0][0], 20.0, chars[-1][1], 20.0 + HEIGHT, 95.0, chars=tuple(chars))
    return word, Image.fromarray(page)


def test_a_conjunction_read_into_the_word_before_it_is_a_word_of_its_own() -> None:
    word, page = _printed("поставщикамии", {12: 12})
    assert [w.text for w in with_lost_spaces([word], page)] == ["поставщиками", "и"]


def test_a_preposition_read_into_the_word_after_it_is_a_word_of_its_own() -> None:
    word, page = _printed("вт.ч.", {1: 12})
    parts = with_lost_spaces([word], page)
    assert [w.text for w in parts] == ["в", "т.ч."]
    assert parts[1].x0 == word.chars[1][0] and parts[1].x1 == word.x1


def test_letters_set_as_close_as_a_words_stay_one_word() -> None:
    word, page = _printed("поставщиками", {11: 3})
    assert with_lost_spaces([word], page) == [word]


def test_boxes_apart_where_the_page_prints_the_letters_close_stay_one_word() -> None:
    word, page = _printed("поставщикамии", {12: 12}, ink_between=True)
    assert with_lost_spaces([word], page) == [word]


def test_a_preposition_read_into_an_abbreviation_no_word_starts_with_is_parted_anyway() -> None:
    # "в т.ч." printed with a space narrower than OCR and the page could tell.
    word, page = _printed("вт.ч.", {1: 2})
    assert [w.text for w in with_lost_spaces([word], page)] == ["в", "т.ч."]
