"""Settings groups shared by arm-core and the recognition services.

Environment names are fixed by the deployment (see README): flat keys such as ``NATS_URL`` and
nested secrets under ``OPENBAO__<GROUP>__<KEY>``. Secrets are ``SecretStr`` and every settings
class hides input values in validation errors, so a bad neighbour field never echoes a JWT.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Self, TypeVar
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

_BAD_TOKEN = re.compile(r"[*>]")
_WHITESPACE = re.compile(r"\s")


def _check_subject(value: str) -> str:
    if not value:
        raise ValueError("subject must not be empty")
    if _WHITESPACE.search(value):
        raise ValueError("subject must not contain whitespace")
    if _BAD_TOKEN.search(value):
        raise ValueError("subject must not contain wildcards '*' or '>'")
    if any(token == "" for token in value.split(".")):
        raise ValueError("subject must not contain empty tokens ('a..b', leading or trailing '.')")
    return value


Subject = Annotated[str, AfterValidator(_check_subject)]

SUBJECT_KEYS = {
    "nats_tabular_request_subject": "OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT",
    "nats_image_request_subject": "OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT",
    "nats_result_subject": "OPENBAO__NATS__NATS_RESULT_SUBJECT",
}


class NatsSecrets(BaseModel):
    """``OPENBAO__NATS__*``: credentials and the three exchange subjects."""

    model_config = ConfigDict(hide_input_in_errors=True, frozen=True)

    nats_seed: SecretStr | None = None
    nats_jwt: SecretStr | None = None
    nats_tabular_request_subject: Subject = "files.tabular_uploaded"
    nats_image_request_subject: Subject = "files.img_uploaded"
    nats_result_subject: Subject = "files.tabular_parsed"

    @model_validator(mode="after")
    def _subjects_distinct(self) -> Self:
        seen: dict[str, str] = {}
        for field, key in SUBJECT_KEYS.items():
            value = getattr(self, field)
            if value in seen:
                raise ValueError(f"{key} must differ from {seen[value]} (both are {value!r})")
            seen[value] = key
        return self

    @model_validator(mode="after")
    def _jwt_needs_seed(self) -> Self:
        if self.nats_jwt is not None and self.nats_seed is None:
            raise ValueError("OPENBAO__NATS__NATS_JWT is set without OPENBAO__NATS__NATS_SEED")
        return self


class S3Secrets(BaseModel):
    """``OPENBAO__S3__*``: object storage credentials."""

    model_config = ConfigDict(hide_input_in_errors=True, frozen=True)

    access_key_id: SecretStr | None = None
    secret_access_key: SecretStr | None = None


class OpenBao(BaseModel):
    """Secrets delivered by the vault, grouped as the vault paths are."""

    model_config = ConfigDict(hide_input_in_errors=True, frozen=True)

    nats: NatsSecrets = Field(default_factory=NatsSecrets)
    s3: S3Secrets = Field(default_factory=S3Secrets)


class Subjects(BaseModel):
    """The three exchange subjects in use, as reported by logs and ``/healthcheck``."""

    model_config = ConfigDict(frozen=True)

    tabular_request: str
    image_request: str
    result: str

    def request_for(self, pipeline: str) -> str:
        if pipeline == "tabular":
            return self.tabular_request
        if pipeline == "image":
            return self.image_request
        raise ValueError(f"unknown pipeline {pipeline!r}")


class StorageConfig(BaseModel):
    """Where objects live: a local directory or an S3-compatible store."""

    model_config = ConfigDict(frozen=True)

    url: str
    bucket: str
    s3_endpoint_url: str | None
    s3_region: str
    access_key_id: SecretStr | None
    secret_access_key: SecretStr | None


class NatsConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    servers: tuple[str, ...]
    enabled: bool
    seed: SecretStr | None
    jwt: SecretStr | None
    subjects: Subjects


class PlatformSettings(BaseSettings):
    """Keys every process of the system reads: NATS, storage, logging."""

    model_config = SettingsConfigDict(
        env_nested_delimiter="__",
        case_sensitive=False,
        extra="ignore",
        hide_input_in_errors=True,
        frozen=True,
    )

    debug: bool = False
    log_json: bool | None = None
    nats_url: str = "nats://127.0.0.1:4222"
    nats_enabled: bool = True
    storage_url: str = "file:///var/lib/arm-ka/storage"
    storage_bucket: str = "arm-ka"
    s3_endpoint_url: str | None = None
    s3_region: str = "us-east-1"
    openbao: OpenBao = Field(default_factory=OpenBao)

    @model_validator(mode="after")
    def _storage_url_scheme(self) -> Self:
        scheme = urlsplit(self.storage_url).scheme
        if scheme not in ("file", "s3"):
            raise ValueError("STORAGE_URL must start with file:// or s3://")
        if scheme == "file" and not urlsplit(self.storage_url).path.startswith("/"):
            raise ValueError("STORAGE_URL must be file:///absolute/dir")
        return self

    @property
    def subjects(self) -> Subjects:
        bao = self.openbao.nats
        return Subjects(
            tabular_request=bao.nats_tabular_request_subject,
            image_request=bao.nats_image_request_subject,
            result=bao.nats_result_subject,
        )

    @property
    def nats(self) -> NatsConfig:
        servers = tuple(s.strip() for s in self.nats_url.split(",") if s.strip())
        return NatsConfig(
            servers=servers,
            enabled=self.nats_enabled,
            seed=self.openbao.nats.nats_seed,
            jwt=self.openbao.nats.nats_jwt,
            subjects=self.subjects,
        )

    @property
    def storage(self) -> StorageConfig:
        return StorageConfig(
            url=self.storage_url,
            bucket=self.storage_bucket,
            s3_endpoint_url=self.s3_endpoint_url,
            s3_region=self.s3_region,
            access_key_id=self.openbao.s3.access_key_id,
            secret_access_key=self.openbao.s3.secret_access_key,
        )


class SettingsError(Exception):
    """Settings that stop the process; the message names the keys, never their values."""


def _env_key(loc: tuple[int | str, ...]) -> str:
    return "__".join(str(part).upper() for part in loc) or "SETTINGS"


T = TypeVar("T", bound=BaseSettings)


def load_settings(cls: type[T], **overrides: Any) -> T:
    """Build settings from the environment, turning validation errors into one safe message."""
    try:
        return cls(**overrides)
    except ValidationError as exc:
        lines = []
        for error in exc.errors(include_input=False, include_url=False):
            message = str(error["msg"]).removeprefix("Value error, ")
            lines.append(f"{_env_key(error['loc'])}: {message}")
        raise SettingsError("invalid settings:\n  " + "\n  ".join(lines)) from None


def redact_url(url: str) -> str:
    """A URL fit for logs: user info and query string (where libpq keeps passwords) removed."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"
