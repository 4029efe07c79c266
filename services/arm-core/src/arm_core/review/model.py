"""A document as reviewed, as a typed value: the contract's document with the analyst's
corrections applied and its checks made again, and what the review keeps beside it."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from arm_core.mapping.queries import DocumentKind, StoredDocument
from arm_core.review.fields import FIELDS, Target, shown, written
from arm_core.review.recheck import rechecked
from recognition_contract import Document, Severity, TrialBalance, Warning

ReviewState = Literal["recognised", "needs_check", "confirmed", "reopened"]


@dataclass(frozen=True, slots=True)
class Correction:
    """One correction not undone, with the value recognised (``correction`` rows)."""

    id: int
    target: Target
    position: int | None
    field: str
    recognised: str | None
    corrected: str | None
    reason: str
    actor: str
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """A warning accepted with a reason when the document was confirmed; its locator as the
    client sent it back (the API's form)."""

    code: str
    locator: dict[str, Any] | None
    reason: str
    actor: str
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class Mark:
    """Who confirmed (or reopened) a document, and when."""

    by: str
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class ReviewedDocument:
    id: uuid.UUID
    job_id: uuid.UUID
    kind: DocumentKind
    document: Document
    """With the corrections applied; its warnings re-made where something was corrected."""
    corrections: tuple[Correction, ...]
    acknowledgements: tuple[Acknowledgement, ...]
    confirmed: Mark | None
    reopened: Mark | None
    review_state: ReviewState

    @property
    def warnings(self) -> tuple[Warning, ...]:
        return self.document.warnings


def from_row(cls: type[Any], row: Mapping[str, Any]) -> Any:
    """A row of the review's tables as ``cls`` (its columns are the dataclass's fields)."""
    return cls(**{field.name: row[field.name] for field in fields(cls)})


def corrected(doc: StoredDocument, layers: Sequence[Correction]) -> Document:
    """The document with ``layers`` applied in the order made (the latest of a field wins)."""
    document = doc.document
    osv = isinstance(document, TrialBalance)
    items: list[Any] = (
        list(document.rows) if isinstance(document, TrialBalance) else list(document.transactions)
    )
    for layer in layers:
        editable = FIELDS[(doc.kind, layer.target)][layer.field]
        value = shown(editable.kind, layer.corrected)
        if layer.target == "header":
            document = written(document, editable.path, value)
            if layer.field in ("period_from", "period_to"):
                # The period as printed no longer says what the corrected dates do.
                document = written(document, (*editable.path[:-1], "text"), None)
        else:
            index = (layer.position or 0) - 1
            items[index] = written(items[index], editable.path, value)
    if any(layer.target != "header" for layer in layers):
        document = written(document, ("rows" if osv else "transactions",), tuple(items))
    return document


def reviewed(
    doc: StoredDocument,
    layers: Sequence[Correction],
    acks: Sequence[Acknowledgement],
    confirmed: Mark | None,
    reopened: Mark | None,
) -> ReviewedDocument:
    # Never the recognised document itself is changed: a request may review it again.
    document = corrected(doc, layers)
    if layers:
        document = written(document, ("warnings",), rechecked(document))
    return ReviewedDocument(
        id=doc.id,
        job_id=doc.job_id,
        kind=doc.kind,
        document=document,
        corrections=tuple(layers),
        acknowledgements=tuple(acks),
        confirmed=confirmed,
        reopened=reopened,
        review_state=review_state(document.warnings, confirmed, reopened),
    )


def review_state(
    warnings: Sequence[Warning], confirmed: Mark | None, reopened: Mark | None
) -> ReviewState:
    """Where the analyst's review of a document stands: ``confirmed``; ``reopened`` (a
    correction after a confirmation); ``needs_check`` (a warning left that is no note);
    ``recognised``."""
    if confirmed is not None:
        return "confirmed"
    if reopened is not None:
        return "reopened"
    if any(w.severity is not Severity.INFO for w in warnings):
        return "needs_check"
    return "recognised"
