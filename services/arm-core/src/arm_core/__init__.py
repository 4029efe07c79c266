"""arm-core: the only writer of the database; exchanges recognition jobs over NATS."""
