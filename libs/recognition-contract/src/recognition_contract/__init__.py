"""The recognition contract between arm-core and the stateless recognition services.

The JSON Schemas (MAJOR 1 and 2) and their examples ship in ``api/contracts/``, a byte-identical
copy of ``docs/contracts/``. Everything here works from that copy.

Versions (``versions``)
    ``SUPPORTED_MAJORS = (1, 2)``; ``parse_version("1.3") -> SchemaVersion(1, 3)``;
    ``version_of(payload, majors)``. A malformed version raises ``MalformedVersion``, a MAJOR
    outside ``majors`` raises ``UnknownMajor``; any MINOR of a known MAJOR is accepted.

Validation (``schemas``), validators compiled once per schema, picked by the payload's MAJOR
    ``validate_request(payload, *, majors=SUPPORTED_MAJORS) -> SchemaVersion``
    ``validate_envelope(payload, *, majors=...) -> SchemaVersion``
    ``validate_result_file(payload, *, majors=...) -> SchemaVersion``
    all raising ``ContractError`` (``code`` SCHEMA_MISMATCH, ``reason``, ``errors``);
    ``schema_errors(kind, major, payload) -> list[str]`` checks without raising.

Wire messages (``messages``), frozen pydantic models
    ``RecognitionRequest``, ``ResultEnvelope`` with ``ServiceInfo``, ``S3Ref``, ``ErrorInfo``
    and the file-level ``Warning`` values of ``documents``.
    ``parse_request(data: bytes, *, max_bytes, majors) -> RecognitionRequest``
    ``parse_envelope(data: bytes, *, max_bytes, majors) -> ResultEnvelope``
    (bytes that are too large, not UTF-8, not a JSON object, or off-schema raise ContractError);
    ``request_from_payload`` / ``envelope_from_payload`` for already decoded JSON.
    ``dump_request(request, version=None) -> bytes`` and ``dump_envelope(envelope, version=None)
    -> bytes`` write a chosen version ("1.0" or "2.0") and check the output against its schema.

Documents (``documents``), frozen dataclasses defined once for producers and the core
    ``TrialBalance`` (``TrialBalanceRow``, ``Totals``, ``Organisation``, ``AccountRef``),
    ``Statement`` (``StatementHeader``, ``Transaction``, ``Equivalents``), ``Period``,
    ``Warning`` (``code``, ``severity``, ``message``, ``locator``), ``Locator``, ``BBox``;
    ``Document = TrialBalance | Statement``; money is ``Money``, the contract's decimal string
    (``amount(m) -> Decimal``); dates are ``datetime.date``.
    ``to_wire(document, major) -> dict`` and ``from_wire(data, major) -> Document`` (checked by
    that MAJOR's schema); ``locator_to_wire``, ``totals_to_wire``, ``warning_to_wire``.
    Warnings are structured whatever the MAJOR: ``legacy_warning(text)`` wraps a 1.x string as
    ``Warning(code="LEGACY_WARNING", severity=INFO, message=text, locator=None)``,
    ``warnings_from(raw, version)`` does it for a whole list, ``warning_text`` goes back.

Result files (``result_file``)
    ``parse_result_file(data: bytes, *, max_bytes, majors) -> ResultFile`` (``version``,
    ``job_id``, ``file_id``, ``status``, ``service``, ``group_schema``, ``documents``,
    ``warnings``, ``error``); ``result_file_payload(result, version=None) -> dict`` writes a
    chosen version and checks it against its schema.

Identifiers (``msgids``, ``keys``)
    ``NATS_MSG_ID = "Nats-Msg-Id"``; ``request_msg_id(job_id, attempt) -> "<job_id>:<attempt>"``,
    ``ack_msg_id -> "ack:<job_id>:<attempt>"``, ``result_msg_id -> "result:<job_id>:<attempt>"``;
    ``result_key(file_id, job_id) -> "results/{file_id}/{job_id}/result.json"``,
    ``raw_prefix(file_id, job_id) -> "raw/{file_id}/{job_id}/"``.

Examples (``examples``)
    ``examples() -> list[Example]`` (``name``, ``kind``, ``version``, ``valid``, ``load()``),
    ``parse_example_name(name)``: the naming rule of ``api/contracts/examples/``.

Vocabularies (``enums``)
    ``ErrorCode``, ``FileType``, ``Pipeline``, ``Status``, ``Severity``, ``LEGACY_WARNING``,
    ``pipeline_for(file_type) -> Pipeline``; ``file_types_of(major)`` and ``FIRST_VERSION``
    (the version a request for a newer file type is published at).
"""

from recognition_contract.codec import (
    MAX_MESSAGE_BYTES,
    MAX_RESULT_FILE_BYTES,
    decode_json,
    encode_json,
)
from recognition_contract.document_wire import (
    document_of,
    from_wire,
    to_wire,
    totals_from_wire,
    totals_to_wire,
)
from recognition_contract.documents import (
    MONEY_FIELDS,
    AccountRef,
    BBox,
    Document,
    Equivalents,
    Locator,
    Money,
    Organisation,
    Period,
    RowKind,
    Statement,
    StatementHeader,
    Totals,
    Transaction,
    TrialBalance,
    TrialBalanceRow,
    Unit,
    Variant,
    Warning,
    amount,
    legacy_warning,
    locator_from_wire,
    locator_to_wire,
    warning_text,
    warning_to_wire,
    warnings_from,
    warnings_to_wire,
)
from recognition_contract.enums import (
    FIRST_VERSION,
    LEGACY_WARNING,
    ErrorCode,
    FileType,
    Pipeline,
    Severity,
    Status,
    error_code_in,
    file_types_of,
    pipeline_for,
)
from recognition_contract.errors import ContractError, MalformedVersion, Reason, UnknownMajor
from recognition_contract.examples import Example, examples, parse_example_name
from recognition_contract.fields import FieldInfo, empty, fields_of, names_of
from recognition_contract.keys import raw_prefix, result_key
from recognition_contract.messages import (
    ErrorInfo,
    RecognitionRequest,
    ResultEnvelope,
    S3Ref,
    ServiceInfo,
    dump_envelope,
    dump_request,
    envelope_from_payload,
    envelope_payload,
    parse_envelope,
    parse_request,
    request_from_payload,
    request_payload,
)
from recognition_contract.msgids import NATS_MSG_ID, ack_msg_id, request_msg_id, result_msg_id
from recognition_contract.result_file import (
    ResultFile,
    parse_result_file,
    result_file_from_payload,
    result_file_payload,
)
from recognition_contract.schemas import (
    SCHEMA_FILES,
    Kind,
    contracts_dir,
    document_errors,
    load_schema,
    schema_errors,
    validate,
    validate_envelope,
    validate_request,
    validate_result_file,
)
from recognition_contract.versions import (
    SUPPORTED_MAJORS,
    SchemaVersion,
    parse_version,
    version_of,
)

__all__ = [
    "FIRST_VERSION",
    "LEGACY_WARNING",
    "MAX_MESSAGE_BYTES",
    "MAX_RESULT_FILE_BYTES",
    "MONEY_FIELDS",
    "NATS_MSG_ID",
    "SCHEMA_FILES",
    "SUPPORTED_MAJORS",
    "AccountRef",
    "BBox",
    "ContractError",
    "Document",
    "Equivalents",
    "ErrorCode",
    "ErrorInfo",
    "Example",
    "FieldInfo",
    "FileType",
    "Kind",
    "Locator",
    "MalformedVersion",
    "Money",
    "Organisation",
    "Period",
    "Pipeline",
    "Reason",
    "RecognitionRequest",
    "ResultEnvelope",
    "ResultFile",
    "RowKind",
    "S3Ref",
    "SchemaVersion",
    "ServiceInfo",
    "Severity",
    "Statement",
    "StatementHeader",
    "Status",
    "Totals",
    "Transaction",
    "TrialBalance",
    "TrialBalanceRow",
    "Unit",
    "UnknownMajor",
    "Variant",
    "Warning",
    "ack_msg_id",
    "amount",
    "contracts_dir",
    "decode_json",
    "document_errors",
    "document_of",
    "dump_envelope",
    "dump_request",
    "empty",
    "encode_json",
    "envelope_from_payload",
    "envelope_payload",
    "error_code_in",
    "examples",
    "fields_of",
    "file_types_of",
    "from_wire",
    "legacy_warning",
    "load_schema",
    "locator_from_wire",
    "locator_to_wire",
    "names_of",
    "parse_envelope",
    "parse_example_name",
    "parse_request",
    "parse_result_file",
    "parse_version",
    "pipeline_for",
    "raw_prefix",
    "request_from_payload",
    "request_msg_id",
    "request_payload",
    "result_file_from_payload",
    "result_file_payload",
    "result_key",
    "result_msg_id",
    "schema_errors",
    "to_wire",
    "totals_from_wire",
    "totals_to_wire",
    "validate",
    "validate_envelope",
    "validate_request",
    "validate_result_file",
    "version_of",
    "warning_text",
    "warning_to_wire",
    "warnings_from",
    "warnings_to_wire",
]
