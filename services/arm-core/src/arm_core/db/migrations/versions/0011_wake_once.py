"""The notifications that only wake a loop carry no payload: PostgreSQL delivers one per
channel and transaction however many rows changed, so a batch of a thousand jobs wakes the
outbox or the mapping once, not a thousand times. (Nobody reads their payload: a woken loop
claims what is there.)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_FUNCTION = """
CREATE OR REPLACE FUNCTION notify_recognition_job_{name}() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('recognition_job_{name}', {payload});
    RETURN NULL;
END
$$;
"""


def upgrade() -> None:
    for name in ("queued", "finished"):
        op.execute(_FUNCTION.format(name=name, payload="''"))


def downgrade() -> None:
    for name in ("queued", "finished"):
        op.execute(_FUNCTION.format(name=name, payload="NEW.id::text"))
