"""Subjects are validated at start; secrets never leak through repr, errors or logs."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import structlog

from arm_ka_platform.logging import configure_logging, get_logger
from arm_ka_platform.settings import (
    PlatformSettings,
    SettingsError,
    load_settings,
    redact_url,
)

JWT = "eyJhbGciOiJlZDI1NTE5LW5rZXkifQ.top-secret-claims.sig"
SEED = "SUACSSL3UAHUDXKFSNVUZRF5UHPMWZ6BFDTJ7M6USDXIEDNPPQYYYCU3VY"


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """configure_logging binds a handler to the stream of the moment (pytest's capture here);
    later tests must not log into that closed stream."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.reset_defaults()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for key in list(os.environ):
        if key.startswith(("OPENBAO__", "NATS_", "STORAGE_", "S3_")):
            monkeypatch.delenv(key)


def test_default_subjects() -> None:
    subjects = load_settings(PlatformSettings).subjects
    assert subjects.tabular_request == "files.tabular_uploaded"
    assert subjects.image_request == "files.img_uploaded"
    assert subjects.result == "files.tabular_parsed"


def test_subjects_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT", "test.files.tabular_uploaded")
    monkeypatch.setenv("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", "test.files.img_uploaded")
    monkeypatch.setenv("OPENBAO__NATS__NATS_RESULT_SUBJECT", "test.files.tabular_parsed")
    subjects = load_settings(PlatformSettings).subjects
    assert subjects.request_for("tabular") == "test.files.tabular_uploaded"
    assert subjects.request_for("image") == "test.files.img_uploaded"
    assert subjects.result == "test.files.tabular_parsed"


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("OPENBAO__NATS__NATS_RESULT_SUBJECT", "files.>", "wildcard"),
        ("OPENBAO__NATS__NATS_RESULT_SUBJECT", "*", "wildcard"),
        ("OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT", "", "empty"),
        ("OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT", "a..b", "empty tokens"),
        ("OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT", "files.", "empty tokens"),
        ("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", "files\timg", "whitespace"),
        ("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", "files. img", "whitespace"),
    ],
)
def test_invalid_subject_names_the_key(
    monkeypatch: pytest.MonkeyPatch, key: str, value: str, reason: str
) -> None:
    monkeypatch.setenv(key, value)
    with pytest.raises(SettingsError) as error:
        load_settings(PlatformSettings)
    assert key in str(error.value)
    assert reason in str(error.value)


def test_subjects_must_be_pairwise_distinct(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBAO__NATS__NATS_RESULT_SUBJECT", "files.tabular_uploaded")
    with pytest.raises(SettingsError) as error:
        load_settings(PlatformSettings)
    assert "OPENBAO__NATS__NATS_RESULT_SUBJECT" in str(error.value)
    assert "OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT" in str(error.value)


def test_secrets_hidden_in_repr_errors_and_logs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENBAO__NATS__NATS_JWT", JWT)
    monkeypatch.setenv("OPENBAO__NATS__NATS_SEED", SEED)
    monkeypatch.setenv("OPENBAO__S3__SECRET_ACCESS_KEY", "s3-secret-value")
    settings = load_settings(PlatformSettings)
    assert settings.openbao.nats.nats_jwt is not None
    assert settings.openbao.nats.nats_jwt.get_secret_value() == JWT
    shown = repr(settings) + str(settings) + repr(settings.nats) + repr(settings.storage)
    assert JWT not in shown
    assert SEED not in shown
    assert "s3-secret-value" not in shown
    assert "**********" in shown

    monkeypatch.setenv("NATS_ENABLED", "sometimes")
    with pytest.raises(SettingsError) as error:
        load_settings(PlatformSettings)
    message = str(error.value)
    assert "NATS_ENABLED" in message
    assert JWT not in message
    assert SEED not in message
    assert "sometimes" not in message
    assert error.value.__cause__ is None
    assert error.value.__suppress_context__

    configure_logging(json=True)
    get_logger("test").info("settings_loaded", settings=settings, nats=settings.nats)
    logging.getLogger("plain").warning("settings %r", settings)
    logged = capsys.readouterr().err
    assert "settings_loaded" in logged
    assert JWT not in logged
    assert SEED not in logged


def test_jwt_without_seed_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBAO__NATS__NATS_JWT", JWT)
    with pytest.raises(SettingsError) as error:
        load_settings(PlatformSettings)
    assert "OPENBAO__NATS__NATS_SEED" in str(error.value)
    assert JWT not in str(error.value)


def test_nats_url_lists_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATS_URL", "nats://a:4222, nats://b:4222")
    assert load_settings(PlatformSettings).nats.servers == ("nats://a:4222", "nats://b:4222")


def test_storage_url_must_be_file_or_s3(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORAGE_URL", "ftp://example/x")
    with pytest.raises(SettingsError, match="STORAGE_URL"):
        load_settings(PlatformSettings)


def test_redact_url_drops_credentials() -> None:
    assert (
        redact_url("postgresql://app:pw@db.example:5432/arm?password=x")
        == "postgresql://db.example:5432/arm"
    )
