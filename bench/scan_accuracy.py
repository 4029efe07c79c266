"""Field accuracy of scan-gateway per kind of input, and seconds per page.

    python -m bench scan_accuracy
    python -m bench.scan_accuracy --seed 0 --per-family 3 [--families osv-by,statement-prior]

Corpus layouts (general ОСВ BY/RU, per-account, statements, broken totals and balances) are
rendered as text-layer PDFs (ruled and unruled tables), clean scans (PNG, 200 dpi) and noisy
scans (JPG, 200 dpi, turned 1-2 degrees, noise, blur, JPEG artefacts). Scans of layouts that
run over several pages become image-only PDFs. Each is recognised as the gateway does it (in
this process, Tesseract with OMP_THREAD_LIMIT=1) and compared with its expected documents:

* field accuracy: expected document fields (values, codes, names, hierarchy, page lines;
  not boxes, confidences or warnings) read right, over all of them;
* exact: files whose documents and warnings match entirely (as the text-PDF tests demand);
* s/page: wall time of recognition per page.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from recognition_corpus import generate
from recognition_corpus.compare_pages import field_accuracy, page_differences
from scan_gateway import testing

FAMILIES = (
    "osv-by",
    "osv-ru",
    "osv-account",
    "osv-broken-totals",
    "statement-prior",
    "statement-belarusbank",
    "statement-broken-balance",
)


def _renderings(layout: object) -> list[testing.Rendered]:
    out: list[testing.Rendered | None] = [
        testing.text_pdf(layout, ruled=True),  # type: ignore[arg-type]
        testing.text_pdf(layout, ruled=False),  # type: ignore[arg-type]
    ]
    for noisy, file_type in ((False, "PNG"), (True, "JPG")):
        image = testing.scan(layout, noisy=noisy, file_type=file_type)  # type: ignore[arg-type]
        if image is None:  # more than one page: an image-only PDF instead
            image = testing.scan(layout, noisy=noisy, file_type="PDF")  # type: ignore[arg-type]
        out.append(image)
    return [r for r in out if r is not None]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench.scan_accuracy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-family", type=int, default=3)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--show-diffs", action="store_true")
    args = parser.parse_args(argv if argv is not None else [])
    layouts = generate(args.seed, args.per_family, args.families.split(","))
    good: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    exact: dict[str, int] = defaultdict(int)
    files: dict[str, int] = defaultdict(int)
    pages: dict[str, int] = defaultdict(int)
    seconds: dict[str, float] = defaultdict(float)
    for layout in layouts:
        for rendered in _renderings(layout):
            started = time.perf_counter()
            actual = testing.read_back(rendered)
            seconds[rendered.kind] += time.perf_counter() - started
            pages[rendered.kind] += rendered.pages
            files[rendered.kind] += 1
            ok, count = field_accuracy(rendered.expected, actual)
            good[rendered.kind] += ok
            total[rendered.kind] += count
            diffs = page_differences(rendered.expected, actual)
            exact[rendered.kind] += not diffs
            if args.show_diffs and diffs:
                print(f"  {rendered.name}: {len(diffs)} differences, e.g. {diffs[:3]}")
    print(
        f"{'kind':<12} {'files':>5} {'pages':>5} {'field accuracy':>15} {'exact':>7} {'s/page':>7}"
    )
    for kind in ("text-pdf", "clean-scan", "noisy-scan"):
        if not files[kind]:
            continue
        accuracy = good[kind] / max(1, total[kind])
        print(
            f"{kind:<12} {files[kind]:>5} {pages[kind]:>5} {accuracy:>14.2%} "
            f"{exact[kind]:>3}/{files[kind]:<3} {seconds[kind] / pages[kind]:>7.2f}"
        )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
