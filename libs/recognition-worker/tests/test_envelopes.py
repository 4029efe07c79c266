"""An error envelope says its code in the contract version the service speaks: MAJOR 2 (from
2.2) has PASSWORD_PROTECTED, MAJOR 1 says UNREADABLE for it; both pass their schemas."""

from __future__ import annotations

import uuid

import pytest

from recognition_contract import ErrorCode, ServiceInfo, error_code_in, parse_envelope
from recognition_worker.results import Envelopes


@pytest.mark.parametrize(
    ("version", "said"), [("2.0", "PASSWORD_PROTECTED"), ("1.0", "UNREADABLE")]
)
def test_a_password_protected_file_is_said_in_the_version_spoken(version: str, said: str) -> None:
    envelopes = Envelopes(ServiceInfo(name="tabular-parser", version="1"), version)
    outgoing = envelopes.error(
        job_id=uuid.uuid4(),
        file_id=uuid.uuid4(),
        attempt=1,
        code=ErrorCode.PASSWORD_PROTECTED,
        message="Книга защищена паролем",
    )
    envelope = parse_envelope(outgoing.body)
    assert envelope.error is not None and envelope.error.code.value == said


def test_only_major_1_lacks_the_code() -> None:
    assert error_code_in(ErrorCode.PASSWORD_PROTECTED, 2) is ErrorCode.PASSWORD_PROTECTED
    assert error_code_in(ErrorCode.PASSWORD_PROTECTED, 1) is ErrorCode.UNREADABLE
    assert error_code_in(ErrorCode.TIMEOUT, 1) is ErrorCode.TIMEOUT
