"""Test corpus."""
