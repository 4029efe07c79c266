"""One NATS connection per process: credentials, reconnects, confirmed publishes.

nats-py buffers publishes while it reconnects and ``flush()`` then returns without a round
trip, so a publish counts as done only when the connection was up before the publish and is
still up after a successful flush. The first connection is retried in the background, so a
process started while NATS is down comes up and reports ``nats = down`` until it connects.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import nats
from nats.aio.client import Client, RawCredentials
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from arm_ka_platform.logging import get_logger
from arm_ka_platform.settings import NatsConfig

log = get_logger(__name__)

MessageHandler = Callable[[Msg], Awaitable[None]]


class NatsUnavailable(Exception):
    """The message was not confirmed as delivered to the server.

    ``maybe_sent`` is false only when nothing was handed to the client: otherwise the client
    may still deliver what it buffered once it reconnects, and the caller must count the
    message as possibly sent.
    """

    def __init__(self, reason: str, *, maybe_sent: bool) -> None:
        super().__init__(reason)
        self.maybe_sent = maybe_sent


class NatsLink:
    def __init__(self, config: NatsConfig, name: str, *, reconnect_wait: float = 0.5) -> None:
        self._config = config
        self._name = name
        self._reconnect_wait = reconnect_wait
        self._nc: Client | None = None
        self._subscriptions: list[tuple[str, str, MessageHandler]] = []
        self._active: list[Subscription] = []
        self._connector: asyncio.Task[None] | None = None
        self._closing = False
        self.connected = asyncio.Event()
        self.reconnected_callbacks: list[Callable[[], Awaitable[None]]] = []

    def __repr__(self) -> str:
        return f"NatsLink(name={self._name!r}, servers={list(self._config.servers)!r})"

    @property
    def is_connected(self) -> bool:
        return self._nc is not None and self._nc.is_connected

    @property
    def status(self) -> str:
        # "ok" once the subscriptions are in place too, not merely the connection.
        return "ok" if self.is_connected and self.connected.is_set() else "down"

    def subscribe(self, subject: str, queue: str, handler: MessageHandler) -> None:
        """Register a queue subscription; it is (re)established on every connection."""
        self._subscriptions.append((subject, queue, handler))
        if self._nc is not None and self._nc.is_connected:
            raise RuntimeError("subscribe before start()")

    async def start(self) -> None:
        self._connector = asyncio.create_task(self._connect_forever(), name=f"nats:{self._name}")

    async def wait_connected(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self.connected.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def _connect_forever(self) -> None:
        attempt = 0
        while not self._closing:
            attempt += 1
            try:
                nc = await nats.connect(**self._connect_options())
            except Exception as exc:
                if attempt == 1 or attempt % 20 == 0:
                    log.warning("nats_connect_failed", attempt=attempt, error=_describe(exc))
                await asyncio.sleep(self._reconnect_wait)
                continue
            self._nc = nc
            for subject, queue, handler in self._subscriptions:
                self._active.append(await nc.subscribe(subject, queue=queue, cb=handler))
            await nc.flush()
            self.connected.set()
            log.info("nats_connected", name=self._name, subscriptions=len(self._active))
            return

    def _connect_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "servers": list(self._config.servers),
            "name": self._name,
            "allow_reconnect": True,
            "max_reconnect_attempts": -1,
            "reconnect_time_wait": self._reconnect_wait,
            "connect_timeout": 2,
            "ping_interval": 5,
            "max_outstanding_pings": 2,
            "error_cb": self._on_error,
            "disconnected_cb": self._on_disconnected,
            "reconnected_cb": self._on_reconnected,
        }
        seed = self._config.seed
        if seed is not None and self._config.jwt is not None:
            options["user_credentials"] = RawCredentials(
                _creds_text(self._config.jwt.get_secret_value(), seed.get_secret_value())
            )
        elif seed is not None:
            options["nkeys_seed_str"] = seed.get_secret_value()
        return options

    async def _on_error(self, exc: Exception) -> None:
        log.warning("nats_error", error=_describe(exc))

    async def _on_disconnected(self) -> None:
        if not self._closing:
            log.warning("nats_disconnected", name=self._name)

    async def _on_reconnected(self) -> None:
        log.info("nats_reconnected", name=self._name)
        for callback in self.reconnected_callbacks:
            await callback()

    async def publish(
        self,
        subject: str,
        payload: bytes,
        headers: dict[str, str] | None = None,
        timeout: float = 2.0,
    ) -> None:
        """Publish and confirm with a flush round trip; raise ``NatsUnavailable`` otherwise."""
        await self.publish_many([(subject, payload, headers)], timeout=timeout)

    async def publish_many(
        self,
        messages: Sequence[tuple[str, bytes, dict[str, str] | None]],
        timeout: float = 2.0,
    ) -> None:
        """Publish a batch confirmed by one flush: all of it counts as sent, or none of it."""
        nc = self._nc
        if nc is None or not nc.is_connected:
            raise NatsUnavailable("not connected", maybe_sent=False)
        try:
            for subject, payload, headers in messages:
                await nc.publish(subject, payload, headers=headers)
            # nats-py annotates the timeout as int but waits with asyncio, fractions work.
            await nc.flush(timeout=timeout)  # type: ignore[arg-type]
        except Exception as exc:
            raise NatsUnavailable(_describe(exc), maybe_sent=True) from exc
        if not nc.is_connected:
            raise NatsUnavailable("connection lost during flush", maybe_sent=True)

    async def drain_subscriptions(self, timeout: float = 5.0) -> None:
        """Stop receiving: the server routes new messages to other queue members at once, and
        what this client already received is still handed to the callbacks."""
        active, self._active = self._active, []
        self._subscriptions.clear()
        for subscription in active:
            try:
                # nats-py leaves Subscription.drain unannotated.
                await asyncio.wait_for(subscription.drain(), timeout)  # type: ignore[no-untyped-call]
            except Exception as exc:
                log.warning("nats_drain_failed", error=_describe(exc))

    async def close(self) -> None:
        self._closing = True
        if self._connector is not None:
            self._connector.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._connector
        if self._nc is not None and not self._nc.is_closed:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._nc.drain(), timeout=2)
            with contextlib.suppress(Exception):
                await self._nc.close()
        self.connected.clear()


def _creds_text(jwt: str, seed: str) -> str:
    """The decorated credentials format nats-py parses, kept in memory, never on disk."""
    return (
        "-----BEGIN NATS USER JWT-----\n"
        f"{jwt.strip()}\n"
        "------END NATS USER JWT------\n\n"
        "-----BEGIN USER NKEY SEED-----\n"
        f"{seed.strip()}\n"
        "------END USER NKEY SEED------\n"
    )


def _describe(exc: BaseException) -> str:
    """Exception text for logs; nats-py errors never carry credentials, but keep it short."""
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]
