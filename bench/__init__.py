"""Benchmarks: numbers are reported, never asserted."""
