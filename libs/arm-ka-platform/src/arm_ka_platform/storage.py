"""Object storage: a local directory (``file:///dir``, objects at ``<dir>/<bucket>/<key>``)
or any S3-compatible store (``s3://``, path-style), both through obstore."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

import obstore
from obstore.exceptions import NotFoundError
from obstore.store import LocalStore, S3Store

from arm_ka_platform.settings import StorageConfig

if TYPE_CHECKING:
    from obstore.store import ObjectStore


# obstore raises its own errors for some stores and builtin ones (FileNotFoundError for a
# missing local file, ConnectionError, TimeoutError) for others.
_MISSING = (NotFoundError, FileNotFoundError)
_FAILED = (obstore.exceptions.BaseError, OSError)


class ObjectMissing(Exception):
    """The object named is not in the store."""


class StorageUnavailable(Exception):
    """The store could not be reached or refused the operation."""


@dataclass(frozen=True)
class StoredObject:
    bucket: str
    key: str
    size: int


class ObjectStorage:
    def __init__(self, store: ObjectStore, bucket: str, description: str) -> None:
        self._store = store
        self.bucket = bucket
        self._description = description

    def __repr__(self) -> str:
        return f"ObjectStorage({self._description}, bucket={self.bucket!r})"

    async def put(self, key: str, data: bytes | AsyncIterable[bytes]) -> StoredObject:
        try:
            if isinstance(data, bytes):
                await obstore.put_async(self._store, key, data)
                size = len(data)
            else:
                counter = _Counter(data)
                await obstore.put_async(self._store, key, counter)
                size = counter.size
        except _FAILED as exc:
            raise StorageUnavailable(f"put {key}: {type(exc).__name__}") from exc
        return StoredObject(bucket=self.bucket, key=key, size=size)

    async def get(self, key: str, *, max_bytes: int | None = None) -> bytes:
        try:
            result = await obstore.get_async(self._store, key)
            if max_bytes is not None and result.meta["size"] > max_bytes:
                raise StorageUnavailable(f"get {key}: object exceeds {max_bytes} bytes")
            return bytes(await result.bytes_async())
        except _MISSING as exc:
            raise ObjectMissing(key) from exc
        except _FAILED as exc:
            raise StorageUnavailable(f"get {key}: {type(exc).__name__}") from exc

    async def stream(self, key: str) -> AsyncIterator[bytes]:
        try:
            result = await obstore.get_async(self._store, key)
        except _MISSING as exc:
            raise ObjectMissing(key) from exc
        except _FAILED as exc:
            raise StorageUnavailable(f"get {key}: {type(exc).__name__}") from exc
        async for chunk in result.stream(min_chunk_size=1 << 20):
            yield bytes(chunk)

    async def exists(self, key: str) -> bool:
        try:
            await obstore.head_async(self._store, key)
        except _MISSING:
            return False
        except _FAILED as exc:
            raise StorageUnavailable(f"head {key}: {type(exc).__name__}") from exc
        return True

    async def delete(self, key: str) -> None:
        try:
            await obstore.delete_async(self._store, key)
        except _MISSING:
            return
        except _FAILED as exc:
            raise StorageUnavailable(f"delete {key}: {type(exc).__name__}") from exc


class _Counter:
    """Counts the bytes of a stream as obstore consumes it."""

    def __init__(self, source: AsyncIterable[bytes]) -> None:
        self._source = source
        self.size = 0

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[bytes]:
        async for chunk in self._source:
            self.size += len(chunk)
            yield chunk


def open_storage(config: StorageConfig) -> ObjectStorage:
    url = urlsplit(config.url)
    if url.scheme == "file":
        root = Path(unquote(url.path)) / config.bucket
        root.mkdir(parents=True, exist_ok=True)
        return ObjectStorage(LocalStore(root, mkdir=True), config.bucket, f"file://{root.parent}")
    if url.scheme == "s3":
        options: dict[str, object] = {"virtual_hosted_style_request": False}
        if config.access_key_id is not None:
            options["access_key_id"] = config.access_key_id.get_secret_value()
        if config.secret_access_key is not None:
            options["secret_access_key"] = config.secret_access_key.get_secret_value()
        if config.s3_endpoint_url:
            options["endpoint"] = config.s3_endpoint_url
        store = S3Store(
            config.bucket,
            region=config.s3_region,
            client_options={"allow_http": True},
            **options,  # type: ignore[arg-type]
        )
        endpoint = config.s3_endpoint_url or "aws"
        return ObjectStorage(store, config.bucket, f"s3 {endpoint}")
    raise ValueError("STORAGE_URL must start with file:// or s3://")
