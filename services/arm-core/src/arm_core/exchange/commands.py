"""What the inbox acts on: typed commands, made from wire envelopes at the boundary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

from recognition_contract import Warning

ResultStatus = Literal["done", "needs_check", "error"]


@dataclass(frozen=True)
class ObjectRef:
    bucket: str
    key: str


@dataclass(frozen=True)
class AckJob:
    """A service took the job: ``processing``."""

    job_id: UUID
    file_id: UUID
    service_name: str
    service_version: str
    msg_id: str | None


@dataclass(frozen=True)
class ApplyResult:
    """A service finished the job: ``done``, ``needs_check`` or ``error``."""

    job_id: UUID
    file_id: UUID
    status: ResultStatus
    schema_version: str
    service_name: str
    service_version: str
    statements_version: str | None
    msg_id: str | None
    result: ObjectRef | None
    result_schema_version: str | None
    raw_key: str | None
    error_code: str | None
    error_message: str | None
    metrics: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[Warning, ...] = ()
