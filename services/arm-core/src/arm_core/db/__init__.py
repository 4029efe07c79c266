"""The database: table declarations, Alembic migrations and the connection pool."""
