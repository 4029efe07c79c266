"""LISTEN/NOTIFY: wakes loops the moment the database says there is work for them."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import psycopg

from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

Receiver = Callable[[str | None], None]
"""Gets each notification's payload, and ``None`` whenever listening (re)starts: what was
sent while nobody listened is lost, and the receiver may need to say so."""


class Listener:
    """One dedicated connection listening on channels; each notification calls its waker, or
    hands its payload to its receiver.

    A pass lasts as long as the connection does; when PostgreSQL goes away the pass fails, the
    supervisor logs it and the next pass connects again. Loops also poll on their period, so a
    notification missed while reconnecting delays work by one period at most.
    """

    def __init__(
        self,
        dsn: str,
        wakers: dict[str, Callable[[], None]],
        receivers: Mapping[str, Receiver] | None = None,
    ) -> None:
        self._dsn = dsn
        self._wakers = wakers
        self._receivers = dict(receivers or {})
        self.listening = False

    async def run_pass(self) -> None:
        async with await psycopg.AsyncConnection.connect(
            self._dsn, autocommit=True, application_name="arm-core-listener"
        ) as conn:
            channels = [*self._wakers, *self._receivers]
            for channel in channels:
                await conn.execute(f'LISTEN "{channel}"')
            self.listening = True
            log.info("listening", channels=channels)
            # Work queued while we were not listening is picked up at once.
            for wake in self._wakers.values():
                wake()
            for receive in self._receivers.values():
                receive(None)
            try:
                async for notify in conn.notifies():
                    waker = self._wakers.get(notify.channel)
                    if waker is not None:
                        waker()
                    receiver = self._receivers.get(notify.channel)
                    if receiver is not None:
                        receiver(notify.payload)
            finally:
                self.listening = False
