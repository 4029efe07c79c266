"""Which files and consolidations a user may see, as SQL conditions every read query adds.

An analyst sees the consolidations of their teams, with their files, and the files they
uploaded outside any consolidation; supervisors and admins see everything. A file or
consolidation out of sight is answered as not found, so its existence does not leak.
The conditions take ``Principal.sql()``'s parameters, which say for each purpose (reading,
changing) what the user's roles and teams reach.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from arm_core.auth.principal import Principal, Purpose
from arm_core.db.pool import Pool
from arm_core.refusal import Refused

# ``c``: a consolidation row.
VISIBLE_CONSOLIDATION = "(%(sees_all)s OR c.team = ANY(%(teams)s::text[]))"

# ``f``: a stored_file row.
VISIBLE_FILE = """(%(sees_all)s
     OR EXISTS (SELECT 1 FROM consolidation vc
                 WHERE vc.id = f.consolidation_id AND vc.team = ANY(%(teams)s::text[]))
     OR (f.consolidation_id IS NULL
         AND EXISTS (SELECT 1 FROM s3_object vo
                      WHERE vo.id = f.s3_object_id AND vo.created_by = %(user)s)))"""


async def visible_files(
    pool: Pool, who: Principal, file_ids: list[uuid.UUID], purpose: Purpose = "read"
) -> set[uuid.UUID]:
    """Those of ``file_ids`` that exist and ``who`` may see (or, for ``change``, change)."""
    if not file_ids:
        return set()
    async with pool.connection() as conn:
        rows = await (
            await conn.execute(
                f"SELECT f.id FROM stored_file f WHERE f.id = ANY(%(ids)s) AND {VISIBLE_FILE}",
                {"ids": file_ids, **who.sql(purpose)},
            )
        ).fetchall()
    return {row["id"] for row in rows}


async def change_refusals(
    pool: Pool, who: Principal, file_ids: list[uuid.UUID]
) -> dict[uuid.UUID, Refused]:
    """Those of ``file_ids`` that ``who`` may not change, each with why: 404 for a file out of
    their sight (as if it did not exist), 403 for one they see but may not change (another
    team's, seen through a supervisor's role)."""
    changeable = await visible_files(pool, who, file_ids, "change")
    rest = [file_id for file_id in file_ids if file_id not in changeable]
    seen = await visible_files(pool, who, rest)
    return {
        file_id: Refused(403, "FORBIDDEN", "файл другой команды: изменять его нельзя")
        if file_id in seen
        else Refused(404, "FILE_NOT_FOUND", "файл не найден")
        for file_id in rest
    }


@dataclass(frozen=True)
class Sight:
    """What one user sees at a moment: for telling which file changes they may hear of."""

    consolidations: frozenset[uuid.UUID] | None  # None: every one
    own_files: frozenset[uuid.UUID] = frozenset()

    def sees(self, file_id: uuid.UUID, consolidation_id: uuid.UUID | None) -> bool:
        if self.consolidations is None:
            return True
        if consolidation_id is None:
            return file_id in self.own_files
        return consolidation_id in self.consolidations


async def sight(pool: Pool, who: Principal) -> Sight:
    if who.sees_all:
        return Sight(consolidations=None)
    async with pool.connection() as conn:
        consolidations = await (
            await conn.execute(
                f"SELECT c.id FROM consolidation c WHERE {VISIBLE_CONSOLIDATION}", who.sql()
            )
        ).fetchall()
        own = await (
            await conn.execute(
                "SELECT f.id FROM stored_file f"
                f" WHERE f.consolidation_id IS NULL AND {VISIBLE_FILE}",
                who.sql(),
            )
        ).fetchall()
    return Sight(
        consolidations=frozenset(row["id"] for row in consolidations),
        own_files=frozenset(row["id"] for row in own),
    )
