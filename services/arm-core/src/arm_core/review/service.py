"""Corrections and confirmations, and documents as reviewed: what was recognised, with the
corrections applied, marked and re-checked."""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

from arm_core.auth.principal import Principal
from arm_core.db.pool import Connection, Pool
from arm_core.mapping.queries import StoredDocument, file_documents
from arm_core.refusal import Refused
from arm_core.review.fields import FIELDS, InvalidValue, Target, normalised, read
from arm_core.review.model import (
    Acknowledgement,
    Correction,
    Mark,
    ReviewedDocument,
    from_row,
    reviewed,
)
from arm_core.review.statements import (
    ACKS,
    CONFIRM,
    CONFIRMED,
    CORRECT,
    CORRECTED,
    DOCUMENT,
    LAYERS,
    UNDO,
)
from recognition_contract import Locator, Severity, TrialBalance, locator_to_wire


class ReviewRefused(Refused):
    """A correction or confirmation refused."""


@dataclass(frozen=True)
class Change:
    target: Target
    position: int | None  # the row's or transaction's number in the document, from 1
    field: str
    value: str | None
    reason: str


async def _document(
    pool: Pool, who: Principal, document_id: uuid.UUID, *, confirmed_ok: bool = False
) -> dict[str, Any]:
    """The document ``who`` is about to review: 404 if they cannot see it, 403 if they see it
    but may not change it (another team's, seen through a supervisor's role), 409 if it is
    another attempt's, or confirmed unless ``confirmed_ok`` (a correction reopens it)."""
    async with pool.connection() as conn:
        row = await (
            await conn.execute(DOCUMENT, {"document_id": document_id, **who.sql("change")})
        ).fetchone()
        seen = row is not None or (
            await (
                await conn.execute(DOCUMENT, {"document_id": document_id, **who.sql("read")})
            ).fetchone()
            is not None
        )
    if row is None and seen:
        raise ReviewRefused(403, "FORBIDDEN", "документ другой команды: изменять его нельзя")
    if row is None:
        raise ReviewRefused(404, "DOCUMENT_NOT_FOUND", "документ не найден")
    if not row["current"]:
        raise ReviewRefused(
            409, "DOCUMENT_SUPERSEDED", "документ от прежней попытки: исправляется текущая"
        )
    if row["confirmed_at"] is not None and not confirmed_ok:
        raise ReviewRefused(409, "DOCUMENT_CONFIRMED", "документ уже подтверждён")
    return dict(row)


async def document_of(
    pool: Pool, who: Principal, document_id: uuid.UUID, *, confirmed_ok: bool = False
) -> ReviewedDocument:
    """The document as reviewed, if ``who`` may change it and it can still be reviewed (a
    confirmed one too with ``confirmed_ok``: a correction would reopen it)."""
    doc = await _document(pool, who, document_id, confirmed_ok=confirmed_ok)
    return await _view(pool, await _recognised(pool, doc["file_id"], document_id))


async def _recognised(pool: Pool, file_id: uuid.UUID, document_id: uuid.UUID) -> StoredDocument:
    return next(d for d in await file_documents(pool, file_id) if d.id == document_id)


async def _view(pool: Pool, recognised: StoredDocument) -> ReviewedDocument:
    """One document as reviewed, from its recognised form (read once per request: a
    100,000-row trial balance is seconds of reading)."""
    async with pool.connection() as conn:
        [view] = await _reviewed(conn, [recognised])
    return view


async def correct(
    pool: Pool, who: Principal, document_id: uuid.UUID, change: Change
) -> ReviewedDocument:
    """Record ``change`` over the document and give the document as reviewed; a confirmed
    document is reopened by it."""
    doc = await _document(pool, who, document_id, confirmed_ok=True)
    editable = FIELDS.get((doc["kind"], change.target), {}).get(change.field)
    if editable is None:
        raise ReviewRefused(400, "FIELD_NOT_EDITABLE", f"поле {change.field} не исправляется")
    try:
        value = normalised(editable.kind, change.value)
    except InvalidValue as exc:
        raise ReviewRefused(400, "INVALID_VALUE", str(exc)) from None
    recognised_doc = await _recognised(pool, doc["file_id"], document_id)
    document = recognised_doc.document
    part: object = document
    if change.target != "header":
        items = document.rows if isinstance(document, TrialBalance) else document.transactions
        if change.position is None or not 1 <= change.position <= len(items):
            raise ReviewRefused(400, "POSITION_OUT_OF_RANGE", "нет строки с таким номером")
        part = items[change.position - 1]
    was = read(part, editable.path)
    recognised = None if was is None else str(was.isoformat() if hasattr(was, "isoformat") else was)
    details = {
        "document_id": str(document_id),
        "target": change.target,
        "position": change.position,
        "field": change.field,
        "recognised": recognised,
        "corrected": value,
        "reason": change.reason,
    }
    # The change and the document as changed are read in one transaction: an answer lost
    # after the write would leave a retry to write the change twice.
    async with pool.connection() as conn, conn.transaction():
        added = await (
            await conn.execute(
                CORRECT,
                {
                    "document_id": document_id,
                    "target": change.target,
                    "position": change.position if change.target != "header" else None,
                    "field": change.field,
                    "recognised": recognised,
                    "corrected": value,
                    "reason": change.reason,
                    "actor": who.user,
                    "details": Jsonb(details),
                },
            )
        ).fetchone()
        if added is None:
            # Superseded by a retry since it was read.
            raise ReviewRefused(
                409, "DOCUMENT_SUPERSEDED", "документ от прежней попытки: исправляется текущая"
            )
        [view] = await _reviewed(conn, [recognised_doc])
    return view


async def undo(
    pool: Pool, who: Principal, document_id: uuid.UUID, correction_id: int
) -> ReviewedDocument:
    """Undo one correction of the document (audited; a confirmed document is reopened) and
    give the document as reviewed without it."""
    doc = await _document(pool, who, document_id, confirmed_ok=True)
    recognised = await _recognised(pool, doc["file_id"], document_id)
    async with pool.connection() as conn, conn.transaction():
        params = {"document_id": document_id, "correction_id": correction_id, "actor": who.user}
        if await (await conn.execute(UNDO, params)).fetchone() is None:
            raise ReviewRefused(
                404, "CORRECTION_NOT_FOUND", "такого исправления у документа нет или оно отменено"
            )
        [view] = await _reviewed(conn, [recognised])
    return view


async def confirm(
    pool: Pool,
    who: Principal,
    document_id: uuid.UUID,
    acknowledged: list[dict[str, Any]],
) -> ReviewedDocument:
    """Confirm the document: every warning left after the corrections (but notes) must be
    acknowledged with a reason (``acknowledged``: code, locator, reason each)."""
    doc = await _document(pool, who, document_id)
    recognised = await _recognised(pool, doc["file_id"], document_id)
    view = await _view(pool, recognised)
    given = {(a["code"], _key(a.get("locator"))) for a in acknowledged}
    open_ = [
        w
        for w in view.warnings
        if w.severity is not Severity.INFO
        and (w.code, _key(stored_locator(w.locator))) not in given
    ]
    if open_:
        raise ReviewRefused(
            409,
            "WARNINGS_NOT_ACKNOWLEDGED",
            f"остались замечания без причины: {len(open_)} (первое: {open_[0].message})",
        )
    async with pool.connection() as conn, conn.transaction():
        done = await (
            await conn.execute(
                CONFIRM,
                {
                    "document_id": document_id,
                    "actor": who.user,
                    "acks": Jsonb(acknowledged),
                    "details": Jsonb(
                        {"document_id": str(document_id), "acknowledged": len(acknowledged)}
                    ),
                },
            )
        ).fetchone()
        if done is None:
            raise ReviewRefused(409, "DOCUMENT_CONFIRMED", "документ подтверждён или заменён")
        [confirmed] = await _reviewed(conn, [recognised])
    return confirmed


def stored_locator(locator: Locator | None) -> dict[str, Any] | None:
    """A warning's locator as the API shows it, and a client sends it back acknowledged."""
    return locator_to_wire(locator) if locator is not None else None


def _key(locator: dict[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    """A locator as a key: the API shows every field of it, those it lacks as null, so a
    client that echoes a warning's locator back names the same place."""
    return tuple(sorted((k, str(v)) for k, v in (locator or {}).items() if v is not None))


async def reviewed_documents(pool: Pool, file_id: uuid.UUID) -> list[ReviewedDocument]:
    """The file's current documents as reviewed: corrections applied (each listed with the
    value recognised), checks re-run where something was corrected, and whether and by whom
    each was confirmed."""
    documents = await file_documents(pool, file_id)
    async with pool.connection() as conn:
        return await _reviewed(conn, documents)


async def _reviewed(conn: Connection, documents: list[StoredDocument]) -> list[ReviewedDocument]:
    ids = [doc.id for doc in documents]
    layers: dict[uuid.UUID, list[Correction]] = defaultdict(list)
    acks: dict[uuid.UUID, list[Acknowledgement]] = defaultdict(list)
    confirmed: dict[uuid.UUID, Mark] = {}
    reopened: dict[uuid.UUID, Mark] = {}
    if ids:
        for row in await (await conn.execute(LAYERS, {"ids": ids})).fetchall():
            layers[row["document_id"]].append(from_row(Correction, row))
        for row in await (await conn.execute(ACKS, {"ids": ids})).fetchall():
            acks[row["document_id"]].append(from_row(Acknowledgement, row))
        for row in await (await conn.execute(CONFIRMED, {"ids": ids})).fetchall():
            if row["confirmed_at"] is not None:
                confirmed[row["id"]] = Mark(row["confirmed_by"], row["confirmed_at"])
            if row["reopened_at"] is not None:
                reopened[row["id"]] = Mark(row["reopened_by"], row["reopened_at"])
    return [
        reviewed(doc, layers[doc.id], acks[doc.id], confirmed.get(doc.id), reopened.get(doc.id))
        for doc in documents
    ]


async def corrections_of_file(pool: Pool, file_id: uuid.UUID) -> int:
    """How many corrections the documents of the file's current attempt carry (a retry
    starts a new attempt without them)."""
    async with pool.connection() as conn:
        row = await (await conn.execute(CORRECTED, {"file_id": file_id})).fetchone()
    return int(row["n"]) if row else 0
