"""Reading the source file of a request from object storage, with a size cap."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Final

from arm_ka_platform.logging import get_logger
from arm_ka_platform.storage import ObjectMissing, ObjectStorage, StorageUnavailable
from recognition_contract import ErrorCode, S3Ref
from recognition_worker.publisher import seconds_until
from recognition_worker.recognition import RecognitionError

log = get_logger(__name__)

# A store that is briefly away (a restart, a dropped connection) gets a few more chances.
READ_TRIES: Final = 3
READ_RETRY_SECONDS: Final = 0.5


async def read_source(
    storage: ObjectStorage, ref: S3Ref, *, max_bytes: int, deadline: datetime
) -> bytes:
    """The whole object, or ``RecognitionError``: FILE_READ_ERROR when it is missing or the
    store fails, UNREADABLE when it is larger than ``max_bytes`` (checked while streaming, so
    an oversized object is never held in memory)."""
    if ref.bucket != storage.bucket:
        raise RecognitionError(
            ErrorCode.FILE_READ_ERROR,
            f"source bucket {ref.bucket!r} is not this service's bucket {storage.bucket!r}",
        )
    for attempt in range(1, READ_TRIES + 1):
        try:
            return await _read(storage, ref.key, max_bytes)
        except ObjectMissing:
            raise RecognitionError(
                ErrorCode.FILE_READ_ERROR, f"source object {ref.key!r} does not exist"
            ) from None
        except StorageUnavailable as exc:
            log.warning("source_read_failed", key=ref.key, try_number=attempt, error=str(exc))
            if attempt == READ_TRIES or seconds_until(deadline) <= READ_RETRY_SECONDS:
                raise RecognitionError(
                    ErrorCode.FILE_READ_ERROR, f"source object {ref.key!r} could not be read"
                ) from None
            await asyncio.sleep(READ_RETRY_SECONDS * attempt)
    raise AssertionError("unreachable")


async def _read(storage: ObjectStorage, key: str, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in storage.stream(key):
            size += len(chunk)
            if size > max_bytes:
                raise RecognitionError(
                    ErrorCode.UNREADABLE,
                    f"the file is larger than the {max_bytes} bytes this service accepts",
                )
            chunks.append(chunk)
    except (ObjectMissing, StorageUnavailable, RecognitionError):
        raise
    except Exception as exc:
        # A stream that breaks halfway raises the store's own errors.
        raise StorageUnavailable(f"get {key}: {type(exc).__name__}") from exc
    return b"".join(chunks)
