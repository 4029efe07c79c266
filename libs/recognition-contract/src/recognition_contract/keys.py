"""Object keys the contract fixes."""

from __future__ import annotations

from uuid import UUID


def result_key(file_id: UUID | str, job_id: UUID | str) -> str:
    """``results/{file_id}/{job_id}/result.json``: one result file per attempt."""
    return f"results/{UUID(str(file_id))}/{UUID(str(job_id))}/result.json"


def raw_prefix(file_id: UUID | str, job_id: UUID | str) -> str:
    """``raw/{file_id}/{job_id}/``: where a service keeps raw recognition output."""
    return f"raw/{UUID(str(file_id))}/{UUID(str(job_id))}/"
