"""DEBUG=true shows the system's own debug lines and not the libraries' (a pool's every
checkout would bury ours, and fill a pipe nobody drains fast)."""

from __future__ import annotations

import logging

import pytest
import structlog

from arm_ka_platform.logging import configure_logging, get_logger


@pytest.fixture
def restored_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in ("arm_core", "some_library.pool")}
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, value in levels.items():
        logging.getLogger(name).setLevel(value)
    structlog.reset_defaults()


def test_debug_shows_our_debug_lines_and_not_the_libraries(capsys, restored_logging) -> None:
    configure_logging(debug=True, json=True)
    get_logger("arm_core.exchange.inbox").debug("our_debug_line")
    logging.getLogger("some_library.pool").debug("connection requested from pool")
    logging.getLogger("some_library.pool").warning("pool warning")
    err = capsys.readouterr().err
    assert "our_debug_line" in err
    assert "connection requested" not in err
    assert "pool warning" in err


def test_without_debug_our_debug_lines_stay_out(capsys, restored_logging) -> None:
    configure_logging(debug=False, json=True)
    get_logger("arm_core.exchange.inbox").debug("our_debug_line")
    get_logger("arm_core.exchange.inbox").info("our_info_line")
    err = capsys.readouterr().err
    assert "our_debug_line" not in err and "our_info_line" in err
