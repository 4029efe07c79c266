#!/usr/bin/env python3
"""Check that every copy of the contract equals its source, byte for byte.

The source is ``$ARM_KA_DOCS/contracts`` when ARM_KA_DOCS is set, else ``<root>/docs/contracts``
(``--source`` overrides both). Copies are the ``api/contracts`` directories under ``<root>/libs``
and ``<root>/services``. Every file missing from a copy, extra in it, or different is printed;
the exit status is 1 if there is any. A missing source is only a warning (exit 0), so a package
checked out on its own still passes.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COPY_PARENTS = ("libs", "services")
# Tool and build output never holds a copy and can be huge (.venv, node_modules).
SKIP_DIRS = {"__pycache__", "node_modules", "build", "dist"}


def source_dir(root: Path, explicit: Path | None) -> Path:
    if explicit is not None:
        return explicit
    docs = os.environ.get("ARM_KA_DOCS")
    if docs:
        return Path(docs) / "contracts"
    return root / "docs" / "contracts"


def find_copies(root: Path) -> Iterator[Path]:
    for parent in COPY_PARENTS:
        top = root / parent
        if not top.is_dir():
            continue
        for dirpath, dirnames, _ in os.walk(top):
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS
            )
            here = Path(dirpath)
            if here.name == "contracts" and here.parent.name == "api":
                dirnames[:] = []
                yield here


def files_under(directory: Path) -> set[str]:
    return {
        p.relative_to(directory).as_posix()
        for p in directory.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def compare(source: Path, copy: Path) -> list[str]:
    """One line per problem: ``missing``, ``extra`` or ``differs`` and the file name."""
    wanted, present = files_under(source), files_under(copy)
    problems = [f"missing: {name}" for name in sorted(wanted - present)]
    problems += [f"extra:   {name}" for name in sorted(present - wanted)]
    problems += [
        f"differs: {name}"
        for name in sorted(wanted & present)
        if (source / name).read_bytes() != (copy / name).read_bytes()
    ]
    return problems


def shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root to search")
    parser.add_argument("--source", type=Path, help="contract source directory")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    source = source_dir(root, args.source)

    if not source.is_dir():
        print(f"warning: contract source {source} not found; copy check skipped", file=sys.stderr)
        return 0
    copies = list(find_copies(root))
    if not copies:
        print(f"warning: no api/contracts copies under {root}", file=sys.stderr)
        return 0

    failed = False
    for copy in copies:
        problems = compare(source, copy)
        if problems:
            failed = True
            print(f"{shown(copy, root)} is not a copy of {shown(source, root)}:")
            for problem in problems:
                print(f"  {problem}")
    if failed:
        return 1
    names = ", ".join(shown(c, root) for c in copies)
    print(f"contract copies identical to {shown(source, root)}: {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
