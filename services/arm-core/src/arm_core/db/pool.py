"""The async connection pool every request handler and loop borrows from."""

from __future__ import annotations

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool


async def _configure(conn: AsyncConnection[object]) -> None:
    conn.row_factory = dict_row


async def open_pool(dsn: str, *, max_size: int, name: str = "arm-core") -> AsyncConnectionPool:
    """Open a pool without waiting for the database: a core started while PostgreSQL is down
    comes up, reports ``db = down`` and recovers when the server returns."""
    pool: AsyncConnectionPool = AsyncConnectionPool(
        dsn,
        min_size=1,
        max_size=max_size,
        name=name,
        open=False,
        configure=_configure,
        reconnect_timeout=0,  # keep trying forever; never give the pool up
        kwargs={"application_name": name, "connect_timeout": 5},
    )
    await pool.open(wait=False)
    return pool
