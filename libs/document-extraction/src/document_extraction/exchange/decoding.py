"""Bytes of an exchange file into its lines. The bytes decide the encoding: a 1C file may say
``Кодировка=Windows`` and be UTF-8 all the same, so what the file declares is the fallback."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from document_extraction.exchange.model import Refused
from recognition_contract import ErrorCode

UTF8_BOM: Final = b"\xef\xbb\xbf"
# 1C names its encodings in words: ``Windows`` (1251) and ``DOS`` (866).
DECLARED: Final = {"windows": "cp1251", "windows-1251": "cp1251", "dos": "cp866"}
# Control characters never found in a text export; a file with them is binary named .txt.
# Tabs, line ends, form feeds and DOS's end-of-file stay; SWIFT envelopes keep SOH and ETX.
_BINARY: Final = re.compile(rb"[\x00\x02\x04-\x08\x0b\x0e-\x19\x1b-\x1f]")
REPLACEMENT: Final = "\ufffd"


@dataclass(frozen=True, slots=True)
class Text:
    lines: tuple[str, ...]
    encoding: str


def decode(source: bytes, declared: str | None = None) -> Text:
    """The file's lines (without line ends; CRLF, LF and CR alike) and the encoding read.
    ``Refused`` INVALID_FORMAT for binary content."""
    if _BINARY.search(source, 0, 65536) is not None:
        raise Refused(ErrorCode.INVALID_FORMAT, "Файл не текстовый: в нём двоичные данные")
    body = source[len(UTF8_BOM) :] if source.startswith(UTF8_BOM) else source
    encoding = _encoding(body, declared)
    text = body.decode(encoding, errors="replace")
    return Text(tuple(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")), encoding)


def _encoding(body: bytes, declared: str | None) -> str:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        # Cyrillic in cp1251 is never valid UTF-8 beyond a few bytes: valid UTF-8 is UTF-8.
        return "utf-8"
    return DECLARED.get((declared or "").strip().lower(), "cp1251")


def declared_encoding(source: bytes) -> str | None:
    """The value of a 1C ``Кодировка=`` line in the first lines, in any encoding 1C uses."""
    head = source[:4096]
    for key in ("Кодировка=".encode(e) for e in ("cp1251", "utf-8", "cp866")):
        at = head.find(key)
        if at >= 0:
            end = head.find(b"\n", at)
            value = head[at + len(key) : end if end >= 0 else None]
            return value.decode("ascii", errors="ignore").strip() or None
    return None
