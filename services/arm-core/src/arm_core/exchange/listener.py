"""LISTEN/NOTIFY: wakes loops the moment the database says there is work for them."""

from __future__ import annotations

from collections.abc import Callable

import psycopg

from arm_ka_platform.logging import get_logger

log = get_logger(__name__)


class Listener:
    """One dedicated connection listening on channels; each notification calls its waker.

    A pass lasts as long as the connection does; when PostgreSQL goes away the pass fails, the
    supervisor logs it and the next pass connects again. Loops also poll on their period, so a
    notification missed while reconnecting delays work by one period at most.
    """

    def __init__(self, dsn: str, wakers: dict[str, Callable[[], None]]) -> None:
        self._dsn = dsn
        self._wakers = wakers
        self.listening = False

    async def run_pass(self) -> None:
        async with await psycopg.AsyncConnection.connect(
            self._dsn, autocommit=True, application_name="arm-core-listener"
        ) as conn:
            for channel in self._wakers:
                await conn.execute(f'LISTEN "{channel}"')
            self.listening = True
            log.info("listening", channels=list(self._wakers))
            # Work queued while we were not listening is picked up at once.
            for wake in self._wakers.values():
                wake()
            try:
                async for notify in conn.notifies():
                    waker = self._wakers.get(notify.channel)
                    if waker is not None:
                        waker()
            finally:
                self.listening = False
