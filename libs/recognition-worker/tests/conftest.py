"""A worker with the scripted recognizer; the shared fixtures come from
recognition_worker.fixtures."""

from __future__ import annotations

from typing import Any

import pytest

from recognition_worker import WorkerSettings
from recognition_worker.fixtures import MakeFactory, WorkerFactory
from recognition_worker.testing import scripted_recognizer


def _scripted(_: Any) -> Any:
    return scripted_recognizer()


@pytest.fixture
def make_worker(worker_factory: MakeFactory) -> WorkerFactory:
    return worker_factory(WorkerSettings, _scripted, "tabular-parser", job_timeout_seconds=10.0)
