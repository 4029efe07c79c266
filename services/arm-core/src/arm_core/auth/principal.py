"""The acting user: a login, roles and teams, and what those allow, decided here alone.

``analyst``: uploads, views and retries within the consolidations of their teams (and the files
they uploaded outside any consolidation); ``supervisor``: sees everything, changes nothing;
``admin``: everything, the audit trail included. A user with none of these roles sees and
changes nothing, and a union of roles never widens a team: what a user may change is what
their analyst role may change, or everything for an admin, whatever else they may see.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

# What a request does with what it names: reads it, or changes it (retry, correct, confirm).
Purpose = Literal["read", "change"]


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
    def has_role(self) -> bool:
        """Whether the user holds any role here at all: without one, nothing is theirs."""
        return bool(self.roles)

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

    def sql(self, purpose: Purpose = "read") -> dict[str, Any]:
        """The parameters of ``access.VISIBLE_FILE`` and ``access.VISIBLE_CONSOLIDATION`` for
        what the request does: everything for a supervisor's or admin's reading and an
        admin's change; otherwise the analyst role's teams and own files, or nothing."""
        everything = self.sees_all if purpose == "read" else self.is_admin
        analyst = Role.ANALYST in self.roles
        return {
            "sees_all": everything,
            "teams": sorted(self.teams) if analyst else [],
            "user": self.user if analyst else None,
        }


def claim(claims: dict[str, Any], path: str) -> Any:
    """A claim by its dotted path (``realm_access.roles`` in Keycloak's tokens)."""
    value: Any = claims
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


_malformed_claims: set[str] = set()


def names(value: Any, *, what: str) -> list[str]:
    """A claim read as a list of names, which is the only form a list of roles or groups takes:
    a JSON list of strings. Anything else (a string, an object, a list holding other things)
    names nothing, and is logged once per claim (``what``); group paths (``/credit/team-a``)
    keep their last segment."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        if what not in _malformed_claims:
            _malformed_claims.add(what)
            log.warning("claim_not_a_list_of_names", claim=what, type=type(value).__name__)
        return []
    return [last_segment(item) for item in value]


def header_names(value: str) -> list[str]:
    """Names a proxy passes in one header: comma-separated. A name with a space inside is no
    name (``guest admin`` is neither a guest nor an admin)."""
    items = [item.strip() for item in value.split(",")]
    return [last_segment(item) for item in items if item and not any(c.isspace() for c in item)]


def last_segment(name: str) -> str:
    return name.rstrip("/").rsplit("/", 1)[-1]
