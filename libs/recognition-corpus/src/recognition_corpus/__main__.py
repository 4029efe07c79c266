"""python -m recognition_corpus OUTDIR [--seed N] [--per-family N] [--formats xlsx,xls,xlsb]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from recognition_corpus.generate import generate
from recognition_corpus.writers import FORMATS, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recognition_corpus", description=__doc__)
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-family", type=int, default=8)
    parser.add_argument("--formats", default=",".join(FORMATS))
    args = parser.parse_args(argv)
    formats = [f for f in args.formats.split(",") if f]
    unknown = set(formats) - set(FORMATS)
    if unknown:
        parser.error(f"unknown formats: {', '.join(sorted(unknown))}")
    outdir: Path = args.outdir
    expected_dir = outdir / "expected"
    expected_dir.mkdir(parents=True, exist_ok=True)
    layouts = generate(args.seed, args.per_family)
    for layout in layouts:
        for fmt in formats:
            write(layout, outdir / f"{layout.name}.{fmt}", fmt)
        payload = {
            "name": layout.name,
            "family": layout.family,
            "requires": sorted(layout.requires),
            "expected": layout.expected.as_dict(),
            "expected_without_formats": layout.expected_plain.as_dict(),
        }
        (expected_dir / f"{layout.name}.json").write_text(
            json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    print(f"{len(layouts)} layouts x {len(formats)} formats written to {outdir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
