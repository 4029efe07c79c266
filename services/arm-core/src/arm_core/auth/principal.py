"""The acting user: a login, roles and teams, and what those allow.

``analyst``: uploads, views and retries within the consolidations of their teams (and the files
they uploaded outside any consolidation); ``supervisor``: sees everything, changes nothing;
``admin``: everything, the audit trail included.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Role(StrEnum):
    ANALYST = "analyst"
    SUPERVISOR = "supervisor"
    ADMIN = "admin"


@dataclass(frozen=True)
class Principal:
    user: str
    roles: frozenset[Role] = field(default_factory=frozenset)
    teams: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, user: str, roles: Iterable[str], teams: Iterable[str]) -> Principal:
        """Unknown role names are dropped: a token may carry the provider's own roles too."""
        known = {role.value for role in Role}
        return cls(
            user=user[:200],
            roles=frozenset(Role(name) for name in roles if name in known),
            teams=frozenset(team[:200] for team in teams if team),
        )

    @property
    def sees_all(self) -> bool:
        return bool(self.roles & {Role.SUPERVISOR, Role.ADMIN})

    @property
    def may_change(self) -> bool:
        """Upload, retry, create: an analyst's or an admin's work, never a supervisor's."""
        return bool(self.roles & {Role.ANALYST, Role.ADMIN})

    @property
    def is_admin(self) -> bool:
        return Role.ADMIN in self.roles

    def may_work_in(self, team: str | None) -> bool:
        """Whether this user may change things in a consolidation of ``team``."""
        if self.is_admin:
            return True
        return Role.ANALYST in self.roles and team is not None and team in self.teams

    def sql(self) -> dict[str, Any]:
        """The parameters of ``access.VISIBLE_FILE`` and ``access.VISIBLE_CONSOLIDATION``."""
        return {
            "sees_all": self.sees_all,
            "teams": sorted(self.teams),
            "user": self.user,
        }


def claim(claims: dict[str, Any], path: str) -> Any:
    """A claim by its dotted path (``realm_access.roles`` in Keycloak's tokens)."""
    value: Any = claims
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def names(value: Any) -> list[str]:
    """A claim read as a list of names: a JSON list, or a string of comma- or space-separated
    names; group paths (``/credit/team-a``) keep their last segment."""
    if isinstance(value, str):
        items: list[Any] = value.replace(",", " ").split()
    elif isinstance(value, list):
        items = value
    else:
        return []
    return [item.rstrip("/").rsplit("/", 1)[-1] for item in items if isinstance(item, str)]
