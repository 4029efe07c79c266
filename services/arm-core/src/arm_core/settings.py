"""arm-core settings: the shared platform keys plus the database, exchange timings and HTTP."""

from __future__ import annotations

import ipaddress
from typing import Literal, Self
from urllib.parse import urlsplit

from pydantic import (
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    SecretStr,
    field_validator,
    model_validator,
)

from arm_ka_platform.settings import PlatformSettings, redact_url


class CoreSettings(PlatformSettings):
    database_url: SecretStr = SecretStr("postgresql://postgres@127.0.0.1:5432/arm_ka")
    database_pool_size: PositiveInt = 10

    outbox_poll_seconds: PositiveFloat = 5.0
    outbox_batch_size: PositiveInt = 500
    ack_timeout_seconds: PositiveFloat = 30.0
    outbox_max_republish: int = Field(default=3, ge=0)
    reply_timeout_seconds: PositiveFloat = 600.0
    watchdog_period_seconds: PositiveFloat = 30.0
    recognition_max_attempts: PositiveInt = 3
    mapping_period_seconds: PositiveFloat = 5.0
    # Mapping can be left to chosen instances (it reads result files, the heavier work).
    mapping_enabled: bool = True
    # Jobs mapped in one transaction, and the result bytes one transaction takes: a batch
    # ends with the result that reaches them (one is always taken, however large).
    mapping_batch_size: PositiveInt = 200
    mapping_batch_bytes: PositiveInt = 64 * 1024 * 1024

    http_host: str = "127.0.0.1"
    http_port: int = Field(default=8000, ge=0, le=65535)
    upload_max_bytes: PositiveInt = 100 * 1024 * 1024
    # Any other request body: the API's JSON, the pages' forms.
    body_max_bytes: PositiveInt = 256 * 1024
    # How long an upload waits for PostgreSQL to come back before answering 503.
    upload_register_wait_seconds: PositiveFloat = 15.0
    # OpenID Connect (the bank's identity provider): the API takes its bearer tokens, the
    # pages sign in through it. Roles and teams come from the claims named here (a dotted
    # path reaches into an object: realm_access.roles).
    oidc_issuer: str | None = None
    oidc_client_id: str | None = None
    oidc_client_secret: SecretStr | None = None
    # The token's aud must name this; unset: the client id.
    oidc_audience: str | None = None
    oidc_scopes: str = "openid profile email"
    oidc_user_claim: str = "preferred_username"
    oidc_roles_claim: str = "roles"
    oidc_teams_claim: str = "groups"
    oidc_jwks_min_refresh_seconds: NonNegativeFloat = 10.0
    # Where analysts reach the core (https://arm-ka.bank.example): the sign-in's redirect URI
    # and the origin state-changing requests must come from. Unset: taken from each request.
    public_url: str | None = None
    session_hours: PositiveFloat = 8.0
    # Off only for plain-HTTP development behind no TLS at all.
    session_cookie_secure: bool = True
    # Or: a reverse proxy authenticates analysts and passes the login in a header (and their
    # roles and teams in two more, comma-separated; without a roles header every user is
    # auth_default_roles).
    auth_user_header: str | None = None
    auth_roles_header: str | None = None
    auth_teams_header: str | None = None
    auth_default_roles: list[str] = Field(default_factory=lambda: ["analyst"])
    # Addresses or networks of the proxies allowed to pass those headers, matched against the
    # socket's peer (no X-Forwarded-For or Forwarded header is ever read). Header mode needs
    # them named; empty is allowed in development only, and then trusts loopback peers.
    auth_trusted_proxies: list[str] = Field(default_factory=list)
    # With neither, only with DEBUG=true and on loopback: everything is done as dev_user.
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

    @model_validator(mode="after")
    def _one_sign_in(self) -> Self:
        if self.oidc_issuer is not None and self.oidc_client_id is None:
            raise ValueError("OIDC_ISSUER is set without OIDC_CLIENT_ID")
        if self.oidc_issuer is not None and self.auth_user_header is not None:
            raise ValueError("set OIDC_ISSUER or AUTH_USER_HEADER, not both")
        return self

    @property
    def auth_mode(self) -> Literal["oidc", "proxy", "off"]:
        if self.oidc_issuer is not None:
            return "oidc"
        return "proxy" if self.auth_user_header is not None else "off"

    @property
    def identity_provider_origins(self) -> tuple[str, ...]:
        """Where the pages' forms may lead besides the core: the issuer's sign-out."""
        if self.oidc_issuer is None:
            return ()
        parts = urlsplit(self.oidc_issuer)
        return (f"{parts.scheme}://{parts.netloc}",)

    def refusal(self) -> str | None:
        """Why this core must not start, if it must not: with no sign-in configured, borrower
        data would be open to anyone who reaches the port; behind a proxy that is not named,
        anyone who reaches the port could name themselves any user."""
        if self.auth_mode == "proxy" and not self.auth_trusted_proxies and not self.debug:
            return (
                "AUTH_USER_HEADER is set but AUTH_TRUSTED_PROXIES names no proxy: list the "
                'addresses of the proxies that pass the headers (["10.0.0.5"])'
            )
        if self.auth_mode != "off":
            return None
        if not self.debug:
            return (
                "no authentication configured: set OIDC_ISSUER and OIDC_CLIENT_ID (or "
                "AUTH_USER_HEADER behind a proxy), or DEBUG=true for a development identity"
            )
        if not _loopback(self.http_host):
            return "the development identity (DEBUG=true without sign-in) serves loopback only"
        return None

    @property
    def database_dsn(self) -> str:
        return self.database_url.get_secret_value()

    @property
    def database_display(self) -> str:
        return redact_url(self.database_dsn)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
