"""Prometheus metrics of one arm-core process, in a registry of its own (no global state)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.jobs = Gauge(
            "arm_ka_recognition_jobs", "Recognition jobs by status", ["status"], registry=r
        )
        self.publishes = Counter(
            "arm_ka_outbox_publishes", "Requests published (first publication)", registry=r
        )
        self.publish_failures = Counter(
            "arm_ka_outbox_publish_failures", "Publish attempts not confirmed by NATS", registry=r
        )
        self.republishes = Counter(
            "arm_ka_outbox_republishes", "Requests published again for lack of an ack", registry=r
        )
        self.dlq = Counter("arm_ka_outbox_dlq", "Jobs sent to dlq (NO_ACK)", registry=r)
        self.timeouts = Counter("arm_ka_watchdog_timeouts", "Jobs timed out", registry=r)
        self.acks = Counter(
            "arm_ka_inbox_acks", "Acks received, by outcome", ["outcome"], registry=r
        )
        self.results = Counter(
            "arm_ka_inbox_results",
            "Results received, by outcome (applied, duplicate, late, unknown, bad)",
            ["outcome"],
            registry=r,
        )
        self.mapping = Counter(
            "arm_ka_mapping_results",
            "Result files mapped into documents, by outcome (mapped, failed)",
            ["outcome"],
            registry=r,
        )
        self.transitions = Counter(
            "arm_ka_transitions",
            "State transitions of recognition jobs (and their files) applied, by event",
            ["event"],
            registry=r,
        )
        self.transitions_missed = Counter(
            "arm_ka_transition_missed",
            "Transitions whose guard matched no row (the job was not in the expected state)",
            ["event"],
            registry=r,
        )
        self.inbox_held = Gauge(
            "arm_ka_inbox_held",
            "Acks and results received and not applied yet (waiting, or held for the database)",
            registry=r,
        )
        self.inbox_retries = Counter(
            "arm_ka_inbox_database_retries",
            "Attempts to apply an envelope that failed because the database was away",
            registry=r,
        )
        self.loop_seconds = Histogram(
            "arm_ka_loop_pass_seconds",
            "Duration of one pass of a background loop",
            ["loop"],
            registry=r,
            buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30),
        )
        self.loop_errors = Counter(
            "arm_ka_loop_pass_errors",
            "Passes of a background loop that failed",
            ["loop"],
            registry=r,
        )

    def observe_pass(self, loop: str, seconds: float, ok: bool) -> None:
        self.loop_seconds.labels(loop).observe(seconds)
        if not ok:
            self.loop_errors.labels(loop).inc()
