"""Checks across a consolidation's documents: what no single document can tell."""
