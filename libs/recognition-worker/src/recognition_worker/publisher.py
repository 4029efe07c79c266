"""Publishing envelopes: once (acks), or again and again through a NATS outage until the job's
``reply_deadline`` (outcomes), after which the core has timed the job out anyway."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime

from arm_ka_platform.logging import get_logger
from arm_ka_platform.nats import NatsLink, NatsUnavailable
from recognition_contract import NATS_MSG_ID
from recognition_worker.dedupe import Outgoing

log = get_logger(__name__)


def seconds_until(deadline: datetime) -> float:
    return (deadline - datetime.now(UTC)).total_seconds()


class Publisher:
    def __init__(
        self, link: NatsLink, subject: str, *, retry_seconds: float, flush_timeout: float = 2.0
    ) -> None:
        self._link = link
        self._subject = subject
        self._retry_seconds = retry_seconds
        self._flush_timeout = flush_timeout
        self._reconnected = asyncio.Event()
        link.reconnected_callbacks.append(self._on_reconnected)

    async def _on_reconnected(self) -> None:
        # Wakes every waiting retry at once instead of at its next period.
        self._reconnected.set()
        self._reconnected = asyncio.Event()

    async def once(self, message: Outgoing) -> bool:
        """One confirmed publish; ``False`` (logged) when NATS did not confirm it."""
        try:
            await self._link.publish(
                self._subject,
                message.body,
                headers={NATS_MSG_ID: message.msg_id},
                timeout=self._flush_timeout,
            )
        except NatsUnavailable as exc:
            log.warning("publish_failed", msg_id=message.msg_id, error=str(exc))
            return False
        log.info("published", msg_id=message.msg_id)
        return True

    async def until(self, message: Outgoing, deadline: datetime) -> bool:
        """Publish, retrying every ``retry_seconds`` (or on reconnect) until ``deadline``."""
        tries = 0
        while True:
            tries += 1
            if await self.once(message):
                return True
            left = seconds_until(deadline)
            if left <= 0:
                log.error("publish_abandoned", msg_id=message.msg_id, tries=tries)
                return False
            woken = self._reconnected
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), min(self._retry_seconds, left))
