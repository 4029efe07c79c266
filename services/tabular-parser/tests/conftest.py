"""tabular-parser against a real nats-server and real storage; the shared fixtures come from
recognition_worker.fixtures."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from recognition_worker.fixtures import MakeFactory, WorkerFactory, submit
from tabular_parser.app import recognizer
from tabular_parser.settings import TabularSettings


@pytest.fixture
def parser(worker_factory: MakeFactory) -> WorkerFactory:
    return worker_factory(TabularSettings, recognizer, "tabular-parser")


@pytest.fixture
def send() -> Callable[..., Awaitable[dict[str, Any]]]:
    return submit
