"""HTTP API of arm-core."""
