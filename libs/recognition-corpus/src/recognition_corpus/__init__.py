"""Test corpus: DOMAIN.md's trial balance and bank statement layouts in many variants, each with
the document a correct recognition produces, written as XLSX, XLS and XLSB.

    generate(seed=0, per_family=8, families=None) -> list[Layout]
    Layout(name, family, sheets, expected, expected_plain, requires, params)
        .expected_for(formats=..., outlines=...) -> Expected | None
    write_xlsx(layout, path) / write_xls(layout, path) / write_xlsb(layout, path)
    read_grids(path) -> list[Grid]   (python-calamine; XLSX outline levels and formats from XML)
    check_layout(layout, fmt, directory) -> list[str] | None  (differences; None: not applicable)
    expected_of(status, group_schema, documents, warnings) -> Expected  (typed documents as JSON)

Layouts are data (sheets of cells with formats, outline levels and merges), separate from the
writers, so that other renderings (PDF, PNG) can draw the same layouts.
``python -m recognition_corpus OUTDIR`` writes the files and ``expected/*.json``.
"""

from recognition_corpus.compare import (
    check_layout,
    differences,
    expected_of,
    normalise,
    recognise,
)
from recognition_corpus.generate import FAMILIES, generate
from recognition_corpus.layout import (
    MERGES,
    NUMBER_FORMATS,
    OUTLINE_LEVELS,
    Expected,
    Layout,
    Sheet,
)
from recognition_corpus.readback import read_grids, xlsx_details
from recognition_corpus.writers import (
    FORMATS,
    UNSUPPORTED,
    capitalise_shared_strings,
    write,
    write_xls,
    write_xlsb,
    write_xlsx,
)

__all__ = [
    "FAMILIES",
    "FORMATS",
    "MERGES",
    "NUMBER_FORMATS",
    "OUTLINE_LEVELS",
    "UNSUPPORTED",
    "Expected",
    "Layout",
    "Sheet",
    "capitalise_shared_strings",
    "check_layout",
    "differences",
    "expected_of",
    "generate",
    "normalise",
    "read_grids",
    "recognise",
    "write",
    "write_xls",
    "write_xlsb",
    "write_xlsx",
    "xlsx_details",
]
