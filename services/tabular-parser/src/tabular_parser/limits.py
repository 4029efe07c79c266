"""How much of a workbook the parser is willing to read. Passed to the recognition child, so
it is a plain frozen value."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WorkbookLimits:
    max_sheets: int = 100
    """Sheets beyond this are not read (a warning says so)."""
    max_rows: int = 300_000
    """Rows of one sheet beyond this are not read (a warning says so)."""
    max_columns: int = 512
    """Columns of one sheet beyond this are not read (a warning says so)."""
    max_cells: int = 20_000_000
    """Rows x columns of the area a sheet spans. The reader allocates that whole rectangle,
    so two cells far apart (A1 and XFD1048576) would ask for hundreds of gigabytes: such a
    sheet is skipped before it is loaded."""
    max_uncompressed_bytes: int = 1024**3
    """Sum of the unpacked sizes of the members of an XLSX / XLSB package."""
    max_compression_ratio: int = 500
    """Unpacked / packed size of one large member; a zip bomb is far above, XML sheets far
    below (10-50)."""
    max_zip_members: int = 10_000
