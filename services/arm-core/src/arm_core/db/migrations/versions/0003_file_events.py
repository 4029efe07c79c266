"""A notification on every change of a file's status or current attempt, for live screens.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The payload carries what a screen needs to decide whether the change concerns it; the
    # screen then reads the row itself, so a lost or repeated notification costs nothing.
    op.execute(
        """
        CREATE FUNCTION notify_stored_file_changed() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify(
                'stored_file_changed',
                json_build_object(
                    'id', NEW.id,
                    'status', NEW.status,
                    'consolidation_id', NEW.consolidation_id
                )::text
            );
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER stored_file_changed
            AFTER INSERT OR UPDATE OF status, current_recognition_job_id ON stored_file
            FOR EACH ROW
            EXECUTE FUNCTION notify_stored_file_changed();
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS stored_file_changed ON stored_file")
    op.execute("DROP FUNCTION IF EXISTS notify_stored_file_changed()")
