"""scan-gateway end to end: requests on a real nats-server, sources, results and raw words in
real storage, recognition (and Tesseract) in the sandboxed child."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from PIL import Image

from arm_ka_devstack.nats_server import NatsServer
from recognition_contract import (
    TrialBalance,
    ack_msg_id,
    parse_result_file,
    raw_prefix,
    result_key,
    result_msg_id,
)
from recognition_corpus import generate
from recognition_worker.testing import ResultCollector
from scan_gateway import testing
from scan_gateway.images import open_image
from scan_gateway.ocr import EngineConfig, make_engine

pytestmark = pytest.mark.timeout(90)

OSV = generate(seed=3, per_family=1, families=["osv-by"])[0]
TEXT_PDF = testing.text_pdf(OSV, ruled=True)
assert TEXT_PDF is not None


def outcome_code(received: Any) -> str | None:
    return received.envelope.error.code.value if received.envelope.error else None


@pytest.mark.parametrize("storage_settings", ["local", "s3"], indirect=True)
async def test_text_pdf_is_acked_recognised_and_result_and_raw_words_precede_the_envelope(
    nats_server: NatsServer, gateway: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await gateway(nats_server.url)
    present: dict[str, bool] = {}

    async def probe(received: Any) -> None:
        for key in (
            received.envelope.result_s3.key if received.envelope.result_s3 else None,
            received.envelope.raw_s3_key,
        ):
            if key is not None:
                present[key] = await worker.storage.exists(key)

    collector.probe = probe
    request = await send(worker, collector, TEXT_PDF.data, original_name="ОСВ.pdf")
    ack, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert (ack.status, ack.msg_id) == ("processing", ack_msg_id(request["job_id"], 1))
    assert ack.envelope.service.name == "scan-gateway"
    assert (outcome.status, outcome.msg_id) == ("done", result_msg_id(request["job_id"], 1))
    raw_key = raw_prefix(request["file_id"], request["job_id"])
    key = result_key(request["file_id"], request["job_id"])
    assert outcome.payload["raw_s3_key"] == raw_key
    assert present[key] and await worker.storage.exists(raw_key + "pages.json")
    assert outcome.envelope.metrics["pages"] == 1
    assert outcome.envelope.metrics["ocr_pages"] == 0
    result = parse_result_file(await worker.storage.get(key), majors=(2,))
    assert result.group_schema == OSV.expected.group_schema
    document = result.documents[0]
    assert isinstance(document, TrialBalance)
    assert [r.code for r in document.rows] == [r["code"] for r in OSV.expected.documents[0]["rows"]]
    raw = json.loads(await worker.storage.get(raw_key + "words.json"))
    (page,) = raw["pages"]
    assert (page["page"], page["source"], page["unit"]) == (1, "text", "pt")
    assert any(w["text"] == "Итого" and w["confidence"] is None for w in page["words"])
    await _assert_page_view(worker, raw_key, page)


async def _assert_page_view(worker: Any, prefix: str, page: dict[str, Any]) -> None:
    """The page's image is kept beside its words, in their frame: the same proportions."""
    index = json.loads(await worker.storage.get(prefix + "pages.json"))
    assert index["pages"] == [{"page": 1, "image": "page-1.jpg", "source": page["source"]}]
    view = Image.open(io.BytesIO(await worker.storage.get(prefix + "page-1.jpg")))
    assert view.format == "JPEG" and view.width <= 1400
    assert view.width / view.height == pytest.approx(page["width"] / page["height"], rel=0.01)


async def test_scanned_jpg_goes_through_ocr_with_word_confidences_in_the_raw_output(
    nats_server: NatsServer, gateway: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await gateway(nats_server.url)
    rendered = testing.scan(OSV, noisy=True, file_type="JPG")
    assert rendered is not None
    request = await send(
        worker, collector, rendered.data, file_type="JPG", original_name="скан.jpg"
    )
    _, outcome = await collector.wait_for(request["job_id"], timeout=60)
    assert outcome.status in ("done", "needs_check")
    assert outcome.envelope.metrics["ocr_pages"] == 1
    raw_key = outcome.payload["raw_s3_key"]
    raw = json.loads(await worker.storage.get(raw_key + "words.json"))
    (page,) = raw["pages"]
    assert page["source"] == "ocr" and page["unit"] == "px"
    await _assert_page_view(worker, raw_key, page)
    # The scan was turned by 1-2 degrees; the gateway turned it back.
    assert 0.5 <= abs(page["angle"]) <= 2.5
    confidences = [w["confidence"] for w in page["words"]]
    assert confidences and all(0 <= c <= 100 for c in confidences)
    assert all(0 <= v <= 1 for w in page["words"] for v in w["bbox"])
    result = parse_result_file(await worker.storage.get(outcome.envelope.result_s3.key))
    (document,) = result.documents
    assert isinstance(document, TrialBalance)
    assert all(row.locator.page == 1 and row.locator.bbox for row in document.rows)


HOSTILE = [
    ("zero-bytes", lambda: b"", "PDF", "INVALID_FORMAT"),
    ("not-a-scan", lambda: b"PK\x03\x04 a zip, not a scan", "PNG", "INVALID_FORMAT"),
    ("encrypted", testing.encrypted_pdf, "PDF", "PASSWORD_PROTECTED"),
    ("corrupt", testing.corrupt_pdf, "PDF", "UNREADABLE"),
    ("truncated", lambda: TEXT_PDF.data[:600], "PDF", "UNREADABLE"),
    ("500-pages", lambda: testing.many_pages_pdf(500), "PDF", "UNREADABLE"),
    ("png-bomb", testing.png_bomb, "PNG", "UNREADABLE"),
    ("no-table", lambda: testing.many_pages_pdf(1), "PDF", "RECOGNITION_FAILED"),
]


async def test_hostile_files_get_error_codes_and_the_service_keeps_working(
    nats_server: NatsServer, gateway: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await gateway(nats_server.url)
    requests = [
        (name, code, await send(worker, collector, make(), file_type=file_type))
        for name, make, file_type, code in HOSTILE
    ]
    for name, code, request in requests:
        _, outcome = await collector.wait_for(request["job_id"], timeout=30)
        assert (name, outcome.status, outcome_code(outcome)) == (name, "error", code)
        assert outcome.envelope.error is not None and outcome.envelope.error.message
    request = await send(worker, collector, TEXT_PDF.data)
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome.status == "done"


async def test_a_page_cap_message_names_the_page_count(
    nats_server: NatsServer, gateway: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await gateway(nats_server.url, scan_max_pages=3)
    request = await send(worker, collector, testing.many_pages_pdf(4))
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome_code(outcome) == "UNREADABLE"
    assert "4 pages" in outcome.envelope.error.message


class _OcrServer:
    """A real HTTP OCR service on 127.0.0.1: answers with Tesseract's words, or sleeps."""

    def __init__(self, delay: float = 0.0) -> None:
        owner = self
        self.delay = delay
        self.requests: list[dict[str, Any]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                if owner.delay:
                    time.sleep(owner.delay)
                words = owner.read(body)
                payload = json.dumps({"words": words}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/ocr"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def read(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        import base64

        image = open_image(base64.b64decode(body["image"]), 100_000_000)
        words = make_engine(EngineConfig()).recognize(image)
        return [
            {
                "text": w.text,
                "x0": w.x0,
                "y0": w.y0,
                "x1": w.x1,
                "y1": w.y1,
                "confidence": w.confidence,
            }
            for w in words
        ]


@pytest.fixture
def ocr_server() -> Iterator[_OcrServer]:
    server = _OcrServer()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


SCAN = testing.scan(OSV, noisy=False, file_type="PNG")


async def test_http_engine_reads_the_scan_through_the_external_service(
    nats_server: NatsServer,
    gateway: Any,
    collector: ResultCollector,
    send: Any,
    ocr_server: _OcrServer,
) -> None:
    worker = await gateway(nats_server.url, ocr_engine="http", ocr_http_url=ocr_server.url)
    request = await send(worker, collector, SCAN.data, file_type="PNG")
    _, outcome = await collector.wait_for(request["job_id"], timeout=60)
    assert outcome.status in ("done", "needs_check")
    # The page, and at most one more request: the sheet of the words it read unsurely.
    assert 1 <= len(ocr_server.requests) <= 2
    assert all(r["languages"] == "rus+eng" for r in ocr_server.requests)
    result = parse_result_file(await worker.storage.get(outcome.envelope.result_s3.key))
    assert isinstance(result.documents[0], TrialBalance)


async def test_http_engine_timeout_is_timeout_and_unreachable_is_recognition_failed(
    nats_server: NatsServer,
    gateway: Any,
    collector: ResultCollector,
    send: Any,
    ocr_server: _OcrServer,
) -> None:
    ocr_server.delay = 3.0
    slow = await gateway(
        nats_server.url,
        ocr_engine="http",
        ocr_http_url=ocr_server.url,
        ocr_http_timeout_seconds=0.5,
    )
    request = await send(slow, collector, SCAN.data, file_type="PNG")
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome_code(outcome) == "TIMEOUT"
    await slow.stop(grace=1.0)

    # Nothing listens on a port that was just closed.
    import socket

    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    dead = f"http://127.0.0.1:{probe.getsockname()[1]}/ocr"
    probe.close()
    gone = await gateway(nats_server.url, ocr_engine="http", ocr_http_url=dead)
    request = await send(gone, collector, SCAN.data, file_type="PNG")
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome_code(outcome) == "RECOGNITION_FAILED"
    assert "unreachable" in outcome.envelope.error.message
    # The service stays up: a text PDF needs no engine and is still recognised.
    request = await send(gone, collector, TEXT_PDF.data)
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome.status == "done"


async def test_missing_tesseract_fails_a_scan_clearly_but_not_a_text_pdf(
    nats_server: NatsServer, gateway: Any, collector: ResultCollector, send: Any
) -> None:
    worker = await gateway(nats_server.url, tesseract_cmd="/nonexistent/tesseract")
    request = await send(worker, collector, SCAN.data, file_type="PNG")
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome_code(outcome) == "RECOGNITION_FAILED"
    assert "tesseract is not installed" in outcome.envelope.error.message
    request = await send(worker, collector, TEXT_PDF.data)
    _, outcome = await collector.wait_for(request["job_id"], timeout=30)
    assert outcome.status == "done"
