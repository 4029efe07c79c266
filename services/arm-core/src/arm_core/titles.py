"""What a document is called wherever it is named (its page, the list of a file's documents,
an export): never a blank or a «None» where the source printed no title or account."""

from __future__ import annotations

from recognition_contract import Document, TrialBalance

OSV_TITLE = "Оборотно-сальдовая ведомость"


def document_title(doc: Document) -> str:
    if isinstance(doc, TrialBalance):
        return doc.title or OSV_TITLE
    account = doc.header.account
    return f"Выписка по счёту {account}" if account else "Выписка (счёт не прочитан)"
