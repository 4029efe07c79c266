"""The async connection pool every request handler and loop borrows from."""

from __future__ import annotations

from typing import TypeAlias

import orjson
import psycopg
from psycopg import AsyncConnection
from psycopg.rows import DictRow, dict_row
from psycopg.types.json import set_json_loads
from psycopg_pool import AsyncConnectionPool

Connection: TypeAlias = AsyncConnection[DictRow]
Pool: TypeAlias = AsyncConnectionPool[Connection]


async def open_pool(dsn: str, *, max_size: int, name: str = "arm-core") -> Pool:
    """Open a pool without waiting for the database: a core started while PostgreSQL is down
    comes up, reports ``db = down`` and recovers when the server returns."""
    pool: Pool = AsyncConnectionPool(
        dsn,
        min_size=1,
        max_size=max_size,
        name=name,
        open=False,
        connection_class=AsyncConnection[DictRow],
        # A failed connection attempt is not rescheduled (the pool's own backoff doubles
        # without bound, which would keep a returned database unused for minutes): the next
        # request for a connection tries again. Callers that ride out an outage therefore
        # ask with short timeouts, and the pool reconnects the moment one of them asks.
        reconnect_timeout=0,
        # Autocommit: a lone statement is one round trip, not BEGIN, statement, COMMIT (an
        # upload's registration, every read of a page). Work of several statements that must
        # hold together says so with ``conn.transaction()``.
        kwargs={
            "application_name": name,
            "connect_timeout": 5,
            "row_factory": dict_row,
            "autocommit": True,
        },
        configure=_configure,
    )
    await pool.open(wait=False)
    return pool


async def _configure(conn: AsyncConnection[DictRow]) -> None:
    # Every row of a document carries its locator as jsonb: a 100,000-row trial balance is a
    # hundred thousand documents to parse, which orjson does several times faster.
    set_json_loads(orjson.loads, conn)


def database_unavailable(exc: BaseException) -> bool:
    """The database could not be reached or the connection broke: the same work may succeed
    when it returns. A client-side ``InternalError`` (no SQLSTATE) is a command that got no
    answer from a dying connection, such as a cut-off COMMIT."""
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError | TimeoutError):
        return True
    return isinstance(exc, psycopg.InternalError) and exc.sqlstate is None
