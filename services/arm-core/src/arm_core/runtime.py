"""What a running arm-core holds: settings, database pool, storage, NATS link, loops."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from psycopg_pool import AsyncConnectionPool

from arm_core.db.pool import open_pool
from arm_core.settings import CoreSettings
from arm_ka_platform.logging import get_logger
from arm_ka_platform.nats import NatsLink
from arm_ka_platform.storage import ObjectStorage, open_storage
from arm_ka_platform.supervisor import Supervisor

log = get_logger(__name__)


@dataclass
class Runtime:
    settings: CoreSettings
    pool: AsyncConnectionPool
    storage: ObjectStorage
    nats: NatsLink | None
    supervisor: Supervisor = field(default_factory=Supervisor)

    @property
    def nats_status(self) -> str:
        if self.nats is None:
            return "off"
        return self.nats.status


@contextlib.asynccontextmanager
async def running(settings: CoreSettings) -> AsyncIterator[Runtime]:
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
    pool = await open_pool(settings.database_dsn, max_size=settings.database_pool_size)
    nats = NatsLink(settings.nats, name="arm-core") if settings.nats_enabled else None
    runtime = Runtime(
        settings=settings, pool=pool, storage=open_storage(settings.storage), nats=nats
    )
    try:
        if nats is not None:
            await nats.start()
            runtime.supervisor.start()
        yield runtime
    finally:
        await runtime.supervisor.stop()
        if nats is not None:
            await nats.close()
        await pool.close()
        log.info("arm_core_stopped")
