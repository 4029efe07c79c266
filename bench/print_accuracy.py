"""Accuracy of scan-gateway on workbooks printed by a real spreadsheet program, then scanned
and photographed: the files analysts actually upload.

    python -m bench print_accuracy
    python -m bench.print_accuracy --seed 8808 --count 40 [--kinds print-pdf,scan-300,photo]
        [--jobs 2] [--show-diffs N] [--save DIR]

Layouts of ``recognition_corpus.axes`` (every axis of the tabular corpus) are printed through
LibreOffice headless with a page setup drawn on its own axes (font, size, borders, wrapped
columns, orientation, repeated header; ``recognition_corpus.printing``) and become:

* print-pdf: the PDF LibreOffice wrote (a text layer);
* scan-300 / scan-200 / scan-150: its pages scanned at that resolution (a slight turn, noise,
  some JPEG), as PNG/JPG, or an image-only PDF for several pages;
* photo: its pages photographed with a phone (turned up to 3 degrees, perspective, grey uneven
  paper, shadow, desk border, blur, noise, JPEG 50-70).

Each file is recognised as the gateway does it (Tesseract single-threaded, OMP_THREAD_LIMIT=1)
and compared with the layout's expected documents without locators (a printer decides where
a row lands): field accuracy (expected leaf fields read right), exact files, seconds per page
(per process; ``--jobs`` processes run side by side). Then field accuracy per axis value,
worst first. The default seed is one no test uses; numbers are reported, never asserted.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recognition_corpus.axes import generate_axes
from recognition_corpus.compare_pages import field_accuracy, page_differences
from recognition_corpus.printing import print_setup
from scan_gateway import testing

BENCH_SEED = 8808


@dataclass
class Outcome:
    name: str
    kind: str
    pages: int
    seconds: float
    fields: tuple[int, int]
    diffs: list[str]
    params: dict[str, Any]


def _run(rendered: testing.Rendered) -> Outcome:
    started = time.perf_counter()
    actual = testing.read_back(rendered)
    seconds = time.perf_counter() - started
    return Outcome(
        rendered.name,
        rendered.kind,
        rendered.pages,
        seconds,
        field_accuracy(rendered.expected, actual, locators=False),
        page_differences(rendered.expected, actual, locators=False),
        rendered.params,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench.print_accuracy")
    parser.add_argument("--seed", type=int, default=BENCH_SEED)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--kinds", default=",".join(testing.PRINTED_KINDS))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--show-diffs", type=int, default=0)
    parser.add_argument("--save", type=Path, help="also write every file here")
    args = parser.parse_args(argv if argv is not None else [])
    layouts = generate_axes(args.seed, args.count)
    started = time.perf_counter()
    files = testing.printed(
        [(layout, print_setup(args.seed, k)) for k, layout in enumerate(layouts)],
        args.kinds.split(","),
    )
    print(f"{len(files)} files printed and scanned in {time.perf_counter() - started:.0f} s")
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        for rendered in files:
            (args.save / rendered.name).write_bytes(rendered.data)
    if args.jobs > 1:
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            outcomes = pool.map(_run, files, chunksize=1)
    else:
        outcomes = [_run(rendered) for rendered in files]
    _report(outcomes, args.show_diffs)


def _report(outcomes: list[Outcome], show_diffs: int) -> None:
    print(
        f"{'kind':<10} {'files':>5} {'pages':>5} {'field accuracy':>15} {'exact':>9} {'s/page':>7}"
    )
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_kind[outcome.kind].append(outcome)
    for kind in testing.PRINTED_KINDS:
        items = by_kind.get(kind)
        if not items:
            continue
        good = sum(o.fields[0] for o in items)
        total = sum(o.fields[1] for o in items)
        exact = sum(not o.diffs for o in items)
        pages = sum(o.pages for o in items)
        seconds = sum(o.seconds for o in items)
        print(
            f"{kind:<10} {len(items):>5} {pages:>5} {good / max(total, 1):>14.2%} "
            f"{exact:>4}/{len(items):<4} {seconds / max(pages, 1):>7.2f}"
        )
    values: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        for axis, value in outcome.params.items():
            values[(axis, str(value))].append(outcome)
    rows = []
    for (axis, value), items in values.items():
        good = sum(o.fields[0] for o in items)
        total = sum(o.fields[1] for o in items)
        rows.append(
            (good / max(total, 1), axis, value, len(items), sum(not o.diffs for o in items))
        )
    rows.sort()
    print("\nworst axis values (all kinds): field accuracy, exact/files")
    for share, axis, value, count, exact in rows[:25]:
        print(f"  {axis}={value}: {share:.1%}  {exact}/{count}")
    if show_diffs:
        print("\nfailing files, fewest differences first")
        failing = sorted((o for o in outcomes if o.diffs), key=lambda o: len(o.diffs))
        for outcome in failing[:20]:
            print(f"  {outcome.name}: {len(outcome.diffs)} differences")
            for diff in outcome.diffs[:show_diffs]:
                print(f"    {diff[:200]}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
