"""The «Сверки» of a consolidation: every check over the files the analyst did not exclude,
each copy of a file or of a statement counted once."""

from __future__ import annotations

from arm_core.reconcile.checks import (
    Check,
    FileDocuments,
    bank_accounts,
    same_files,
    statement_chain,
    trial_balance_chain,
)
from arm_core.reconcile.duplicates import distinct


def reconcile(files: list[FileDocuments]) -> list[Check]:
    considered = [file for file in files if not file.excluded]
    unique, copies = distinct(considered)
    same = same_files(considered)
    same.findings += copies
    return [
        statement_chain(unique),
        trial_balance_chain(unique),
        bank_accounts(unique),
        same,
    ]
