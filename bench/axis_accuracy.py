"""Recognition accuracy per variation axis value, over layouts composed from independent axes.

    python -m bench axis_accuracy
    python -m bench.axis_accuracy --seed 9001 --count 600 [--formats xlsx,xls,xlsb] [--show-diffs N]

Each layout of ``recognition_corpus.axes.generate_axes`` is written in each format, read back and
recognised as bench/corpus_accuracy.py does, and compared with its expected documents. Printed:
exact matches overall and per format; per axis value the files, exact-match share, exact share
when confidences are left out, and field accuracy (the share of expected leaf fields that match,
confidences and warnings aside), worst first; and the seconds per file, slowest first.
``--show-diffs N`` prints, for each of the ten worst axis values, the failing file with the fewest
differences and its first N of them. The default seed is one no test uses; numbers are
reported, never asserted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recognition_corpus import FORMATS, Layout, differences, normalise, recognise, write
from recognition_corpus.axes import AXES, NOT_APPLICABLE, generate_axes
from recognition_corpus.compare_pages import field_accuracy
from recognition_corpus.layout import Expected


@dataclass
class Tally:
    files: int = 0
    exact: int = 0
    exact_values: int = 0  # exact once confidences are left out
    fields: int = 0
    fields_total: int = 0
    seconds: float = 0.0
    done_wrong: int = 0  # marked done while a value of a document is wrong
    example: tuple[str, list[str]] | None = None

    def add(self, outcome: Outcome) -> None:
        self.files += 1
        self.exact += not outcome.diffs
        self.exact_values += not outcome.value_diffs
        self.fields += outcome.fields[0]
        self.fields_total += outcome.fields[1]
        self.seconds += outcome.seconds
        self.done_wrong += outcome.done_wrong
        # The failing file with the fewest differences: the likeliest to fail for this value.
        if outcome.diffs and (self.example is None or len(outcome.diffs) < len(self.example[1])):
            self.example = (outcome.name, outcome.diffs)

    @property
    def exact_share(self) -> float:
        return 100 * self.exact / max(self.files, 1)

    @property
    def field_share(self) -> float:
        return 100 * self.fields / max(self.fields_total, 1)


@dataclass
class Outcome:
    name: str
    diffs: list[str]
    value_diffs: list[str]
    fields: tuple[int, int]
    seconds: float
    params: dict[str, Any] = field(default_factory=dict)
    done_wrong: bool = False


def _without_confidence(data: dict[str, Any]) -> dict[str, Any]:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "confidence"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(data)  # type: ignore[no-any-return]


def run_one(layout: Layout, fmt: str, directory: Path) -> Outcome | None:
    rich = fmt == "xlsx"  # as check_layout: formats and outline levels from the XLSX sheet XML
    expected = layout.expected_for(formats=rich, outlines=rich)
    if expected is None:
        return None
    path = directory / f"{layout.name}.{fmt}"
    started = time.perf_counter()
    write(layout, path, fmt)
    actual: Expected = recognise(path)
    seconds = time.perf_counter() - started
    path.unlink(missing_ok=True)
    want, got = normalise(expected), normalise(actual)
    diffs = differences(want, got)
    value_diffs = differences(_without_confidence(want), _without_confidence(got)) if diffs else []
    # Warnings aside: a value, a row or an operation the analyst would trust is wrong.
    wrong = [d for d in value_diffs if "warnings" not in d and "status" not in d]
    return Outcome(
        f"{layout.name}.{fmt}",
        diffs,
        value_diffs,
        field_accuracy(expected, actual),
        seconds,
        done_wrong=actual.status == "done" and bool(wrong),
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench.axis_accuracy")
    parser.add_argument("--seed", type=int, default=9001)
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--show-diffs", type=int, default=0, metavar="N")
    args = parser.parse_args(argv if argv is not None else [])
    formats = [f for f in args.formats.split(",") if f]
    started = time.perf_counter()
    layouts = generate_axes(args.seed, args.count)
    overall = Tally()
    per_format: dict[str, Tally] = defaultdict(Tally)
    per_kind: dict[str, Tally] = defaultdict(Tally)
    per_value: dict[tuple[str, str, str], Tally] = defaultdict(Tally)
    not_applicable = 0
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for layout in layouts:
            kind = layout.params["kind"]
            for fmt in formats:
                outcome = run_one(layout, fmt, directory)
                if outcome is None:
                    not_applicable += 1
                    continue
                overall.add(outcome)
                per_format[fmt].add(outcome)
                per_kind[kind].add(outcome)
                for axis in AXES[kind]:
                    value = layout.params.get(axis, NOT_APPLICABLE)
                    if value != NOT_APPLICABLE:
                        per_value[(kind, axis, str(value))].add(outcome)
    elapsed = time.perf_counter() - started

    print(
        f"axes: seed {args.seed}, {len(layouts)} layouts x {len(formats)} formats "
        f"({overall.files} files, {not_applicable} not applicable), {elapsed:.1f} s"
    )
    print()
    print(
        "| | files | exact | exact, confidence aside | field accuracy | done while wrong | s/file |"
    )
    print("|---|---|---|---|---|---|---|")

    def line(label: str, t: Tally) -> str:
        return (
            f"| {label} | {t.files} | {t.exact}/{t.files} ({t.exact_share:.1f}%) | "
            f"{100 * t.exact_values / max(t.files, 1):.1f}% | {t.field_share:.1f}% | "
            f"{t.done_wrong} | {t.seconds / max(t.files, 1):.3f} |"
        )

    print(line("**all**", overall))
    for fmt in formats:
        print(line(fmt, per_format[fmt]))
    for kind in sorted(per_kind):
        print(line(kind, per_kind[kind]))
    print()
    print("Per axis value, worst first:")
    print()
    print("| kind | axis | value | files | exact % | exact % (conf. aside) | field % | s/file |")
    print("|---|---|---|---|---|---|---|---|")
    ranked = sorted(
        per_value.items(), key=lambda item: (item[1].exact_share, item[1].field_share, item[0])
    )
    for (kind, axis, value), t in ranked:
        print(
            f"| {kind} | {axis} | {value} | {t.files} | {t.exact_share:.1f} | "
            f"{100 * t.exact_values / max(t.files, 1):.1f} | {t.field_share:.1f} | "
            f"{t.seconds / max(t.files, 1):.3f} |"
        )
    print()
    print("Slowest axis values (seconds per file):")
    slowest = sorted(per_value.items(), key=lambda item: -item[1].seconds / max(item[1].files, 1))
    for (kind, axis, value), t in slowest[:10]:
        print(f"  {kind} {axis}={value}: {t.seconds / max(t.files, 1):.3f} s ({t.files} files)")
    if args.show_diffs:
        print()
        print("Worst axis values, one failing file each:")
        for (kind, axis, value), t in ranked[:10]:
            if t.example is None:
                continue
            name, diffs = t.example
            print(f"\n{kind} {axis}={value} ({t.exact_share:.1f}% exact): {name}")
            for diff in diffs[: args.show_diffs]:
                print(f"    {diff}")
            if len(diffs) > args.show_diffs:
                print(f"    ... {len(diffs) - args.show_diffs} more")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
