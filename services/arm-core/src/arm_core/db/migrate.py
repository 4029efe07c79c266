"""Alembic, driven from code: ``arm-core migrate`` and the tests' template database."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine

MIGRATIONS = Path(__file__).parent / "migrations"


def sqlalchemy_url(dsn: str) -> str:
    """libpq's ``postgresql://`` form, with the driver this project uses."""
    for prefix in ("postgresql://", "postgres://"):
        if dsn.startswith(prefix):
            return "postgresql+psycopg://" + dsn.removeprefix(prefix)
    raise ValueError("DATABASE_URL must start with postgresql://")


def make_engine(dsn: str) -> Engine:
    return create_engine(sqlalchemy_url(dsn), poolclass=None)


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


def upgrade(dsn: str, revision: str = "head") -> None:
    engine = make_engine(dsn)
    try:
        command.upgrade(alembic_config(engine), revision)
    finally:
        engine.dispose()


def downgrade(dsn: str, revision: str = "base") -> None:
    engine = make_engine(dsn)
    try:
        command.downgrade(alembic_config(engine), revision)
    finally:
        engine.dispose()
