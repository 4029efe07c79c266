"""What a running arm-core holds: settings, database pool, storage, NATS link, loops."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import httpx

from arm_core.api.rate import RateLimits
from arm_core.auth.oidc import Issuer, OidcConfig
from arm_core.db.pool import Pool, open_pool
from arm_core.exchange.inbox import Inbox
from arm_core.exchange.listener import Listener
from arm_core.exchange.outbox import Outbox
from arm_core.exchange.republisher import Republisher
from arm_core.exchange.watchdog import Watchdog
from arm_core.jobs.transitions import Transitions
from arm_core.mapping.loop import Mapping
from arm_core.metrics import Metrics
from arm_core.settings import CoreSettings
from arm_core.web.events import CHANNEL as FILE_CHANGED_CHANNEL
from arm_core.web.events import FileEvents
from arm_core.web.slots import StreamSlots
from arm_ka_platform.logging import get_logger
from arm_ka_platform.nats import NatsLink
from arm_ka_platform.storage import ObjectStorage, open_storage
from arm_ka_platform.supervisor import Supervisor

log = get_logger(__name__)

INBOX_QUEUE_GROUP = "arm-core"
QUEUED_CHANNEL = "recognition_job_queued"
FINISHED_CHANNEL = "recognition_job_finished"
# The listener reconnects after this long when PostgreSQL has gone away.
LISTENER_RETRY_SECONDS = 1.0


@dataclass
class Runtime:
    settings: CoreSettings
    pool: Pool
    storage: ObjectStorage
    nats: NatsLink | None
    metrics: Metrics
    transitions: Transitions
    supervisor: Supervisor
    inbox: Inbox
    file_events: FileEvents = field(default_factory=FileEvents)
    stream_slots: StreamSlots = field(default_factory=StreamSlots)
    rate_limits: RateLimits = field(default_factory=RateLimits)
    # Set with OpenID Connect on: the issuer whose tokens are taken.
    issuer: Issuer | None = None

    @property
    def nats_status(self) -> str:
        if self.nats is None:
            return "off"
        return self.nats.status


def _exchange_loops(runtime: Runtime, nats: NatsLink) -> None:
    settings = runtime.settings
    supervisor = runtime.supervisor
    outbox = Outbox(
        runtime.pool,
        nats,
        settings.subjects,
        runtime.metrics,
        runtime.transitions,
        reply_timeout=settings.reply_timeout_seconds,
        batch_size=settings.outbox_batch_size,
    )
    republisher = Republisher(
        runtime.pool,
        nats,
        runtime.metrics,
        runtime.transitions,
        ack_timeout=settings.ack_timeout_seconds,
        max_republish=settings.outbox_max_republish,
        batch_size=settings.outbox_batch_size,
    )
    watchdog = Watchdog(runtime.pool, runtime.metrics, runtime.transitions)
    mapping = Mapping(
        runtime.pool,
        runtime.storage,
        runtime.metrics,
        runtime.transitions,
        batch_size=settings.mapping_batch_size,
        batch_bytes=settings.mapping_batch_bytes,
    )
    outbox_loop = supervisor.add("outbox", outbox.run_pass, settings.outbox_poll_seconds)
    # A republish is due ack_timeout after a publish; checking a few times per timeout keeps
    # the delay small without scanning constantly.
    supervisor.add(
        "republisher",
        republisher.run_pass,
        min(settings.outbox_poll_seconds, settings.ack_timeout_seconds / 4),
    )
    supervisor.add("watchdog", watchdog.run_pass, settings.watchdog_period_seconds)
    channels = {QUEUED_CHANNEL: outbox_loop.wake}
    if settings.mapping_enabled:
        mapping_loop = supervisor.add("mapping", mapping.run_pass, settings.mapping_period_seconds)
        runtime.inbox.mapping_wakers.append(mapping_loop.wake)
        channels[FINISHED_CHANNEL] = mapping_loop.wake
    listener = Listener(
        settings.database_dsn,
        channels,
        {FILE_CHANGED_CHANNEL: runtime.file_events.receive},
    )
    supervisor.add("listener", listener.run_pass, LISTENER_RETRY_SECONDS, cancel_on_stop=True)
    nats.subscribe(settings.subjects.result, INBOX_QUEUE_GROUP, runtime.inbox.on_message)

    async def wake_outbox() -> None:
        outbox_loop.wake()

    # Publishing resumes the moment NATS is back, not at the next poll.
    nats.reconnected_callbacks.append(wake_outbox)


async def _watch(supervisor: Supervisor, on_fatal: Callable[[], None] | None) -> None:
    await supervisor.failed.wait()
    log.critical("background_loop_died")
    if on_fatal is not None:
        on_fatal()


@contextlib.asynccontextmanager
async def running(
    settings: CoreSettings, on_fatal: Callable[[], None] | None = None
) -> AsyncIterator[Runtime]:
    """Everything arm-core runs; ``on_fatal`` is called if a background loop dies, so the
    process can stop rather than serve without its exchange."""
    subjects = settings.subjects
    log.info(
        "arm_core_starting",
        database=settings.database_display,
        nats_enabled=settings.nats_enabled,
        nats_servers=list(settings.nats.servers),
        subject_tabular_request=subjects.tabular_request,
        subject_image_request=subjects.image_request,
        subject_result=subjects.result,
    )
    metrics = Metrics()
    transitions = Transitions(metrics)
    pool = await open_pool(settings.database_dsn, max_size=settings.database_pool_size)
    nats = NatsLink(settings.nats, name="arm-core") if settings.nats_enabled else None
    runtime = Runtime(
        settings=settings,
        pool=pool,
        storage=open_storage(settings.storage),
        nats=nats,
        metrics=metrics,
        transitions=transitions,
        supervisor=Supervisor(observer=metrics.observe_pass),
        inbox=Inbox(pool, metrics, transitions, hold_seconds=settings.reply_timeout_seconds),
    )
    http = httpx.AsyncClient(timeout=httpx.Timeout(5.0), follow_redirects=False)
    if settings.oidc_issuer is not None:
        assert settings.oidc_client_id is not None  # the settings check both
        runtime.issuer = Issuer(
            OidcConfig(
                issuer=settings.oidc_issuer,
                client_id=settings.oidc_client_id,
                audience=settings.oidc_audience or settings.oidc_client_id,
                jwks_min_refresh_seconds=settings.oidc_jwks_min_refresh_seconds,
            ),
            http,
        )
    watcher: asyncio.Task[None] | None = None
    try:
        if nats is not None:
            _exchange_loops(runtime, nats)
            runtime.inbox.start()
            await nats.start()
            runtime.supervisor.start()
        watcher = asyncio.create_task(_watch(runtime.supervisor, on_fatal), name="fatal-watch")
        yield runtime
    finally:
        # Every step is bounded (5 s each at most, NATS's close 2 s), so a stop ends within
        # about 20 s whatever state PostgreSQL or NATS are in; the command adds its own bound.
        if watcher is not None:
            watcher.cancel()
        log.info("arm_core_stopping")
        if nats is not None:
            # Results go to the other instances of the queue group from here on; the ones
            # already delivered to this process still reach the inbox.
            await nats.drain_subscriptions(timeout=5.0)
            log.info("results_drained")
            # The inbox applies what it has received while each loop finishes its pass (an
            # outbox pass still publishes what it claimed), so NATS stays open for both.
            await asyncio.gather(runtime.inbox.stop(grace=5.0), runtime.supervisor.stop(grace=5.0))
            await nats.close()
        else:
            await runtime.supervisor.stop(grace=5.0)
        await pool.close(timeout=5.0)
        await http.aclose()
        log.info("arm_core_stopped")
