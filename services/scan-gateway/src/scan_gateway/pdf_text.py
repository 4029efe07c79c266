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
    words = [
        Word(
            text=item["text"],
            x0=float(item["x0"]),
            y0=float(item["top"]),
            x1=float(item["x1"]),
            y1=float(item["bottom"]),
        )
        for item in page.extract_words(
            keep_blank_chars=False,
            use_text_flow=False,
            x_tolerance_ratio=X_TOLERANCE_RATIO,
            y_tolerance=Y_TOLERANCE,
        )
    ]
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


def has_text(page: Any) -> bool:
    """Whether the page carries a usable text layer (scanned pages have none, or a few
    stray characters)."""
    text = "".join(
        ch["text"] for ch in page.chars[: MIN_TEXT_CHARS * 4] if not ch["text"].isspace()
    )
    return len(text) >= MIN_TEXT_CHARS
