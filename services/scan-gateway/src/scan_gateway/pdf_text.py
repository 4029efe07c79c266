"""The text layer of a PDF page: its words with boxes and its ruling lines (pdfplumber)."""

from __future__ import annotations

from typing import Any

from scan_gateway.words import PageWords, Rule, Word

# Characters closer than this (a share of their size) horizontally are one word. Letters of a
# word are set edge to edge; two cells of a table row are apart by their paddings, which a
# spreadsheet scales with the font when it fits the sheet to the page (about a fifth of the
# size), so a right-aligned number and the name beside it stay two words. pdfplumber's default
# (3 pt) glues them.
X_TOLERANCE_RATIO = 0.12
Y_TOLERANCE = 2.0
# A page with fewer characters than this in its text layer is treated as a scan.
MIN_TEXT_CHARS = 8


def page_words(page: Any, number: int) -> PageWords:
    """Words and rules of one ``pdfplumber`` page, in points from its top-left corner."""
    words: list[Word] = []
    runs = page.extract_words(
        keep_blank_chars=True,
        use_text_flow=False,
        x_tolerance_ratio=X_TOLERANCE_RATIO,
        y_tolerance=Y_TOLERANCE,
        return_chars=True,
    )
    run = 0
    for item in runs:
        for piece in _pieces(item["chars"]):
            run += 1
            words += [_word(chars, run) for chars in _split(piece, " \u00a0") if chars]
    rules: list[Rule] = []
    for edge in page.edges:
        if edge["orientation"] == "h":
            rules.append(Rule("h", float(edge["top"]), float(edge["x0"]), float(edge["x1"])))
        elif edge["orientation"] == "v":
            rules.append(Rule("v", float(edge["x0"]), float(edge["top"]), float(edge["bottom"])))
    return PageWords(
        page=number,
        width=float(page.width),
        height=float(page.height),
        words=words,
        rules=rules,
        source="text",
    )


def _word(chars: list[dict[str, Any]], run: int) -> Word:
    return Word(
        text="".join(ch["text"] for ch in chars),
        x0=min(float(ch["x0"]) for ch in chars),
        y0=min(float(ch["top"]) for ch in chars),
        x1=max(float(ch["x1"]) for ch in chars),
        y1=max(float(ch["bottom"]) for ch in chars),
        run=run,
    )


def _pieces(chars: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """A run cut where two or more blanks follow each other (a report typeset with spaces
    aligns its columns that way), and where a character starts apart from the blank before
    it (a wrapped line's trailing space, then the next cell's text)."""
    pieces: list[list[dict[str, Any]]] = [[]]
    blanks = 0
    previous: dict[str, Any] | None = None
    for ch in chars:
        if ch["text"].isspace():
            blanks += 1
            pieces[-1].append(ch)
            previous = ch
            continue
        apart = previous is not None and (
            float(ch["x0"]) - float(previous["x1"]) > X_TOLERANCE_RATIO * float(ch["size"])
        )
        if blanks >= 2 or (blanks and apart):
            pieces.append([])
        blanks = 0
        pieces[-1].append(ch)
        previous = ch
    return pieces


def _split(chars: list[dict[str, Any]], blanks: str) -> list[list[dict[str, Any]]]:
    words: list[list[dict[str, Any]]] = [[]]
    for ch in chars:
        if ch["text"] in blanks or ch["text"].isspace():
            words.append([])
        else:
            words[-1].append(ch)
    return words


def has_text(page: Any) -> bool:
    """Whether the page carries a usable text layer (scanned pages have none, or a few
    stray characters)."""
    text = "".join(
        ch["text"] for ch in page.chars[: MIN_TEXT_CHARS * 4] if not ch["text"].isspace()
    )
    return len(text) >= MIN_TEXT_CHARS
