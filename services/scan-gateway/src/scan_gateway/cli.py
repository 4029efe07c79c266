"""``scan-gateway`` recognises PDFs (text layer or scanned), PNG and JPG scans sent by arm-core
over NATS."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from arm_ka_platform.logging import configure_logging, get_logger
from arm_ka_platform.settings import SettingsError, load_settings
from scan_gateway.settings import ScanSettings
from scan_gateway.tesseract import find_tesseract


async def serve(settings: ScanSettings) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully."""
    from scan_gateway.app import create_worker

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    worker = create_worker(settings)
    await worker.start()
    try:
        await stop.wait()
    finally:
        await worker.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scan-gateway", description=__doc__)
    parser.parse_args(argv)
    try:
        settings = load_settings(ScanSettings)
    except SettingsError as exc:
        print(f"scan-gateway: {exc}", file=sys.stderr)
        return 2
    if not settings.nats_enabled:
        print("scan-gateway: NATS_ENABLED is false; it has nothing to do", file=sys.stderr)
        return 2
    if settings.ocr_engine == "tesseract" and find_tesseract(settings.tesseract_cmd) is None:
        print(
            f"scan-gateway: tesseract not found ({settings.tesseract_cmd!r}); install it with "
            "scripts/install-system-deps.sh or set TESSERACT_CMD",
            file=sys.stderr,
        )
        return 2
    if settings.ocr_engine == "http" and not settings.ocr_http_url:
        print("scan-gateway: OCR_ENGINE=http needs OCR_HTTP_URL", file=sys.stderr)
        return 2
    configure_logging(debug=settings.debug, json=settings.log_json)
    get_logger("scan_gateway").info("scan_gateway_starting")
    asyncio.run(serve(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
