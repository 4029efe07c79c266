"""Logins under way and signed-in sessions, kept in PostgreSQL (any instance serves any
analyst). The browser holds random values; the tables hold their SHA-256, so a copy of a
table signs no one in.

A login is bound to the browser that started it: that browser holds a random value in a
short-lived cookie, the login its hash, and the callback is taken only with both. A callback
link opened in another browser (an attacker's sign-in handed to a victim, who would then work
under the attacker's account) completes nothing, and leaves the login to its own browser."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass

from psycopg.types.json import Jsonb

from arm_core.auth.principal import Principal
from arm_core.db.pool import Pool

LOGIN_MINUTES = 10

BEGIN_LOGIN = """
WITH swept AS (DELETE FROM login_request WHERE expires_at < now())
INSERT INTO login_request (state_hash, code_verifier, nonce, next_path, expires_at,
                           browser_hash)
VALUES (%(state_hash)s, %(verifier)s, %(nonce)s, %(next)s,
        now() + make_interval(mins => %(minutes)s), %(browser_hash)s)
"""

# Once, and only in the browser that started it: a state is good for one callback.
TAKE_LOGIN = """
DELETE FROM login_request
 WHERE state_hash = %(state_hash)s AND browser_hash = %(browser_hash)s AND expires_at > now()
RETURNING code_verifier, nonce, next_path
"""

# A state that is under way, for a callback that did not bring its browser's value.
LOGIN_UNDER_WAY = """
SELECT EXISTS (SELECT 1 FROM login_request
                WHERE state_hash = %(state_hash)s AND expires_at > now()) AS under_way
"""

OPEN_SESSION = """
WITH swept AS (DELETE FROM user_session WHERE expires_at < now()),
opened AS (
    INSERT INTO user_session (token_hash, user_name, roles, teams, csrf_token, expires_at)
    VALUES (%(token_hash)s, %(user)s, %(roles)s, %(teams)s, %(csrf)s,
            now() + make_interval(secs => %(seconds)s))
    RETURNING user_name
)
INSERT INTO audit_log (actor, action, details)
SELECT user_name, 'auth.sign_in', %(details)s FROM opened
"""

FIND_SESSION = """
SELECT user_name, roles, teams, csrf_token FROM user_session
 WHERE token_hash = %(token_hash)s AND expires_at > now()
"""

CLOSE_SESSION = """
WITH closed AS (
    DELETE FROM user_session WHERE token_hash = %(token_hash)s RETURNING user_name
)
INSERT INTO audit_log (actor, action, details)
SELECT user_name, 'auth.sign_out', '{}'::jsonb FROM closed
"""


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def pkce_challenge(verifier: str) -> str:
    """RFC 7636, S256."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class LoginStart:
    state: str
    nonce: str
    verifier: str
    # For the starting browser's cookie alone.
    browser: str


@dataclass(frozen=True)
class LoginUnderWay:
    verifier: str
    nonce: str
    next_path: str


@dataclass(frozen=True)
class Session:
    principal: Principal
    csrf_token: str


async def begin_login(pool: Pool, next_path: str) -> LoginStart:
    start = LoginStart(
        state=secrets.token_urlsafe(32),
        nonce=secrets.token_urlsafe(32),
        verifier=secrets.token_urlsafe(64),
        browser=secrets.token_urlsafe(32),
    )
    async with pool.connection() as conn:
        await conn.execute(
            BEGIN_LOGIN,
            {
                "browser_hash": _hash(start.browser),
                "state_hash": _hash(start.state),
                "verifier": start.verifier,
                "nonce": start.nonce,
                "next": next_path,
                "minutes": LOGIN_MINUTES,
            },
        )
    return start


class OtherBrowser(Exception):
    """A callback for a login under way that another browser started."""


async def take_login(pool: Pool, state: str, browser: str | None) -> LoginUnderWay | None:
    """The login ``state`` names, once, if ``browser`` (the cookie's value) started it; None
    for a state that is nobody's (expired, taken, made up); ``OtherBrowser`` for one under way
    in another browser, which stays there."""
    params = {"state_hash": _hash(state), "browser_hash": _hash(browser or "")}
    async with pool.connection() as conn:
        row = await (await conn.execute(TAKE_LOGIN, params)).fetchone()
        if row is None:
            elsewhere = await (await conn.execute(LOGIN_UNDER_WAY, params)).fetchone()
            if elsewhere is not None and elsewhere["under_way"]:
                raise OtherBrowser
            return None
    return LoginUnderWay(
        verifier=row["code_verifier"], nonce=row["nonce"], next_path=row["next_path"]
    )


async def open_session(pool: Pool, who: Principal, seconds: float) -> str:
    """A new session for ``who``; the token the browser keeps."""
    token = secrets.token_urlsafe(32)
    async with pool.connection() as conn:
        await conn.execute(
            OPEN_SESSION,
            {
                "token_hash": _hash(token),
                "user": who.user,
                "roles": sorted(who.roles),
                "teams": sorted(who.teams),
                "csrf": secrets.token_urlsafe(32),
                "seconds": seconds,
                "details": Jsonb({"roles": sorted(who.roles), "teams": sorted(who.teams)}),
            },
        )
    return token


async def find_session(pool: Pool, token: str) -> Session | None:
    async with pool.connection() as conn:
        row = await (await conn.execute(FIND_SESSION, {"token_hash": _hash(token)})).fetchone()
    if row is None:
        return None
    return Session(
        principal=Principal.of(row["user_name"], row["roles"], row["teams"]),
        csrf_token=row["csrf_token"],
    )


async def close_session(pool: Pool, token: str) -> None:
    async with pool.connection() as conn:
        await conn.execute(CLOSE_SESSION, {"token_hash": _hash(token)})
