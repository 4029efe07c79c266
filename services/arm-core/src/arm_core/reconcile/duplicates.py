"""Copies that must count once. The same bytes uploaded twice are named by ``same_files``;
the same statement in two files (one account and currency, one period, the same balances and
operations: a bank's PDF and its Excel export, say) is named here. The first uploaded copy
stays in the sums; every later one is left out of them, so account 51 is never compared with
a month counted twice."""

from __future__ import annotations

import dataclasses
from typing import Any

from arm_core.reconcile.checks import FileDocuments, Finding, Place, statement_what
from recognition_contract import Document, Statement


def _statement_key(doc: Document) -> tuple[Any, ...] | None:
    if not isinstance(doc, Statement):
        return None
    header = doc.header
    period = header.period
    lines = sorted((str(t.date), t.debit or "", t.credit or "") for t in doc.transactions)
    return (
        "".join((header.account or "").split()).upper(),
        header.currency or "",
        str(period.start if period else None),
        str(period.end if period else None),
        header.opening_balance,
        header.closing_balance,
        tuple(lines),
    )


def distinct(files: list[FileDocuments]) -> tuple[list[FileDocuments], list[Finding]]:
    """``files`` (oldest first) with every later copy of bytes or of a statement left out,
    and a finding naming each statement copy."""
    kept: list[FileDocuments] = []
    findings: list[Finding] = []
    seen_bytes: set[str] = set()
    seen: dict[tuple[Any, ...], Place] = {}
    for file in files:
        if file.sha256 and file.sha256 in seen_bytes:
            kept.append(dataclasses.replace(file, documents=[]))
            continue
        if file.sha256:
            seen_bytes.add(file.sha256)
        documents: list[Document | None] = []
        for index, doc in enumerate(file.documents, start=1):
            key = _statement_key(doc) if doc is not None else None
            if key is None or not isinstance(doc, Statement):
                documents.append(doc)
                continue
            place = Place(file.file_id, file.name, index, statement_what(doc))
            if key in seen:
                findings.append(
                    Finding(
                        "SAME_FILE",
                        "SAME_DOCUMENT",
                        f"{place.what[:1].upper()}{place.what[1:]} есть в двух файлах: "
                        "учтена один раз, "
                        f"по «{seen[key].file_name}»",
                        (seen[key], place),
                    )
                )
                # A slot no check reads, so that every other document keeps its position.
                documents.append(None)
                continue
            seen[key] = place
            documents.append(doc)
        kept.append(dataclasses.replace(file, documents=documents))
    return kept, findings
