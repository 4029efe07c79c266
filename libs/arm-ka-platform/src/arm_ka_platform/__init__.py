"""Shared plumbing of arm-core and the stateless recognition services."""
