"""Which exchange format a file is, from its first bytes: the core decides by them what it
accepts, tabular-parser which reader to use."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Final

from document_extraction.exchange.decoding import UTF8_BOM
from document_extraction.exchange.onec import is_onec
from recognition_contract import FileType

# What the first bytes are searched in (the core reads this much before it stores a file).
HEAD_BYTES: Final = 1024
_MT940_TAGS: Final = re.compile(rb"(?m)^:(?:20|25|28C?|60[FM]):")
_CAMT: Final = re.compile(rb"camt\.053\.|<BkToCstmrStmt[\s>]")
_XML: Final = re.compile(rb"^\s*<")


class ExchangeFormat(StrEnum):
    ONEC = "1CClientBankExchange"
    MT940 = "MT940"
    CAMT053 = "camt.053"


FILE_TYPES: Final[Mapping[ExchangeFormat, FileType]] = {
    ExchangeFormat.ONEC: FileType.TXT,
    ExchangeFormat.MT940: FileType.TXT,
    ExchangeFormat.CAMT053: FileType.XML,
}
"""The contract's file type of each format."""


def exchange_format(head: bytes) -> ExchangeFormat | None:
    """The format the first bytes announce, or None for anything else (another text, another
    XML, a binary file)."""
    body = head[len(UTF8_BOM) :] if head.startswith(UTF8_BOM) else head
    body = body[:HEAD_BYTES]
    if _XML.match(body):
        return ExchangeFormat.CAMT053 if _CAMT.search(body) else None
    if any(is_onec(body.decode(encoding, errors="ignore")) for encoding in ("cp1251", "utf-8")):
        return ExchangeFormat.ONEC
    if len(set(_MT940_TAGS.findall(body.replace(b"\r\n", b"\n")))) >= 2:
        return ExchangeFormat.MT940
    return None
