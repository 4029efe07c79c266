"""A consolidation's reconciliation, for whoever may see it (over the files they may see)."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.files.queries import RECOGNISED, consolidation_files
from arm_core.reconcile.checks import Check, FileDocuments
from arm_core.reconcile.run import reconcile
from arm_core.review.service import reviewed_documents


@dataclass(frozen=True)
class Excluded:
    """A file an analyst left out of the checks, and who, when and why."""

    file_id: uuid.UUID
    file_name: str
    by: str
    at: dt.datetime
    reason: str | None


@dataclass(frozen=True)
class Checked:
    checks: list[Check]
    excluded: list[Excluded]
    # The consolidation's files as read for the checks (``consolidation_files`` rows), so that
    # a page listing them reads them once.
    files: list[dict[str, Any]]


async def consolidation_checks(pool: Pool, who: Principal, consolidation_id: uuid.UUID) -> Checked:
    """The checks over the files ``who`` may see, the files left out of them, and the files."""
    rows = await consolidation_files(pool, who, consolidation_id)
    files = [
        FileDocuments(
            file_id=str(row["id"]),
            name=row["original_name"],
            sha256=row["sha256"],
            documents=(
                [r.document for r in await reviewed_documents(pool, row["id"])]
                if row["status"] in RECOGNISED and row["reconciliation_excluded_at"] is None
                else []
            ),
            excluded=row["reconciliation_excluded_at"] is not None,
        )
        for row in rows
    ]
    excluded = [
        Excluded(
            row["id"],
            row["original_name"],
            row["reconciliation_excluded_by"],
            row["reconciliation_excluded_at"],
            row["reconciliation_excluded_reason"],
        )
        for row in rows
        if row["reconciliation_excluded_at"] is not None
    ]
    return Checked(reconcile(files), excluded, rows)
