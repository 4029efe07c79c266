"""``tabular-parser`` recognises XLS, XLSX and XLSB workbooks sent by arm-core over NATS."""

from __future__ import annotations

import sys

from recognition_worker.service import run_service
from tabular_parser.settings import TabularSettings


def main(argv: list[str] | None = None) -> int:
    from tabular_parser.app import create_worker

    return run_service(
        "tabular-parser", TabularSettings, create_worker, description=__doc__, argv=argv
    )


if __name__ == "__main__":
    sys.exit(main())
