"""Confirmed publishes against a real nats-server, and a link that outlives an outage."""

from __future__ import annotations

import asyncio

import nats
import pytest

from arm_ka_devstack.processes import free_port
from arm_ka_platform.nats import NatsLink, NatsUnavailable
from arm_ka_platform.settings import NatsConfig, Subjects

SUBJECTS = Subjects(tabular_request="t.req", image_request="i.req", result="t.res")


def _config(url: str) -> NatsConfig:
    return NatsConfig(servers=(url,), enabled=True, seed=None, jwt=None, subjects=SUBJECTS)


async def test_publish_is_confirmed_and_received(nats_server) -> None:
    received: asyncio.Queue[nats.aio.msg.Msg] = asyncio.Queue()

    async def handler(msg: nats.aio.msg.Msg) -> None:
        await received.put(msg)

    link = NatsLink(_config(nats_server.url), name="test")
    link.subscribe("t.res", "grp", handler)
    await link.start()
    assert await link.wait_connected(5)
    await link.publish("t.res", b"{}", headers={"Nats-Msg-Id": "result:x:1"})
    msg = await asyncio.wait_for(received.get(), 5)
    assert msg.headers == {"Nats-Msg-Id": "result:x:1"}
    await link.close()


async def test_publish_while_disconnected_raises(nats_server_factory) -> None:
    server = nats_server_factory()
    link = NatsLink(_config(server.url), name="test", reconnect_wait=0.1)
    await link.start()
    assert await link.wait_connected(5)
    server.stop()
    for _ in range(100):
        if not link.is_connected:
            break
        await asyncio.sleep(0.05)
    with pytest.raises(NatsUnavailable):
        await link.publish("t.req", b"{}")
    server.start()
    for _ in range(100):
        if link.is_connected:
            break
        await asyncio.sleep(0.05)
    await link.publish("t.req", b"{}")
    await link.close()


async def test_first_connection_is_retried_until_the_server_appears(nats_server_factory) -> None:
    port = free_port()
    link = NatsLink(_config(f"nats://127.0.0.1:{port}"), name="test", reconnect_wait=0.1)
    await link.start()
    assert link.status == "down"
    with pytest.raises(NatsUnavailable):
        await link.publish("t.req", b"{}")
    nats_server_factory(port=port)
    assert await link.wait_connected(10)
    assert link.status == "ok"
    await link.close()


async def test_drained_link_hands_new_messages_to_other_queue_members(nats_server) -> None:
    first: asyncio.Queue[bytes] = asyncio.Queue()
    second: asyncio.Queue[bytes] = asyncio.Queue()

    async def to_first(msg) -> None:
        await first.put(msg.data)

    async def to_second(msg) -> None:
        await second.put(msg.data)

    a = NatsLink(_config(nats_server.url), name="a")
    b = NatsLink(_config(nats_server.url), name="b")
    a.subscribe("work", "workers", to_first)
    b.subscribe("work", "workers", to_second)
    for link in (a, b):
        await link.start()
        assert await link.wait_connected(5)
    await a.drain_subscriptions()
    for index in range(20):
        await a.publish("work", str(index).encode())
    received = [await asyncio.wait_for(second.get(), 5) for _ in range(20)]
    assert sorted(received, key=int) == [str(i).encode() for i in range(20)]
    assert first.empty()
    await a.close()
    await b.close()
