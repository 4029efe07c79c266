"""The async connection pool every request handler and loop borrows from."""

from __future__ import annotations

from typing import TypeAlias

from psycopg import AsyncConnection
from psycopg.rows import DictRow, dict_row
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
        reconnect_timeout=0,  # keep trying forever; never give the pool up
        kwargs={"application_name": name, "connect_timeout": 5, "row_factory": dict_row},
    )
    await pool.open(wait=False)
    return pool
