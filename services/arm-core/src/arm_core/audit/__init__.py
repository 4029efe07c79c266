"""The audit trail: who did what, when, to which file, and how it ended.

Changes write their row in the statement that makes the change (uploads, retries,
consolidations, sign-in and sign-out); reads of borrower data and refused requests write
theirs here."""
