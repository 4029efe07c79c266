"""Errors raised when a payload breaks the contract."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from recognition_contract.enums import ErrorCode

# Long enough for a useful summary, short enough for error.message of an envelope.
MAX_MESSAGE_CHARS = 1000


class Reason(StrEnum):
    """What exactly was wrong; the wire code stays SCHEMA_MISMATCH for all of them."""

    TOO_LARGE = "too_large"
    NOT_UTF8 = "not_utf8"
    NOT_JSON = "not_json"
    NOT_OBJECT = "not_object"
    MALFORMED_VERSION = "malformed_version"
    UNKNOWN_MAJOR = "unknown_major"
    SCHEMA = "schema"


class ContractError(ValueError):
    """A payload does not satisfy the contract.

    ``code`` is what a service puts into ``error.code`` of its error envelope, ``reason`` tells
    the cases apart for logs and metrics, ``errors`` lists individual schema violations.
    """

    def __init__(
        self,
        reason: Reason,
        message: str,
        *,
        errors: Sequence[str] = (),
        code: ErrorCode = ErrorCode.SCHEMA_MISMATCH,
    ) -> None:
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[: MAX_MESSAGE_CHARS - 1] + "…"
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.errors: tuple[str, ...] = tuple(errors)
        self.code = code


class MalformedVersion(ContractError):
    """``schema_version`` is missing or is not ``MAJOR.MINOR``."""

    def __init__(self, message: str) -> None:
        super().__init__(Reason.MALFORMED_VERSION, message)


class UnknownMajor(ContractError):
    """``schema_version`` names a MAJOR this side does not speak."""

    def __init__(self, version: str, accepted: Sequence[int]) -> None:
        majors = ", ".join(f"{m}.x" for m in sorted(accepted))
        super().__init__(
            Reason.UNKNOWN_MAJOR, f"unsupported schema_version {version}; accepted: {majors}"
        )
        self.version = version
        self.accepted: tuple[int, ...] = tuple(sorted(accepted))
