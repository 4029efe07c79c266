"""Object storage round trips on a local directory and on a real S3 protocol peer."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from arm_ka_devstack.s3peer import ACCESS_KEY_ID, SECRET_ACCESS_KEY, S3Peer
from arm_ka_platform.settings import StorageConfig
from arm_ka_platform.storage import ObjectMissing, ObjectStorage, StorageUnavailable, open_storage


def _local(tmp_path: Path) -> ObjectStorage:
    return open_storage(
        StorageConfig(
            url=f"file://{tmp_path}",
            bucket="arm-ka",
            s3_endpoint_url=None,
            s3_region="us-east-1",
            access_key_id=None,
            secret_access_key=None,
        )
    )


def _s3(peer: S3Peer, bucket: str) -> ObjectStorage:
    peer.create_bucket(bucket)
    return open_storage(
        StorageConfig(
            url="s3://",
            bucket=bucket,
            s3_endpoint_url=peer.endpoint,
            s3_region="us-east-1",
            access_key_id=SecretStr(ACCESS_KEY_ID),
            secret_access_key=SecretStr(SECRET_ACCESS_KEY),
        )
    )


@pytest.fixture(params=["local", "s3"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStorage:
    if request.param == "local":
        return _local(tmp_path)
    return _s3(request.getfixturevalue("s3_peer"), f"b-{uuid.uuid4().hex[:12]}")


async def _chunks(count: int, size: int) -> AsyncIterator[bytes]:
    for index in range(count):
        yield bytes([index % 256]) * size


async def test_put_get_delete(storage: ObjectStorage) -> None:
    stored = await storage.put("uploads/a/b.xlsx", b"PK\x03\x04 content")
    assert stored.size == len(b"PK\x03\x04 content")
    assert await storage.exists("uploads/a/b.xlsx")
    assert await storage.get("uploads/a/b.xlsx") == b"PK\x03\x04 content"
    await storage.delete("uploads/a/b.xlsx")
    assert not await storage.exists("uploads/a/b.xlsx")
    with pytest.raises(ObjectMissing):
        await storage.get("uploads/a/b.xlsx")
    await storage.delete("uploads/a/b.xlsx")  # deleting twice is harmless


async def test_streamed_put_counts_bytes_and_streams_back(storage: ObjectStorage) -> None:
    stored = await storage.put("uploads/big.bin", _chunks(12, 1 << 20))
    assert stored.size == 12 << 20
    received = 0
    async for chunk in storage.stream("uploads/big.bin"):
        received += len(chunk)
    assert received == 12 << 20


async def test_get_refuses_oversized_object(storage: ObjectStorage) -> None:
    await storage.put("results/r.json", b"x" * 1000)
    with pytest.raises(StorageUnavailable, match="exceeds"):
        await storage.get("results/r.json", max_bytes=100)


def test_local_objects_live_under_bucket_dir(tmp_path: Path) -> None:
    storage = _local(tmp_path)
    assert (tmp_path / "arm-ka").is_dir()
    assert "arm-ka" in repr(storage)


async def test_s3_credentials_not_in_repr(s3_peer: S3Peer) -> None:
    storage = _s3(s3_peer, "repr-check")
    assert SECRET_ACCESS_KEY not in repr(storage)
    assert ACCESS_KEY_ID not in repr(storage)


async def test_unreachable_s3_is_storage_unavailable() -> None:
    from arm_ka_devstack.processes import free_port

    storage = open_storage(
        StorageConfig(
            url="s3://",
            bucket="nowhere",
            s3_endpoint_url=f"http://127.0.0.1:{free_port()}",
            s3_region="us-east-1",
            access_key_id=SecretStr("a"),
            secret_access_key=SecretStr("b"),
        )
    )
    with pytest.raises(StorageUnavailable):
        await storage.put("x", b"y")
