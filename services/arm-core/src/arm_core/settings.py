"""arm-core settings: the shared platform keys plus the database, exchange timings and HTTP."""

from __future__ import annotations

import ipaddress

from pydantic import Field, PositiveFloat, PositiveInt, SecretStr, field_validator

from arm_ka_platform.settings import PlatformSettings, redact_url


class CoreSettings(PlatformSettings):
    database_url: SecretStr = SecretStr("postgresql://postgres@127.0.0.1:5432/arm_ka")
    database_pool_size: PositiveInt = 10

    outbox_poll_seconds: PositiveFloat = 5.0
    outbox_batch_size: PositiveInt = 100
    ack_timeout_seconds: PositiveFloat = 30.0
    outbox_max_republish: int = Field(default=3, ge=0)
    reply_timeout_seconds: PositiveFloat = 600.0
    watchdog_period_seconds: PositiveFloat = 30.0
    recognition_max_attempts: PositiveInt = 3
    mapping_period_seconds: PositiveFloat = 5.0
    # Mapping can be left to chosen instances (it reads result files, the heavier work).
    mapping_enabled: bool = True

    http_host: str = "127.0.0.1"
    http_port: int = Field(default=8000, ge=0, le=65535)
    upload_max_bytes: PositiveInt = 100 * 1024 * 1024
    # Any other request body: the API's JSON, the pages' forms.
    body_max_bytes: PositiveInt = 256 * 1024
    # How long an upload waits for PostgreSQL to come back before answering 503.
    upload_register_wait_seconds: PositiveFloat = 15.0
    # Set when a reverse proxy authenticates analysts and passes the user name in a header;
    # unset means authentication is off and actions are attributed to dev_user.
    auth_user_header: str | None = None
    # Addresses or networks of the proxies allowed to pass that header; empty: any peer.
    auth_trusted_proxies: list[str] = Field(default_factory=list)
    dev_user: str = "dev"
    # With authentication on, /metrics answers to this bearer token (a scraper has no login).
    metrics_token: SecretStr | None = None
    # Requests that start work, per user per minute (and instance): uploads, retries.
    uploads_per_minute: PositiveInt = 6000
    retries_per_minute: PositiveInt = 600
    # Open event streams (one per page the analyst has open): in all, and per user.
    event_streams_max: PositiveInt = 500
    event_streams_per_user: PositiveInt = 20

    @field_validator("auth_trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for network in value:
            ipaddress.ip_network(network)  # ValueError: not an address or network
        return value

    @property
    def database_dsn(self) -> str:
        return self.database_url.get_secret_value()

    @property
    def database_display(self) -> str:
        return redact_url(self.database_dsn)
