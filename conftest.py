"""Fixtures for every test of the repository: real PostgreSQL, NATS and storage come from the
devstack plugin; arm-core's template database and running core from arm_core.testing; the
workers' subjects, storage and result collector from recognition_worker.fixtures."""

pytest_plugins = ["arm_core.testing", "recognition_worker.fixtures"]
