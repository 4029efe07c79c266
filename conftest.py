"""Fixtures for every test of the repository: real PostgreSQL, NATS and storage come from the
devstack plugin; arm-core's template database and running core from arm_core.testing."""

pytest_plugins = ["arm_core.testing"]
