"""Mapping: result files of finished jobs into documents, by the result's MAJOR."""
