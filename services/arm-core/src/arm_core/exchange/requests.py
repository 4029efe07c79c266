"""The request a job becomes on the wire (contract 1.0, which every service speaks)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from arm_core.jobs.transitions import Request
from arm_core.metrics import Metrics
from arm_ka_platform.logging import get_logger
from arm_ka_platform.nats import NatsLink, NatsUnavailable
from recognition_contract import (
    FIRST_VERSION,
    NATS_MSG_ID,
    FileType,
    Pipeline,
    RecognitionRequest,
    S3Ref,
    dump_request,
    request_msg_id,
)

# Columns of recognition_job j ⋈ stored_file f ⋈ s3_object o a request is built from.
JOB_REQUEST_COLUMNS = """
       j.id AS job_id, j.file_id, j.pipeline, j.attempt, j.reply_deadline,
       f.file_type, f.original_name, o.bucket, o.key"""

REQUEST_VERSION = "1.0"
"""What a request is published as, so that 1.x and 2.x services alike read it; a file type
MAJOR 1 lacks goes out at the version that brought it (``FIRST_VERSION``)."""

log = get_logger(__name__)


@dataclass(frozen=True)
class JobRequest:
    job_id: UUID
    file_id: UUID
    attempt: int
    pipeline: str
    file_type: str
    original_name: str
    bucket: str
    key: str
    reply_deadline: datetime

    @classmethod
    def from_row(cls, row: dict[str, Any], *, reply_deadline: datetime | None = None) -> JobRequest:
        """A job as claimed; a first publication sets the deadline, a republish keeps it."""
        deadline = reply_deadline or row["reply_deadline"]
        if deadline is None:
            raise ValueError(f"job {row['job_id']} has no reply_deadline")
        return cls(
            job_id=row["job_id"],
            file_id=row["file_id"],
            attempt=row["attempt"],
            pipeline=row["pipeline"],
            file_type=row["file_type"],
            original_name=row["original_name"],
            bucket=row["bucket"],
            key=row["key"],
            reply_deadline=deadline,
        )

    @property
    def msg_id(self) -> str:
        return request_msg_id(self.job_id, self.attempt)

    def sent_as(self, subject: str) -> Request:
        return Request(
            job_id=self.job_id,
            msg_id=self.msg_id,
            subject=subject,
            reply_deadline=self.reply_deadline,
        )

    def headers(self) -> dict[str, str]:
        return {NATS_MSG_ID: self.msg_id}

    def body(self) -> bytes:
        version = FIRST_VERSION.get(FileType(self.file_type), REQUEST_VERSION)
        return dump_request(
            RecognitionRequest(
                schema_version=version,
                job_id=self.job_id,
                file_id=self.file_id,
                pipeline=Pipeline(self.pipeline),
                file_type=FileType(self.file_type),
                original_name=self.original_name,
                s3=S3Ref(bucket=self.bucket, key=self.key),
                reply_deadline=self.reply_deadline,
                attempt=self.attempt,
            ),
            version,
        )


Delivery = Literal["confirmed", "unconfirmed", "not_sent"]
"""``unconfirmed``: handed to the client but not confirmed; it may still reach NATS."""


async def publish_requests(
    nats: NatsLink, jobs: list[JobRequest], subjects: list[str], metrics: Metrics, event: str
) -> Delivery:
    """Publish the requests of ``jobs`` as one batch confirmed by one flush; on failure count
    and log it, and tell whether the requests may have gone out all the same."""
    messages = [
        (subject, job.body(), job.headers()) for subject, job in zip(subjects, jobs, strict=True)
    ]
    try:
        await nats.publish_many(messages)
    except NatsUnavailable as exc:
        metrics.publish_failures.inc(len(jobs))
        log.error(event, jobs=len(jobs), error=str(exc), maybe_sent=exc.maybe_sent)
        return "unconfirmed" if exc.maybe_sent else "not_sent"
    return "confirmed"
