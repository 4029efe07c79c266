"""The NATS link authenticates with a seed alone (nkey) and with seed + JWT (operator mode)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import SecretStr

from arm_ka_devstack.nats_auth import nkey_config, operator_config
from arm_ka_platform.nats import NatsLink, NatsUnavailable
from arm_ka_platform.settings import NatsConfig, Subjects

SUBJECTS = Subjects(tabular_request="t.req", image_request="i.req", result="t.res")


def _config(url: str, seed: str | None, jwt: str | None) -> NatsConfig:
    return NatsConfig(
        servers=(url,),
        enabled=True,
        seed=SecretStr(seed) if seed else None,
        jwt=SecretStr(jwt) if jwt else None,
        subjects=SUBJECTS,
    )


async def _round_trip(link: NatsLink) -> None:
    received: asyncio.Queue[bytes] = asyncio.Queue()

    async def handler(msg) -> None:
        await received.put(msg.data)

    link.subscribe("t.res", "arm-core", handler)
    await link.start()
    assert await link.wait_connected(5)
    await link.publish("t.res", b"hello")
    assert await asyncio.wait_for(received.get(), 5) == b"hello"
    await link.close()


@pytest.mark.parametrize("make", [nkey_config, operator_config], ids=["nkey", "jwt"])
async def test_authenticated_connection(nats_server_factory, make) -> None:
    credentials = make()
    server = nats_server_factory(config=credentials.server_config)
    await _round_trip(NatsLink(_config(server.url, credentials.seed, credentials.jwt), "test"))


@pytest.mark.parametrize("make", [nkey_config, operator_config], ids=["nkey", "jwt"])
async def test_wrong_credentials_are_refused(nats_server_factory, make) -> None:
    server = nats_server_factory(config=make().server_config)
    stranger = make()
    link = NatsLink(_config(server.url, stranger.seed, stranger.jwt), "test", reconnect_wait=0.1)
    await link.start()
    assert not await link.wait_connected(1)
    with pytest.raises(NatsUnavailable):
        await link.publish("t.res", b"x")
    await link.close()


async def test_no_credentials_are_refused_by_an_authenticating_server(nats_server_factory) -> None:
    server = nats_server_factory(config=nkey_config().server_config)
    link = NatsLink(_config(server.url, None, None), "test", reconnect_wait=0.1)
    await link.start()
    assert not await link.wait_connected(1)
    await link.close()
