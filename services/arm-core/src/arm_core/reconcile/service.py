"""A consolidation's reconciliation, for whoever may see it (over the files they may see)."""

from __future__ import annotations

import uuid

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool
from arm_core.files.queries import RECOGNISED, consolidation_files
from arm_core.reconcile.checks import Check, FileDocuments, reconcile
from arm_core.review.service import reviewed_documents


async def consolidation_checks(
    pool: Pool, who: Principal, consolidation_id: uuid.UUID
) -> list[Check]:
    files = [
        FileDocuments(
            file_id=str(row["id"]),
            name=row["original_name"],
            sha256=row["sha256"],
            documents=(
                await reviewed_documents(pool, row["id"]) if row["status"] in RECOGNISED else []
            ),
        )
        for row in await consolidation_files(pool, who, consolidation_id)
    ]
    return reconcile(files)
