"""A PDF decompression bomb is refused before any parser reads the file: a bounded pass over
the file's compressed streams counts what they inflate to, holding at most one chunk of output
at a time, and stops as soon as the count passes the limit. pdfminer inflates a stream whole
in memory, so a few kilobytes that inflate to gigabytes would otherwise take the recognition
child's memory before its address-space limit ends it.

Streams are found by their ``stream`` keyword and tried as zlib data (FlateDecode, the filter
nearly every compressed PDF stream uses); a stream that is not zlib data (DCT images, say)
stops at its first bytes and counts nothing.
"""

from __future__ import annotations

import re
import zlib

from recognition_contract import ErrorCode
from recognition_worker import RecognitionError

# "stream" after a stream dictionary, then its end of line (ISO 32000-1, 7.3.8.1); never the
# tail of "endstream".
_STREAM = re.compile(rb"(?<!end)stream(?:\r\n|\n|\r)")
# Input fed, and output taken, a chunk at a time: the pass holds no more than this of either.
_CHUNK = 1024 * 1024


def check_inflation(source: bytes, most: int) -> None:
    """``RecognitionError`` (UNREADABLE) if the PDF's compressed streams together inflate to
    more than ``most`` bytes."""
    total = 0
    for match in _STREAM.finditer(source):
        total += inflated_size(source, match.end(), most - total + 1)
        if total > most:
            raise RecognitionError(
                ErrorCode.UNREADABLE,
                f"the PDF's compressed streams inflate to more than {most // 1024**2} MiB "
                "(a decompression bomb?); this service reads no more",
            )


def inflated_size(source: bytes, start: int, budget: int) -> int:
    """How many bytes the zlib stream at ``start`` inflates to, counted up to ``budget``
    (where counting stops); what broken data inflated to before it broke."""
    inflater = zlib.decompressobj()
    size = 0
    position = start
    try:
        while size < budget and not inflater.eof and position < len(source):
            pending = source[position : position + _CHUNK]
            position += len(pending)
            while pending and size < budget and not inflater.eof:
                out = len(inflater.decompress(pending, _CHUNK))
                if out == 0 and len(inflater.unconsumed_tail) == len(pending):
                    return size  # no progress: nothing more comes of this stream
                size += out
                pending = inflater.unconsumed_tail
    except zlib.error:
        pass
    return size
