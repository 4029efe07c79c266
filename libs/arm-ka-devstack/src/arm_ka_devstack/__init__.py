"""Real infrastructure for one machine: the system's `arm-ka up` and the test suite share it."""
