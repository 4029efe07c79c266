"""Statements in the formats banks export for accounting: 1CClientBankExchange, SWIFT MT940
and ISO 20022 camt.053. Each format is read into one ``Ledger`` (sections with the balances
they print, entries with both parties), and every ledger becomes statements the same way.

    exchange_format(head: bytes) -> ExchangeFormat | None
    read_exchange(source: bytes) -> ExchangeRead(extraction, lines)
        raises Refused(code, reason) for a file that is not one of them or cannot be read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from document_extraction.accounts import UNKNOWN_CHART
from document_extraction.exchange.camt import read_camt
from document_extraction.exchange.formats import (
    FILE_TYPES,
    HEAD_BYTES,
    ExchangeFormat,
    exchange_format,
)
from document_extraction.exchange.model import TEXT_SHEET, Ledger, Refused
from document_extraction.exchange.mt940 import read_mt940
from document_extraction.exchange.onec import read_onec
from document_extraction.exchange.statements import statements
from document_extraction.extract import Extraction
from document_extraction.findings import needs_check
from recognition_contract import ErrorCode

__all__ = [
    "FILE_TYPES",
    "HEAD_BYTES",
    "TEXT_SHEET",
    "ExchangeFormat",
    "ExchangeRead",
    "Refused",
    "exchange_format",
    "read_exchange",
]

Reader = Callable[[bytes], tuple[Ledger, tuple[str, ...]]]


READERS: dict[ExchangeFormat, Reader] = {
    ExchangeFormat.ONEC: read_onec,
    ExchangeFormat.MT940: read_mt940,
    ExchangeFormat.CAMT053: read_camt,
}


@dataclass(frozen=True)
class ExchangeRead:
    extraction: Extraction
    lines: tuple[str, ...]
    """The file's lines as decoded: the source view shows them."""
    format: ExchangeFormat


def read_exchange(source: bytes) -> ExchangeRead:
    """The statements of an exchange file. ``Refused``: not one of the formats
    (INVALID_FORMAT), damaged (UNREADABLE), or no operations and no balances at all
    (INVALID_DOCUMENT)."""
    found = exchange_format(source[:HEAD_BYTES])
    if found is None:
        raise Refused(
            ErrorCode.INVALID_FORMAT,
            "Файл не является выпиской 1CClientBankExchange, MT940 или camt.053",
        )
    ledger, lines = READERS[found](source)
    documents, warnings = statements(ledger)
    if not documents:
        raise Refused(
            ErrorCode.INVALID_DOCUMENT, f"В файле {found.value} нет ни счёта, ни операций"
        )
    flagged = needs_check(warnings) or any(needs_check(d.warnings) for d in documents)
    extraction = Extraction(
        documents=list(documents),
        warnings=warnings,
        group_schema=UNKNOWN_CHART,
        status="needs_check" if flagged else "done",
    )
    return ExchangeRead(extraction, lines, found)
