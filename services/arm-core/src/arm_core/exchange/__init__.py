"""The job exchange with the recognition services: outbox, republisher, inbox, watchdog."""
