"""The statements of the review: each change (a correction, its undoing, a confirmation) is one
guarded statement with its audit row, and the reads of what a document carries over its
recognised form."""

from __future__ import annotations

from arm_core.files.access import VISIBLE_FILE

# The document, if ``who`` may reach it (see or change, by the parameters): its file, and
# whether it is the current attempt's.
DOCUMENT = f"""
SELECT d.id, d.file_id, d.job_id, d.kind, d.confirmed_at,
       d.job_id = f.current_recognition_job_id AS current
  FROM document d
  JOIN stored_file f ON f.id = d.file_id
 WHERE d.id = %(document_id)s AND {VISIBLE_FILE}
"""

# Guarded: only a current attempt's document takes corrections. One that was confirmed is
# reopened by it, in the same statement, with its own audit row.
# The current attempt's document a change is made to (``doc``), and a change to it (``change``)
# taking back its confirmation (``reopened``), audited as ``action`` and, when it reopened the
# document, as document.reopen: what a correction and its undoing share.
_DOCUMENT_NOW = """doc AS (
    SELECT d.id, d.file_id, d.job_id, d.confirmed_at FROM document d
      JOIN stored_file f ON f.id = d.file_id AND f.current_recognition_job_id = d.job_id
     WHERE d.id = %(document_id)s
)"""


def _reopening(change: str, action: str, details: str) -> str:
    return f"""reopened AS (
    UPDATE document d
       SET confirmed_by = NULL, confirmed_at = NULL, reopened_by = %(actor)s, reopened_at = now()
      FROM doc, {change}
     WHERE d.id = doc.id AND doc.confirmed_at IS NOT NULL
    RETURNING d.id
), audit AS (
    INSERT INTO audit_log (actor, action, file_id, job_id, details)
    SELECT %(actor)s, a.action, doc.file_id, doc.job_id, {details}
      FROM doc, {change},
           (VALUES ('{action}'), ('document.reopen')) AS a(action)
     WHERE a.action = '{action}' OR EXISTS (SELECT 1 FROM reopened)
)"""


CORRECT = f"""
WITH {_DOCUMENT_NOW}, added AS (
    INSERT INTO correction (document_id, target, position, field, recognised, corrected,
                            reason, actor)
    SELECT id, %(target)s, %(position)s, %(field)s, %(recognised)s, %(corrected)s,
           %(reason)s, %(actor)s
      FROM doc
    RETURNING id, at
), {_reopening("added", "document.correct", "%(details)s")}
SELECT id, at FROM added
"""

CONFIRM = """
WITH doc AS (
    UPDATE document d
       SET confirmed_by = %(actor)s, confirmed_at = now(), reopened_by = NULL, reopened_at = NULL
      FROM stored_file f
     WHERE d.id = %(document_id)s AND f.id = d.file_id
       AND f.current_recognition_job_id = d.job_id AND d.confirmed_at IS NULL
    RETURNING d.id, d.file_id, d.job_id
), acks AS (
    INSERT INTO acknowledgement (document_id, code, locator, reason, actor)
    SELECT doc.id, a.code, a.locator, a.reason, %(actor)s
      FROM doc, jsonb_to_recordset(%(acks)s) AS a(code text, locator jsonb, reason text)
), audit AS (
    INSERT INTO audit_log (actor, action, file_id, job_id, details)
    SELECT %(actor)s, 'document.confirm', doc.file_id, doc.job_id, %(details)s FROM doc
)
SELECT id FROM doc
"""

LAYERS = """
SELECT document_id, id, target, position, field, recognised, corrected, reason, actor, at
  FROM correction WHERE document_id = ANY(%(ids)s) AND undone_at IS NULL ORDER BY id
"""

# Guarded like a correction: a current attempt's document, a correction of it not undone yet.
# Undoing a correction of a confirmed document reopens it, as a correction does.
_UNDONE = """jsonb_build_object(
               'document_id', doc.id, 'correction_id', undone.id, 'target', undone.target,
               'position', undone.position, 'field', undone.field,
               'recognised', undone.recognised, 'corrected', undone.corrected)"""

UNDO = f"""
WITH {_DOCUMENT_NOW}, undone AS (
    UPDATE correction c SET undone_by = %(actor)s, undone_at = now()
      FROM doc
     WHERE c.id = %(correction_id)s AND c.document_id = doc.id AND c.undone_at IS NULL
    RETURNING c.id, c.target, c.position, c.field, c.recognised, c.corrected
), {_reopening("undone", "document.uncorrect", _UNDONE)}
SELECT id FROM undone
"""
ACKS = """
SELECT document_id, code, locator, reason, actor, at
  FROM acknowledgement WHERE document_id = ANY(%(ids)s) ORDER BY id
"""
CONFIRMED = """
SELECT id, confirmed_by, confirmed_at, reopened_by, reopened_at FROM document
 WHERE id = ANY(%(ids)s) AND (confirmed_at IS NOT NULL OR reopened_at IS NOT NULL)
"""


CORRECTED = """
SELECT count(*) AS n FROM correction c
  JOIN document d ON d.id = c.document_id
  JOIN stored_file f ON f.id = d.file_id AND f.current_recognition_job_id = d.job_id
 WHERE f.id = %(file_id)s
"""
