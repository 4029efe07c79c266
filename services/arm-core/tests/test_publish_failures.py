"""A publish that fails: taken back when nothing reached NATS, kept (and counted) when the
client took the messages and may still send them. NATS is replaced by a link that fails on
purpose; the database is real."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest

from arm_core.db.pool import open_pool
from arm_core.exchange.outbox import Outbox
from arm_core.exchange.republisher import Republisher
from arm_core.jobs.transitions import Transitions
from arm_core.metrics import Metrics
from arm_core.settings import CoreSettings
from arm_core.testing import insert_file_with_job, job_row
from arm_ka_platform.nats import NatsUnavailable


class FailingLink:
    """Connected when asked, then the publish fails, having sent something or not."""

    is_connected = True

    def __init__(self, *, maybe_sent: bool) -> None:
        self.maybe_sent = maybe_sent
        self.calls = 0

    async def publish_many(self, messages: object, timeout: float = 2.0) -> None:
        self.calls += 1
        raise NatsUnavailable("connection lost", maybe_sent=self.maybe_sent)


@pytest.fixture
async def pool(database_url: str):
    pool = await open_pool(database_url, max_size=2)
    await pool.wait()
    try:
        yield pool
    finally:
        await pool.close()


def _outbox(pool, link: FailingLink) -> Outbox:
    metrics = Metrics()
    return Outbox(
        pool,
        link,  # type: ignore[arg-type]
        CoreSettings().subjects,
        metrics,
        Transitions(metrics),
        reply_timeout=60,
        batch_size=10,
    )


def _republisher(pool, link: FailingLink) -> Republisher:
    metrics = Metrics()
    return Republisher(
        pool,
        link,  # type: ignore[arg-type]
        metrics,
        Transitions(metrics),
        ack_timeout=1,
        max_republish=3,
        batch_size=10,
    )


async def test_a_publish_that_sent_nothing_leaves_the_job_queued_as_it_was(
    pool, database_url
) -> None:
    _, job_id = await insert_file_with_job(database_url)
    before = await job_row(database_url, job_id)
    link = FailingLink(maybe_sent=False)
    assert await _outbox(pool, link).run_pass() == 0
    assert link.calls == 1
    assert await job_row(database_url, job_id) == before


async def test_a_publish_that_may_have_gone_out_stays_published(pool, database_url) -> None:
    _, job_id = await insert_file_with_job(database_url)
    await _outbox(pool, FailingLink(maybe_sent=True)).run_pass()
    job = await job_row(database_url, job_id)
    # The republisher takes over after the ack timeout, counting what it sends.
    assert (job["status"], job["request_msg_id"], job["republish_count"]) == (
        "published",
        f"{job_id}:1",
        0,
    )


async def _unacked(database_url: str, count: int):
    _, job_id = await insert_file_with_job(database_url, status="published")
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        await conn.execute(
            "UPDATE recognition_job SET published_at = now() - interval '1 minute',"
            " reply_deadline = now() + interval '1 hour', request_msg_id = id::text || ':1',"
            " request_subject = 'files.tabular_uploaded', republish_count = %s,"
            " metrics = jsonb_build_object('republish_count', %s) WHERE id = %s",
            (count, count, job_id),
        )
        await conn.commit()
    return job_id


async def test_a_republish_that_sent_nothing_is_taken_back(pool, database_url) -> None:
    job_id = await _unacked(database_url, 1)
    before = await job_row(database_url, job_id)
    await _republisher(pool, FailingLink(maybe_sent=False)).run_pass()
    assert await job_row(database_url, job_id) == before


async def test_a_republish_that_may_have_gone_out_is_counted(pool, database_url) -> None:
    job_id = await _unacked(database_url, 1)
    before = await job_row(database_url, job_id)
    await _republisher(pool, FailingLink(maybe_sent=True)).run_pass()
    after = await job_row(database_url, job_id)
    assert after["republish_count"] == after["metrics"]["republish_count"] == 2
    assert after["published_at"] - before["published_at"] > timedelta(seconds=30)
