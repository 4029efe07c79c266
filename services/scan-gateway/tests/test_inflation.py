"""A PDF decompression bomb (a page whose few compressed megabytes inflate to 640 MiB) is
refused before any parser reads it, while the recognition stays far below the bound the
settings state; a PDF within the bound is read as before."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
import zlib
from pathlib import Path

import pytest

from recognition_contract import ErrorCode
from recognition_worker import RecognitionError
from scan_gateway.inflation import check_inflation, inflated_size
from scan_gateway.limits import ScanLimits

GIB = 1024**3
MIB = 1024**2


def _deflated(size: int) -> bytes:
    """``size`` spaces (valid, empty page content), deflated a megabyte at a time (level 1:
    fast, and still a few megabytes for hundreds)."""
    packer = zlib.compressobj(1)
    chunk = b" " * MIB
    parts = [packer.compress(chunk) for _ in range(size // MIB)]
    return b"".join([*parts, packer.flush()])


def pdf_with_content(stream: bytes) -> bytes:
    """A one-page PDF whose page content is ``stream`` (FlateDecode), with a valid xref."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bomb") / "bomb.pdf"
    # Past the 512 MiB the settings allow by a quarter.
    path.write_bytes(pdf_with_content(_deflated(640 * MIB)))
    return path


def test_a_bomb_is_refused_holding_a_few_megabytes(bomb: Path) -> None:
    source = bomb.read_bytes()
    assert len(source) < 4 * MIB
    tracemalloc.start()
    try:
        with pytest.raises(RecognitionError) as refused:
            check_inflation(source, ScanLimits().max_inflated_bytes)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refused.value.code is ErrorCode.UNREADABLE
    assert "512 MiB" in refused.value.message
    assert peak < 8 * MIB


def test_streams_are_counted_whole_and_other_data_counts_nothing() -> None:
    small = pdf_with_content(_deflated(3 * MIB))
    check_inflation(small, 4 * MIB)
    with pytest.raises(RecognitionError):
        check_inflation(small, 2 * MIB)
    assert inflated_size(b"\xff\xd8\xff\xe0 not zlib", 0, GIB) == 0
    assert inflated_size(zlib.compress(b"x" * 100)[:-4], 0, GIB) == 100


_RECOGNIZE = """
import sys
from recognition_contract import FileType
from recognition_worker import RecognitionError
from scan_gateway.limits import ScanLimits
from scan_gateway.ocr import EngineConfig
from scan_gateway.recognize import recognize

source = open(sys.argv[1], "rb").read()
try:
    recognize(ScanLimits(), EngineConfig(), FileType.PDF, source, "bomb.pdf")
    print("read")
except RecognitionError as exc:
    print(exc.code.value, exc.message)
except MemoryError:
    print("MemoryError")
# The peak resident memory of this process image (ru_maxrss would carry the forking
# parent's from before the exec).
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(int(hwm.split()[1]) * 1024)
"""


def test_the_recognition_refuses_a_bomb_below_the_stated_bound(bomb: Path) -> None:
    """The whole recognition of the file, in a process of its own as the worker's child
    is: refused, its peak memory far below the 512 MiB the settings state."""
    result = subprocess.run(
        [sys.executable, "-c", _RECOGNIZE, str(bomb)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    outcome, peak = result.stdout.strip().splitlines()[-2:]
    assert outcome.startswith("UNREADABLE") and "inflate" in outcome, outcome
    assert int(peak) < ScanLimits().max_inflated_bytes // 2, peak
