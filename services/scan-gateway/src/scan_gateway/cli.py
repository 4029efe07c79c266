"""``scan-gateway`` recognises PDFs (text layer or scanned), PNG and JPG scans sent by arm-core
over NATS."""

from __future__ import annotations

import sys

from recognition_worker.service import run_service
from scan_gateway.settings import ScanSettings
from scan_gateway.tesseract import find_tesseract


def engine_problem(settings: ScanSettings) -> str | None:
    """Why the configured OCR engine cannot work, found before the first request."""
    if settings.ocr_engine == "tesseract" and find_tesseract(settings.tesseract_cmd) is None:
        return (
            f"tesseract not found ({settings.tesseract_cmd!r}); install it with "
            "scripts/install-system-deps.sh or set TESSERACT_CMD"
        )
    if settings.ocr_engine == "http" and not settings.ocr_http_url:
        return "OCR_ENGINE=http needs OCR_HTTP_URL"
    return None


def main(argv: list[str] | None = None) -> int:
    from scan_gateway.app import create_worker

    return run_service(
        "scan-gateway",
        ScanSettings,
        create_worker,
        description=__doc__,
        check=engine_problem,
        argv=argv,
    )


if __name__ == "__main__":
    sys.exit(main())
