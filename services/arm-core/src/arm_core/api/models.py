"""What the JSON API answers, as typed models: the OpenAPI document describes every field.

Every resource model accepts fields it does not list (``extra="allow"``): a later version may
add fields, never remove or retype them, so a client ignores what it does not know.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FileStatus = Literal["UPLOADED", "PROCESSING", "RECOGNIZED", "NEEDS_CHECK", "ERROR"]
JobStatus = Literal[
    "queued", "published", "processing", "done", "needs_check", "error", "timeout", "dlq"
]
FileType = Literal["XLS", "XLSX", "XLSB", "PDF", "PNG", "JPG", "TXT", "XML"]
Pipeline = Literal["tabular", "image"]


class Resource(BaseModel):
    model_config = ConfigDict(extra="allow")


# Health.


class SubjectsView(Resource):
    tabular_request: str
    image_request: str
    result: str


class Health(Resource):
    status: Literal["ok", "degraded"]
    db: Literal["ok", "down"]
    nats: Literal["ok", "down", "off"] = Field(description="off: the exchange is disabled")
    subjects: SubjectsView


# Files and attempts.


class WarningView(Resource):
    """A warning in the contract's 2.x form (1.x texts arrive as ``LEGACY_WARNING``)."""

    code: str
    severity: str
    message: str
    locator: dict[str, Any] | None = None


class JobView(Resource):
    """One recognition attempt of a file."""

    id: uuid.UUID
    file_id: uuid.UUID
    attempt: int
    max_attempts: int
    status: JobStatus
    pipeline: Pipeline
    requested_at: dt.datetime
    published_at: dt.datetime | None
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    reply_deadline: dt.datetime | None
    request_msg_id: str | None
    request_subject: str | None
    result_msg_id: str | None
    service_name: str | None
    service_version: str | None
    republish_count: int
    error_code: str | None
    error_message: str | None
    result_schema_version: str | None
    group_schema: str | None
    statements_version: str | None
    warnings: list[WarningView]
    metrics: dict[str, Any] = Field(description="what the service reported about its work")


class FileView(Resource):
    id: uuid.UUID
    original_name: str
    file_type: FileType
    status: FileStatus
    error_code: str | None
    error_message: str | None
    mapping_error: str | None
    consolidation_id: uuid.UUID | None
    size: int | None
    created_at: dt.datetime
    updated_at: dt.datetime
    current_job_id: uuid.UUID | None
    attempt: int | None
    max_attempts: int | None
    retryable: bool
    documents: int = Field(description="documents of the current attempt")
    confirmed_documents: int = Field(description="of those, confirmed by an analyst")


class FileDetail(FileView):
    attempts: list[JobView]


class FileList(Resource):
    items: list[FileView]
    total: int
    limit: int
    offset: int


class SameFile(Resource):
    file_id: uuid.UUID
    original_name: str
    consolidation_id: uuid.UUID | None
    created_at: dt.datetime


class Uploaded(Resource):
    file_id: uuid.UUID
    job_id: uuid.UUID
    status: Literal["UPLOADED"]
    pipeline: Pipeline
    file_type: FileType
    original_name: str = Field(description="the name for display: no directories or controls")
    size: int
    consolidation_id: uuid.UUID | None
    sha256: str = Field(description="of the file's bytes, hex")
    same_bytes: list[SameFile] | None = Field(
        description="files already uploaded with exactly these bytes (that the caller may "
        "see); null when that could not be looked up at once"
    )


class RetryStarted(Resource):
    file_id: uuid.UUID
    job_id: uuid.UUID
    attempt: int


class BatchRetryResult(Resource):
    file_id: str = Field(description="as it was sent, so a value that is no UUID is named too")
    outcome: Literal["retried", "skipped"]
    job_id: uuid.UUID | None = Field(default=None, description="when retried")
    attempt: int | None = Field(default=None, description="when retried")
    reason: str | None = Field(default=None, description="when skipped: an error code")
    message: str | None = Field(default=None, description="when skipped")


class BatchRetryResults(Resource):
    results: list[BatchRetryResult] = Field(description="in the order the ids were sent")


# Documents.


class PeriodView(Resource):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    from_: dt.date | None = Field(alias="from")
    to: dt.date | None
    text: str | None


class OrganisationView(Resource):
    name: str | None
    tax_id: str | None


class AccountView(Resource):
    code: str | None
    name: str | None


class TrialBalanceRowView(Resource):
    id: int
    parent: int | None
    kind: str
    level: int
    account: str | None
    name: str | None
    opening_debit: str | None
    opening_credit: str | None
    turnover_debit: str | None
    turnover_credit: str | None
    closing_debit: str | None
    closing_credit: str | None
    confidence: float
    locator: dict[str, Any]


class StatementHeaderView(Resource):
    bank_name: str | None
    bank_bic: str | None
    account: str | None
    currency: str | None
    holder_name: str | None
    holder_tax_id: str | None
    period: PeriodView | None
    opening_balance: str | None
    closing_balance: str | None
    total_debit: str | None
    total_credit: str | None


class TransactionView(Resource):
    date: dt.date | None
    number: str | None
    debit: str | None
    credit: str | None
    debit_equivalent: str | None
    credit_equivalent: str | None
    counterparty_name: str | None
    counterparty_tax_id: str | None
    counterparty_account: str | None
    counterparty_bank: str | None
    counterparty_bank_bic: str | None
    purpose: str | None
    confidence: float
    locator: dict[str, Any]
    document_kind: str | None = Field(
        None, description="the payment document's kind as the bank names it (bank exports)"
    )
    counterparty_kpp: str | None = Field(None, description="the counterparty's КПП")


class CorrectionView(Resource):
    id: int
    target: Literal["header", "row", "transaction"]
    position: int | None = Field(description="the row's or transaction's number, from 1")
    field: str
    recognised: str | None = Field(description="the value as recognised")
    corrected: str | None = Field(description="the value as corrected; null clears it")
    reason: str
    actor: str
    at: dt.datetime


class AcknowledgementView(Resource):
    code: str
    locator: dict[str, Any] | None
    reason: str
    actor: str
    at: dt.datetime


class ConfirmedView(Resource):
    by: str
    at: dt.datetime


ReviewState = Literal["recognised", "needs_check", "confirmed", "reopened"]


class _DocumentView(Resource):
    id: uuid.UUID
    job_id: uuid.UUID
    confidence: float
    locator: dict[str, Any]
    warnings: list[WarningView] = Field(
        description="as recognised; re-made from the corrected values where corrected"
    )
    corrections: list[CorrectionView] = Field(
        description="in the order made (the latest of a field is applied above)"
    )
    acknowledgements: list[AcknowledgementView]
    confirmed: ConfirmedView | None
    reopened: ConfirmedView | None = Field(
        description="who reopened it by a correction after it was confirmed, and when"
    )
    review_state: ReviewState = Field(
        description="confirmed; reopened by a correction; needs_check (a warning left that "
        "is no note); recognised"
    )


class TrialBalanceView(_DocumentView):
    """A trial balance (ОСВ); amounts are decimal strings."""

    kind: Literal["osv"]
    variant: str | None
    title: str | None
    organisation: OrganisationView
    period: PeriodView | None
    currency: str | None
    unit: str | None
    account: AccountView | None
    totals: dict[str, Any] | None
    rows: list[TrialBalanceRowView]


class StatementView(_DocumentView):
    """A bank statement; amounts are decimal strings."""

    kind: Literal["statement"]
    header: StatementHeaderView | None
    transactions: list[TransactionView]


DocumentView = Annotated[TrialBalanceView | StatementView, Field(discriminator="kind")]


class ReviewedDocument(Resource):
    document: DocumentView = Field(description="with the corrections applied and re-checked")


class FileDocuments(Resource):
    file_id: uuid.UUID
    status: FileStatus
    job_id: uuid.UUID | None
    documents: list[DocumentView] = Field(description="of the file's current attempt")


# Consolidations.


class ConsolidationView(Resource):
    id: uuid.UUID
    name: str
    team: str | None = Field(description="the team whose analysts work on it")
    created_by: str
    created_at: dt.datetime
    files: int
    by_status: dict[str, int] = Field(description="the consolidation's files by status")
    documents: int = Field(description="documents of its files' current attempts")
    confirmed_documents: int = Field(description="of those, confirmed by an analyst")


class ConsolidationList(Resource):
    items: list[ConsolidationView]


# Audit.


class AuditEntry(Resource):
    id: int
    at: dt.datetime
    actor: str = Field(description="the user; anonymous for a request nobody could be named for")
    action: str = Field(
        description="file.upload, file.retry, file.download, file.export, document.view, "
        "document.correct, document.confirm, consolidation.create, consolidation.assign, "
        "consolidation.export, auth.sign_in, auth.sign_out, access.refused"
    )
    outcome: str = Field(description="ok, or the error code the request was refused with")
    file_id: uuid.UUID | None
    job_id: uuid.UUID | None
    details: dict[str, Any]


class AuditList(Resource):
    items: list[AuditEntry]
    total: int
    limit: int
    offset: int


# Reconciliation.


class ReconciliationPlace(Resource):
    file_id: uuid.UUID
    file_name: str
    document: int = Field(description="the document's position in the file, from 1; 0: the file")
    what: str
    locator: dict[str, Any] | None
    url: str = Field(description="the page that shows it")


class ReconciliationFinding(Resource):
    code: str = Field(
        description="PERIOD_GAP, PERIOD_OVERLAP, BALANCE_BREAK, BANK_MISMATCH, SAME_FILE, "
        "SAME_DOCUMENT"
    )
    message: str
    difference: str | None = Field(description="by how much, where it is an amount")
    places: list[ReconciliationPlace]


class ReconciliationCheck(Resource):
    code: str = Field(description="STATEMENT_CHAIN, TRIAL_BALANCE_CHAIN, BANK_ACCOUNTS, SAME_FILE")
    title: str
    compared: int = Field(description="how many pairs or documents it compared")
    findings: list[ReconciliationFinding]


class ExcludedFile(Resource):
    file_id: uuid.UUID
    file_name: str
    by: str
    at: dt.datetime
    reason: str | None


class Reconciliation(Resource):
    consolidation_id: uuid.UUID
    checks: list[ReconciliationCheck]
    excluded: list[ExcludedFile] = Field(description="files an analyst left out of the checks")


class ReconciliationExclusion(Resource):
    file_id: uuid.UUID
    excluded: bool


# The source beside the data.


class SourceRow(Resource):
    number: int = Field(description="the row's number in the workbook")
    cells: list[str] = Field(description="as the workbook shows them, column A first")


class SourceWindow(Resource):
    sheet: str
    row: int = Field(description="the row asked for (shown highlighted)")
    rows: list[SourceRow]
    merged: list[list[int]] = Field(
        default_factory=list,
        description="merged ranges reaching into the window: [first row, first column, last"
        " row, last column], rows as numbered in the workbook, columns from 0 (A)",
    )
    columns: int
    first_row: int | None = Field(description="the sheet's first row that was read")
    last_row: int | None


class SourcePage(Resource):
    page: int
    source: str | None = Field(description="text (a PDF's text layer) or ocr")
    image_url: str | None = Field(
        description="the page image the locators' boxes are fractions of; null if not kept"
    )


class SourcePages(Resource):
    file_id: uuid.UUID
    pages: list[SourcePage]
