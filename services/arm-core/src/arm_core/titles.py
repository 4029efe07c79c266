"""What a document is called wherever it is named (its page, the list of a file's documents,
an export): never a blank or a «None» where the source printed no title or account."""

from __future__ import annotations

from typing import Any

OSV_TITLE = "Оборотно-сальдовая ведомость"


def document_title(doc: dict[str, Any]) -> str:
    if doc["kind"] == "osv":
        return str(doc.get("title") or OSV_TITLE)
    account = (doc.get("header") or {}).get("account")
    return f"Выписка по счёту {account}" if account else "Выписка (счёт не прочитан)"
