"""Structured logs: one event name plus fields, JSON when not on a terminal."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

# The system's own packages: DEBUG=true shows their debug lines, and only theirs.
OWN_PACKAGES = (
    "arm_core",
    "arm_ka_platform",
    "arm_ka_devstack",
    "recognition_worker",
    "recognition_contract",
    "document_extraction",
    "tabular_parser",
    "scan_gateway",
)


def configure_logging(*, debug: bool = False, json: bool | None = None) -> None:
    """Route structlog and stdlib logging to stderr, JSON unless a person is watching."""
    if json is None:
        json = not sys.stderr.isatty()
    level = logging.DEBUG if debug else logging.INFO
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer(ensure_ascii=False)
        if json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(level),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # Debug is for our own code: the libraries' debug lines (a pool's every checkout, a
    # client's every frame) would bury it and, on a pipe nobody drains fast, stall the process.
    root.setLevel(logging.INFO)
    for own in OWN_PACKAGES:
        logging.getLogger(own).setLevel(level)
    # Library chatter (per-request access lines, reconnect stack traces) drowns our own events.
    for noisy in ("uvicorn.access", "nats.aio.client", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    return structlog.get_logger(name)  # type: ignore[no-any-return]
