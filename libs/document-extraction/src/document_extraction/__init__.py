"""Grids of cells into contract 2.0 documents."""
