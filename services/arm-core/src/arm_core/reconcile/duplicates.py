"""Copies that must count once. The same bytes uploaded twice are named by ``same_files``;
the same statement in two files (one account and currency, one period, the same balances and
operations: a bank's PDF and its Excel export, say) is named here. The first uploaded copy
stays in the sums; every later one is left out of them, so account 51 is never compared with
a month counted twice."""

from __future__ import annotations

import dataclasses
from typing import Any

from arm_core.reconcile.checks import FileDocuments, Finding, Place, statement_what

# What a later copy's place in its file holds instead of the document: a kind no check reads,
# so that every other document keeps its position (the links point at #doc-N).
COUNTED_ELSEWHERE: dict[str, Any] = {"kind": "counted_elsewhere"}


def _statement_key(doc: dict[str, Any]) -> tuple[Any, ...] | None:
    if doc["kind"] != "statement":
        return None
    header = doc.get("header") or {}
    period = header.get("period") or {}
    lines = sorted(
        (str(t.get("date")), t.get("debit") or "", t.get("credit") or "")
        for t in doc.get("transactions", [])
    )
    return (
        "".join((header.get("account") or "").split()).upper(),
        header.get("currency") or "",
        str(period.get("from")),
        str(period.get("to")),
        header.get("opening_balance"),
        header.get("closing_balance"),
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
        documents: list[dict[str, Any]] = []
        for index, doc in enumerate(file.documents, start=1):
            key = _statement_key(doc)
            place = Place(file.file_id, file.name, index, statement_what(doc))
            if key is not None and key in seen:
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
                documents.append(COUNTED_ELSEWHERE)
                continue
            if key is not None:
                seen[key] = place
            documents.append(doc)
        kept.append(dataclasses.replace(file, documents=documents))
    return kept, findings
