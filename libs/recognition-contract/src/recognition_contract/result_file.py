"""The result file: validated by its MAJOR's schema and handed over as a dict, because the
parsers and the core mappers keep their own typed models of documents."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from recognition_contract.codec import MAX_RESULT_FILE_BYTES, decode_json
from recognition_contract.enums import Status
from recognition_contract.errors import ContractError, Reason
from recognition_contract.messages import Warning, warnings_from
from recognition_contract.schemas import Kind, validate
from recognition_contract.versions import SUPPORTED_MAJORS, SchemaVersion


@dataclass(frozen=True)
class ResultFile:
    version: SchemaVersion
    data: dict[str, Any]
    """The whole file as decoded; it matched the schema of ``version.major``."""

    @property
    def status(self) -> Status:
        return Status(self.data["status"])

    @property
    def group_schema(self) -> str:
        return str(self.data["group_schema"])

    @property
    def documents(self) -> list[dict[str, Any]]:
        documents: list[dict[str, Any]] = self.data["documents"]
        return documents

    @property
    def warnings(self) -> tuple[Warning, ...]:
        """File-level warnings, structured whatever the MAJOR."""
        return warnings_from(self.data.get("warnings", []), self.version)


def result_file_from_payload(
    payload: object, *, majors: Collection[int] = SUPPORTED_MAJORS
) -> ResultFile:
    version = validate(Kind.RESULT_FILE, payload, majors=majors)
    assert isinstance(payload, dict)  # validate() refuses anything else
    try:
        warnings_from(payload.get("warnings", []), version)
    except ValidationError as exc:
        raise ContractError(Reason.SCHEMA, f"warnings: {exc}") from None
    return ResultFile(version, payload)


def parse_result_file(
    data: bytes | bytearray | memoryview,
    *,
    max_bytes: int = MAX_RESULT_FILE_BYTES,
    majors: Collection[int] = SUPPORTED_MAJORS,
) -> ResultFile:
    """Result file bytes -> ``ResultFile``, or ``ContractError`` (``UnknownMajor`` for e.g. 3.0)."""
    return result_file_from_payload(decode_json(data, max_bytes=max_bytes), majors=majors)
