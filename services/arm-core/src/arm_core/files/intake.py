"""Upload intake: stream the file to storage, check what it is, register it, queue it.

The object is written first and the rows after, in one transaction; when anything after the
write fails, the object is deleted again, so storage never keeps an object no row points to.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from arm_core.auth.principal import Principal
from arm_core.db.ids import new_id
from arm_core.db.pool import Connection, Pool, database_unavailable
from arm_core.files.access import VISIBLE_FILE
from arm_core.files.names import display_name, object_key
from arm_core.files.sniff import (
    ENCRYPTED_PACKAGE,
    EXPORT_TYPES,
    HEAD_BYTES,
    NameScanner,
    ZipEntryScanner,
    family_agrees,
    family_of,
    type_from_name,
)
from arm_core.refusal import Refused
from arm_ka_platform.logging import get_logger
from arm_ka_platform.storage import ObjectStorage, StorageUnavailable
from recognition_contract import pipeline_for

log = get_logger(__name__)

CONTENT_TYPES = {
    "XLS": "application/vnd.ms-excel",
    "XLSX": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "XLSB": "application/vnd.ms-excel.sheet.binary.macroEnabled.12",
    "PDF": "application/pdf",
    "PNG": "image/png",
    "JPG": "image/jpeg",
    "TXT": "text/plain",
    "XML": "application/xml",
}
ACCEPTED = (
    "поддерживаются книги Excel (XLS, XLSX, XLSB), PDF, изображения PNG и JPG и выписки, "
    "выгруженные из банка: 1CClientBankExchange и MT940 (.txt, .sta, .mt940), camt.053 (.xml)"
)

REGISTER = f"""
WITH object AS (
    INSERT INTO s3_object (bucket, key, bucket_role, size, content_type, sha256, created_by)
    VALUES (%(bucket)s, %(key)s, 'uploads', %(size)s, %(content_type)s, %(sha256)s, %(actor)s)
    RETURNING id
), file AS (
    INSERT INTO stored_file (id, original_name, file_type, s3_object_id, consolidation_id,
                             status, current_recognition_job_id)
    SELECT %(file_id)s, %(name)s, %(file_type)s, object.id, %(consolidation_id)s,
           'UPLOADED', %(job_id)s
      FROM object
    RETURNING id
), job AS (
    INSERT INTO recognition_job (id, file_id, pipeline, attempt, max_attempts, status)
    SELECT %(job_id)s, file.id, %(pipeline)s, 1, %(max_attempts)s, 'queued'
      FROM file
    RETURNING id
), audit AS (
    INSERT INTO audit_log (actor, action, file_id, job_id, details)
    SELECT %(actor)s, 'file.upload', %(file_id)s, job.id, %(details)s
      FROM job
)
-- With the registration, in the same statement: the other files the uploader may see that
-- hold exactly these bytes (the same statement uploaded twice, say).
SELECT coalesce(jsonb_agg(jsonb_build_object('file_id', s.id,
                                             'original_name', s.original_name,
                                             'consolidation_id', s.consolidation_id,
                                             'created_at', s.created_at)
                          ORDER BY s.created_at, s.id), '[]') AS same_bytes
  FROM (SELECT f.id, f.original_name, f.consolidation_id, f.created_at
          FROM stored_file f
          JOIN s3_object o ON o.id = f.s3_object_id
         WHERE o.sha256 = %(sha256)s AND f.id <> %(file_id)s AND {VISIBLE_FILE}
         ORDER BY f.created_at, f.id
         LIMIT 20) AS s
"""


REGISTERED = "SELECT EXISTS (SELECT 1 FROM stored_file WHERE id = %(file_id)s) AS registered"

# One try's wait for a connection; see arm_core.db.pool on why tries are kept short.
_CONNECT_TIMEOUT = 2.0


class _Unregistered(Exception):
    """Registration could not be done, nor undone, while the database was away."""


class IntakeError(Refused):
    """An upload refused; whatever it had stored is gone again."""


@dataclass(frozen=True)
class Upload:
    file_id: uuid.UUID
    job_id: uuid.UUID
    file_type: str
    pipeline: str
    original_name: str
    size: int
    consolidation_id: uuid.UUID | None
    sha256: str
    same_bytes: list[dict[str, Any]] | None
    """Other files the uploader may see with the same bytes; None where the registration
    had to be confirmed after an outage and the question was not asked."""


class _TooLarge(Exception):
    pass


class _Guard:
    """Counts, size-limits and sniffs the bytes on their way to storage."""

    def __init__(self, source: AsyncIterator[bytes], file_type: str, max_bytes: int) -> None:
        self._source = source
        self._file_type = file_type
        self._max_bytes = max_bytes
        self.size = 0
        self.too_large = False
        self.zip = ZipEntryScanner()
        self.head = b""
        self.digest = hashlib.sha256()

    async def read_head(self) -> bytes:
        """Pull the first bytes before storing anything, to refuse a lying file at once."""
        while len(self.head) < HEAD_BYTES:
            try:
                chunk = await anext(self._source)
            except StopAsyncIteration:
                break
            self.head += chunk
        return self.head

    async def holds(self, names: tuple[bytes, ...]) -> bool:
        """Whether the upload holds any of ``names``: the rest of it read past, up to the size
        limit, and nothing stored."""
        scanner = NameScanner(names)
        async for chunk in self.stream():
            scanner.feed(chunk)
            if scanner.found:
                return True
        return False

    async def stream(self) -> AsyncIterator[bytes]:
        pending = self.head
        while True:
            if pending:
                self.size += len(pending)
                if self.size > self._max_bytes:
                    # Remembered: the store may hand the error back wrapped in its own.
                    self.too_large = True
                    raise _TooLarge
                if self._file_type in ("XLSX", "XLSB"):
                    self.zip.feed(pending)
                self.digest.update(pending)
                yield pending
            try:
                pending = await anext(self._source)
            except StopAsyncIteration:
                return


async def _refuse_protected(guard: _Guard, file_type: str, max_bytes: int) -> None:
    """An XLSX or XLSB in an OLE2 container is a password-protected book (Excel encrypts the
    whole package into one): said so, rather than "not an XLSX"."""
    try:
        protected = await guard.holds(ENCRYPTED_PACKAGE)
    except _TooLarge:
        raise IntakeError(
            413, "FILE_TOO_LARGE", f"файл больше допустимых {max_bytes} байт"
        ) from None
    if protected:
        raise IntakeError(
            422,
            "PASSWORD_PROTECTED",
            "книга защищена паролем и зашифрована целиком: снимите пароль, сохраните книгу и "
            "загрузите её снова",
        )


async def store_upload(
    *,
    pool: Pool,
    storage: ObjectStorage,
    filename: str | None,
    data: AsyncIterator[bytes],
    consolidation_id: uuid.UUID | None,
    who: Principal,
    max_bytes: int,
    max_attempts: int,
    register_wait: float,
) -> Upload:
    name = display_name(filename)
    file_type = type_from_name(filename or "")
    if file_type is None:
        raise IntakeError(
            415,
            "UNSUPPORTED_FORMAT",
            f"{ACCEPTED}; расширение файла не подходит",
        )
    guard = _Guard(data, file_type, max_bytes)
    head = await guard.read_head()
    if not head:
        raise IntakeError(400, "EMPTY_FILE", "файл пуст")
    family = family_of(head)
    if file_type in ("XLSX", "XLSB") and family == "OLE2":
        await _refuse_protected(guard, file_type, max_bytes)
    if file_type in EXPORT_TYPES:
        if family not in EXPORT_TYPES:
            raise IntakeError(
                415,
                "UNSUPPORTED_FORMAT",
                "файл не является выпиской 1CClientBankExchange, MT940 или camt.053; " + ACCEPTED,
            )
        file_type = family  # a camt.053 named .txt is XML, an MT940 named .xml is TXT
    elif not family_agrees(file_type, family):
        raise IntakeError(
            415,
            "UNSUPPORTED_FORMAT",
            f"содержимое файла не соответствует расширению {file_type}",
        )
    file_id = new_id()
    job_id = new_id()
    key = object_key(str(file_id), file_type)
    try:
        stored = await storage.put(key, guard.stream())
    except Exception as exc:  # the store may wrap what our stream raised in its own error
        await _forget(storage, key)
        if guard.too_large:
            raise IntakeError(
                413, "FILE_TOO_LARGE", f"файл больше допустимых {max_bytes} байт"
            ) from None
        if isinstance(exc, IntakeError):
            raise
        log.error("upload_storage_failed", file_id=str(file_id), error=type(exc).__name__)
        raise IntakeError(503, "STORAGE_UNAVAILABLE", "хранилище файлов недоступно") from None
    if file_type in ("XLSX", "XLSB") and guard.zip.workbook_type() != file_type:
        await _forget(storage, key)
        raise IntakeError(
            415, "UNSUPPORTED_FORMAT", f"содержимое файла не соответствует расширению {file_type}"
        )
    pipeline = pipeline_for(file_type).value
    params = {
        "bucket": stored.bucket,
        "key": key,
        "size": stored.size,
        "content_type": CONTENT_TYPES[file_type],
        "sha256": guard.digest.hexdigest(),
        "actor": who.user,
        **who.sql(),
        "file_id": file_id,
        "job_id": job_id,
        "name": name,
        "file_type": file_type,
        "consolidation_id": consolidation_id,
        "pipeline": pipeline,
        "max_attempts": max_attempts,
        "details": Jsonb({"original_name": name, "size": stored.size}),
    }
    try:
        same = await _register(pool, params, wait=register_wait)
    except psycopg.errors.ForeignKeyViolation:
        await _forget(storage, key)
        raise IntakeError(404, "CONSOLIDATION_NOT_FOUND", "консолидация не найдена") from None
    except Exception as exc:
        await _forget(storage, key)
        log.error("upload_register_failed", file_id=str(file_id), error=type(exc).__name__)
        raise IntakeError(503, "DATABASE_UNAVAILABLE", "не удалось зарегистрировать файл") from None
    log.info(
        "file_uploaded",
        file_id=str(file_id),
        job_id=str(job_id),
        attempt=1,
        file_type=file_type,
        size=stored.size,
    )
    return Upload(
        file_id=file_id,
        job_id=job_id,
        file_type=file_type,
        pipeline=pipeline,
        original_name=name,
        size=stored.size,
        consolidation_id=consolidation_id,
        sha256=guard.digest.hexdigest(),
        same_bytes=same,
    )


async def _register(
    pool: Pool, params: dict[str, Any], *, wait: float
) -> list[dict[str, Any]] | None:
    """Register the upload, riding out a short database outage; the files with the same
    bytes, as the registration found them (None when it was confirmed after an outage).

    A commit cut off by a restart may have taken effect or not; the answer would then lie
    either way. So after a failure the file's row is looked up first: there, the upload is
    registered; absent, the registration is tried again. If the database stays away for
    ``wait``, the row is removed should it exist, so that an error answer never leaves a
    registered file behind.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    pause = 0.1
    uncertain = False
    while True:
        try:
            remaining = max(0.1, deadline - loop.time())
            async with pool.connection(timeout=min(remaining, _CONNECT_TIMEOUT)) as conn:
                if uncertain:
                    row = await (await conn.execute(REGISTERED, params)).fetchone()
                    if row is not None and row["registered"]:
                        return None
                found = await (await conn.execute(REGISTER, params)).fetchone()
            return list(found["same_bytes"]) if found is not None else []
        except Exception as exc:
            if not database_unavailable(exc):
                raise
            uncertain = True
            if loop.time() + pause > deadline:
                await _unregister(pool, params["file_id"])
                raise _Unregistered(type(exc).__name__) from None
            log.warning(
                "upload_register_retry", file_id=str(params["file_id"]), error=type(exc).__name__
            )
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)


async def _unregister(pool: Pool, file_id: uuid.UUID) -> None:
    """Remove what a cut-off commit may have registered; logged when even that fails."""
    try:
        async with pool.connection(timeout=2) as conn, conn.transaction():
            await _delete_file(conn, file_id)
    except Exception as exc:
        log.error("upload_outcome_unknown", file_id=str(file_id), error=type(exc).__name__)


async def _delete_file(conn: Connection, file_id: uuid.UUID) -> None:
    await conn.execute(DISCARD, {"file_id": file_id})
    row = await (
        await conn.execute(
            "DELETE FROM stored_file WHERE id = %s RETURNING s3_object_id", (file_id,)
        )
    ).fetchone()
    if row is not None:
        await conn.execute("DELETE FROM s3_object WHERE id = %s", (row["s3_object_id"],))


DISCARD = """
WITH gone_audit AS (
    DELETE FROM audit_log WHERE file_id = %(file_id)s
), unlinked AS (
    UPDATE stored_file SET current_recognition_job_id = NULL WHERE id = %(file_id)s
)
DELETE FROM recognition_job WHERE file_id = %(file_id)s
"""


async def assign_consolidation(
    pool: Pool, storage: ObjectStorage, upload: Upload, consolidation_id: uuid.UUID | None
) -> None:
    """Attach a just-registered upload to a consolidation named after it in the form; when the
    consolidation does not exist the whole upload is undone, as if it never happened."""
    try:
        async with pool.connection() as conn:
            await conn.execute(
                "UPDATE stored_file SET consolidation_id = %s, updated_at = now() WHERE id = %s",
                (consolidation_id, upload.file_id),
            )
    except psycopg.errors.ForeignKeyViolation:
        await discard_upload(pool, storage, upload)
        raise IntakeError(404, "CONSOLIDATION_NOT_FOUND", "консолидация не найдена") from None


async def discard_upload(pool: Pool, storage: ObjectStorage, upload: Upload) -> None:
    """Undo a registered upload whose request turned out bad after the file (a second file,
    a broken body, an unknown consolidation), so that an error answer leaves nothing."""
    # The job may be published already; a service answering it finds no job (logged).
    async with pool.connection() as conn, conn.transaction():
        await _delete_file(conn, upload.file_id)
    await _forget(storage, object_key(str(upload.file_id), upload.file_type))
    log.info("upload_discarded", file_id=str(upload.file_id), job_id=str(upload.job_id))


async def _forget(storage: ObjectStorage, key: str) -> None:
    try:
        await storage.delete(key)
    except StorageUnavailable:
        # The key is unique to this upload and known only to us: log it for the operator.
        log.error("upload_orphan_left", key=key)
