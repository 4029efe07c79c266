"""Exact-match rate of recognition over the generated corpus, per layout family and format.

    python -m bench corpus_accuracy
    python -m bench.corpus_accuracy --seed 0 --per-family 20 [--show-diffs]

Every layout is written as XLSX, XLS and XLSB, read back with python-calamine (plus the XLSX
sheet XML for outline levels and number formats), recognised, and compared with its expected
document field by field (warning messages excepted). "n/a" counts layouts whose expected result
needs a reader feature that format's reader lacks (outline levels from XLS/XLSB).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from recognition_corpus import FORMATS, check_layout, generate


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench.corpus_accuracy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-family", type=int, default=20)
    parser.add_argument("--show-diffs", action="store_true")
    args = parser.parse_args(argv if argv is not None else [])
    started = time.perf_counter()
    layouts = generate(args.seed, args.per_family)
    exact: dict[tuple[str, str], int] = defaultdict(int)
    total: dict[tuple[str, str], int] = defaultdict(int)
    skipped: dict[tuple[str, str], int] = defaultdict(int)
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for layout in layouts:
            for fmt in FORMATS:
                key = (layout.family, fmt)
                diffs = check_layout(layout, fmt, directory)
                if diffs is None:
                    skipped[key] += 1
                    continue
                total[key] += 1
                if diffs:
                    failures.append(f"{layout.name}.{fmt}: " + "; ".join(diffs[:5]))
                else:
                    exact[key] += 1
                (directory / f"{layout.name}.{fmt}").unlink(missing_ok=True)
    elapsed = time.perf_counter() - started
    families = sorted({layout.family for layout in layouts})
    print(
        f"corpus: seed {args.seed}, {len(layouts)} layouts x {len(FORMATS)} formats, "
        f"{elapsed:.1f} s"
    )
    print()
    print("| layout family | " + " | ".join(FORMATS) + " |")
    print("|---|" + "---|" * len(FORMATS))
    for family in families:
        cells = []
        for fmt in FORMATS:
            key = (family, fmt)
            if total[key] == 0:
                cells.append(f"n/a ({skipped[key]})")
            else:
                cells.append(f"{exact[key]}/{total[key]} ({100 * exact[key] / total[key]:.0f}%)")
        print(f"| {family} | " + " | ".join(cells) + " |")
    all_exact = sum(exact.values())
    all_total = sum(total.values())
    per_format = []
    for fmt in FORMATS:
        e = sum(v for (_, f), v in exact.items() if f == fmt)
        t = sum(v for (_, f), v in total.items() if f == fmt)
        per_format.append(f"{e}/{t}")
    print("| **all** | " + " | ".join(per_format) + " |")
    print()
    print(
        f"exact matches: {all_exact}/{all_total} ({100 * all_exact / max(all_total, 1):.1f}%), "
        f"not applicable: {sum(skipped.values())}"
    )
    if failures and args.show_diffs:
        print("\n".join(failures[:50]))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
