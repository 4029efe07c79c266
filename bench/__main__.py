"""``make bench``: run every benchmark module of this package (each has ``main() -> None``).

``python -m bench exchange`` runs one by name.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import bench


def main(argv: list[str]) -> None:
    names = argv or sorted(
        m.name for m in pkgutil.iter_modules(bench.__path__) if not m.name.startswith("_")
    )
    for name in names:
        module = importlib.import_module(f"bench.{name}")
        runner = getattr(module, "main", None)
        if runner is None:
            continue
        print(f"== {name}", flush=True)
        runner()


if __name__ == "__main__":
    main(sys.argv[1:])
