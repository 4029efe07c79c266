"""Mapping: result files of finished jobs into documents; the contract reads each file by
its own MAJOR into typed documents, and the store writes them."""
