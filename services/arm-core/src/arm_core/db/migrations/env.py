"""Alembic environment: the engine comes from the caller (see arm_core.db.migrate)."""

from __future__ import annotations

from alembic import context

from arm_core.db.tables import metadata

engine = context.config.attributes["engine"]

with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=metadata, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()
